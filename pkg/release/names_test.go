/*
Copyright 2026 The dra-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package release

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePlatforms(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    []Platform
		wantErr string
	}{
		{"commas separate platforms in order", "linux/amd64,windows/arm64", []Platform{{"linux", "amd64"}, {"windows", "arm64"}}, ""},
		{"spaces separate them too", "darwin/arm64 linux/arm64", []Platform{{"darwin", "arm64"}, {"linux", "arm64"}}, ""},
		{"a pair without a slash is refused", "linux", nil, `"linux": want os/arch`},
		{"a pair with two slashes is refused", "linux/arm/v7", nil, `"linux/arm/v7": want os/arch`},
		{"a platform listed twice is refused", "linux/amd64,linux/amd64", nil, "listed twice"},
		{"an empty list is refused", " , ", nil, "no platform"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePlatforms(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParsePlatforms(%q) = %v, %v; want an error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParsePlatforms(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		ok      bool
	}{
		{"a release is v and three numbers", "v0.1.0", true},
		{"a release candidate has a pre-release suffix", "v0.1.0-rc.0", true},
		{"build metadata is allowed", "v1.2.3+build.7", true},
		{"a version without v is refused, as krew refuses it", "0.1.0", false},
		{"two numbers are not a version", "v0.1", false},
		{"git describe's output for an untagged tree is refused", "0b26437-dirty", false},
		{"a leading zero is not semantic versioning", "v0.01.0", false},
		{"the Makefile's fallback is refused", "dev", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckVersion(tc.version); (err == nil) != tc.ok {
				t.Errorf("CheckVersion(%q) = %v, want ok=%v", tc.version, err, tc.ok)
			}
		})
	}
}

func TestArtifactNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"a Linux archive is a tar.gz", ArchiveName("kubectl-dra", "v0.1.0", Platform{"linux", "arm64"}), "kubectl-dra_v0.1.0_linux_arm64.tar.gz"},
		{"a macOS archive is a tar.gz", ArchiveName("kubectl-dra", "v0.1.0", Platform{"darwin", "amd64"}), "kubectl-dra_v0.1.0_darwin_amd64.tar.gz"},
		{"a Windows archive is a zip", ArchiveName("kubectl-dra", "v0.1.0", Platform{"windows", "amd64"}), "kubectl-dra_v0.1.0_windows_amd64.zip"},
		{"a bare Linux binary has no extension", BinaryName("dra-scheduler", "v0.1.0-rc.0", Platform{"linux", "amd64"}), "dra-scheduler_v0.1.0-rc.0_linux_amd64"},
		{"a bare Windows binary ends in .exe", BinaryName("dra-bench", "v0.1.0", Platform{"windows", "arm64"}), "dra-bench_v0.1.0_windows_arm64.exe"},
		{"the executable in a Windows archive ends in .exe", Platform{"windows", "arm64"}.Executable("kubectl-dra"), "kubectl-dra.exe"},
		{"the download URL is the GitHub release's", DownloadURL(Repository, "v0.1.0", "x.zip"), "https://github.com/dra-scheduler/dra-scheduler/releases/download/v0.1.0/x.zip"},
		{"krew wants the manifest named after the plugin", KrewManifestFile("dra"), "dra.yaml"},
		{"a binary's SBOM is named after its artifact", SBOMName("dra-scheduler", "v0.1.0", Platform{"linux", "arm64"}), "dra-scheduler_v0.1.0_linux_arm64.cdx.json"},
		{"a Windows binary's SBOM has no .exe", SBOMName("kubectl-dra", "v0.1.0", Platform{"windows", "amd64"}), "kubectl-dra_v0.1.0_windows_amd64.cdx.json"},
		{"the SBOM in an archive is named after the program", SBOMEntryName("kubectl-dra"), "kubectl-dra.cdx.json"},
		{"a bare binary's license texts are a tar.gz beside it", LicensesArchiveName("dra-bench", "v0.1.0", Platform{"linux", "amd64"}), "dra-bench_v0.1.0_linux_amd64.licenses.tar.gz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

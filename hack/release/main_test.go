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

package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/release"
)

// runRelease runs the command and returns its exit code and output.
func runRelease(args ...string) (int, string) {
	var out bytes.Buffer
	code := run(args, &out, &out)
	return code, out.String()
}

// sbomOf writes the SBOM of the binary at path beside it, as
// cyclonedx-gomod's bin mode would for a binary linking the standard
// library only, licensed as modules says (name: SPDX id), and returns its
// path.
func sbomOf(t *testing.T, path string, modules map[string]string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var components []string
	for name, id := range modules {
		version := "v1.0.0"
		if name == "std" {
			version = runtime.Version()
		}
		components = append(components, fmt.Sprintf(`{"type": "library", "name": %q, "version": %q, "licenses": [{"license": {"id": %q}}]}`, name, version, id))
	}
	doc := fmt.Sprintf(`{"bomFormat": "CycloneDX", "specVersion": "1.6", "metadata": {"properties": [
  {"name": "cdx:gomod:binary:name", "value": %q},
  {"name": "cdx:gomod:binary:hash:SHA-256", "value": "%x"}]},
"components": [%s]}`, filepath.Base(path), sha256.Sum256(data), strings.Join(components, ","))
	out := path + ".cdx.json"
	if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTheMakefilesSequenceWritesAReleaseThatVerifies runs the subcommands
// in the order hack/make/release.mk does, on fake binaries whose SBOMs
// the test writes (make release has cyclonedx-gomod write them: release
// sbom, which pkg/release's tests run on a real build).
func TestTheMakefilesSequenceWritesAReleaseThatVerifies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: release licenses reads the standard library's license from GOROOT")
	}
	stage, dist := t.TempDir(), t.TempDir()
	const version = "v0.1.0-rc.0"
	fake := func(dir, name string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+dir+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	step := func(args ...string) string {
		t.Helper()
		code, out := runRelease(args...)
		if code != 0 {
			t.Fatalf("release %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	license, notice := filepath.Join(stage, "LICENSE"), filepath.Join(stage, "NOTICE")
	for _, f := range []string{license, notice} {
		if err := os.WriteFile(f, []byte(filepath.Base(f)+" text\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// ship runs release licenses on a fake binary's SBOM, then release
	// archive or binary.
	ship := func(subcommand, platform, binary string) {
		t.Helper()
		sbom := sbomOf(t, binary, map[string]string{"std": "BSD-3-Clause"})
		texts := filepath.Join(filepath.Dir(binary), "third_party_licenses")
		out := step("licenses", "-sbom", sbom, "-out", texts)
		if !strings.Contains(out, "1 components, licenses BSD-3-Clause: 1") {
			t.Errorf("release licenses printed\n%s\nwant the components and their licenses counted", out)
		}
		step(subcommand, "-dir", dist, "-version", version, "-platform", platform, "-sbom", sbom, "-licenses", texts, binary, license, notice)
	}
	plugin := "linux/amd64,windows/arm64"
	ship("archive", "linux/amd64", fake(filepath.Join(stage, "linux_amd64"), "kubectl-dra"))
	ship("archive", "windows/arm64", fake(filepath.Join(stage, "windows_arm64"), "kubectl-dra.exe"))
	ship("binary", "linux/amd64", fake(filepath.Join(stage, "server_linux_amd64"), "dra-scheduler"))
	step("krew", "-dir", dist, "-version", version, "-platforms", plugin)
	step("checksums", "-dir", dist)
	step("verify", "-dir", dist, "-version", version, "-platforms", plugin, "-binaries", "dra-scheduler", "-binary-platforms", "linux/amd64")

	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "SHA256SUMS dra-scheduler_v0.1.0-rc.0_linux_amd64 dra-scheduler_v0.1.0-rc.0_linux_amd64.cdx.json dra-scheduler_v0.1.0-rc.0_linux_amd64.licenses.tar.gz dra.yaml" +
		" kubectl-dra_v0.1.0-rc.0_linux_amd64.cdx.json kubectl-dra_v0.1.0-rc.0_linux_amd64.tar.gz kubectl-dra_v0.1.0-rc.0_windows_arm64.cdx.json kubectl-dra_v0.1.0-rc.0_windows_arm64.zip"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("release directory holds\n  %s\nwant\n  %s", got, want)
	}
	archived, err := release.ReadArchive(filepath.Join(dist, "kubectl-dra_v0.1.0-rc.0_windows_arm64.zip"))
	if err != nil {
		t.Fatal(err)
	}
	var packed []string
	for _, e := range archived {
		packed = append(packed, e.Name)
	}
	if got, want := strings.Join(packed, " "), "kubectl-dra.exe LICENSE NOTICE kubectl-dra.cdx.json third_party_licenses/std/LICENSE third_party_licenses/std/PATENTS"; got != want {
		t.Errorf("the Windows archive holds\n  %s\nwant\n  %s", got, want)
	}

	// verify expects what the Makefile builds: a binary it lacks fails it.
	if code, out := runRelease("verify", "-dir", dist, "-version", version, "-platforms", plugin, "-binaries", "dra-scheduler,dra-bench", "-binary-platforms", "linux/amd64"); code != 1 || !strings.Contains(out, "lacks dra-bench_v0.1.0-rc.0_linux_amd64") {
		t.Errorf("verify of a release without dra-bench: exit %d\n%s", code, out)
	}
}

func TestLicensesRefusesAGPLModule(t *testing.T) {
	binary := filepath.Join(t.TempDir(), "dra-scheduler")
	if err := os.WriteFile(binary, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	sbom := sbomOf(t, binary, map[string]string{"example.com/copyleft": "GPL-2.0-or-later"})
	texts := filepath.Join(t.TempDir(), "third_party_licenses")
	code, out := runRelease("licenses", "-sbom", sbom, "-out", texts)
	if want := `module example.com/copyleft@v1.0.0: license "GPL-2.0-or-later" is not allowed in shipped binaries`; code != 1 || !strings.Contains(out, want) {
		t.Errorf("release licenses on a GPL module: exit %d\n%s\nwant exit 1 and %q", code, out, want)
	}
	if _, err := os.Stat(texts); !os.IsNotExist(err) {
		t.Errorf("release licenses wrote %s for a refused SBOM (%v)", texts, err)
	}
}

func TestCommandLineErrors(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kubectl-dra")
	if err := os.WriteFile(bin, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"a release version is accepted", []string{"check-version", "v0.1.0"}, 0, ""},
		{"git describe's version is not a release", []string{"check-version", "0b26437-dirty"}, 1, `version "0b26437-dirty": want v<major>`},
		{"no subcommand is a usage error", nil, 2, "usage: release"},
		{"an unknown subcommand is a usage error", []string{"publish"}, 2, `unknown subcommand "publish"`},
		{"an archive needs a release version", []string{"archive", "-version", "dev", "-platform", "linux/amd64", bin}, 2, `version "dev"`},
		{"a Windows archive needs the .exe", []string{"archive", "-version", "v0.1.0", "-platform", "windows/amd64", bin}, 2, "want a file named kubectl-dra.exe"},
		{"an archive is for one platform", []string{"archive", "-version", "v0.1.0", "-platform", "linux/amd64,linux/arm64", bin}, 2, "want one os/arch"},
		{"a bad -mtime is a usage error", []string{"archive", "-version", "v0.1.0", "-platform", "linux/amd64", "-mtime", "yesterday", bin}, 2, `-mtime "yesterday"`},
		{"a missing release directory names it", []string{"checksums", "-dir", "/nonexistent/dist"}, 1, "/nonexistent/dist"},
		{"an archive needs the binary's SBOM and license texts", []string{"archive", "-version", "v0.1.0", "-platform", "linux/amd64", bin}, 2, "needs -sbom (its SBOM) and -licenses"},
		{"license texts go into third_party_licenses", []string{"binary", "-version", "v0.1.0", "-platform", "linux/amd64", "-sbom", bin, "-licenses", "/tmp/licenses", bin}, 2, "-licenses /tmp/licenses: want a directory named third_party_licenses"},
		{"an SBOM is written for one binary", []string{"sbom", "-version", "v0.1.0", "-out", "x.cdx.json"}, 2, "sbom takes -out FILE and one binary"},
		{"licenses needs the SBOM and where to write", []string{"licenses", "-sbom", "x.cdx.json"}, 2, "licenses takes -sbom FILE and -out DIR"},
		{"licenses names an SBOM it cannot read", []string{"licenses", "-sbom", "/nonexistent/x.cdx.json", "-out", "/nonexistent/third_party_licenses"}, 1, "/nonexistent/x.cdx.json"},
		{"licenses empties only a third_party_licenses directory", []string{"licenses", "-sbom", "x.cdx.json", "-out", "."}, 2, "-out .: want a directory named third_party_licenses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runRelease(tc.args...)
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) {
				t.Errorf("release %v: exit %d, output\n%s\nwant exit %d and %q", tc.args, code, out, tc.wantCode, tc.wantOut)
			}
		})
	}
}

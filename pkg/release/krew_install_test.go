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
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// TestKrewInstallsEveryPlatformsArchive runs krew's validator as the
// krew-index's CI does, installing the plugin for every platform of the
// manifest with `kubectl krew install` (KREW_OS, KREW_ARCH), from this
// test's HTTP server instead of the GitHub release: krew downloads each
// archive, checks its sha256, extracts it, copies files and links bin,
// then the validator looks for a LICENSE among the installed files.
// Without any license file in the archives the krew-index refuses the
// plugin. (Any file named LICENSE will do, one of third_party_licenses/
// too: Verify, not krew, checks that the archives hold dra-scheduler's
// own.)
func TestKrewInstallsEveryPlatformsArchive(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: cannot build krew")
	}
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH: krew's validator installs the plugin with `kubectl krew install` (TestKrewsValidatorAcceptsTheManifest checks the manifest without installing)")
	}
	// kubectl krew, built from the validator's module.
	bin := t.TempDir()
	install := exec.Command("go", "install", "sigs.k8s.io/krew/cmd/krew@v0.4.3")
	install.Dir = t.TempDir()
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install krew: %v\n%s", err, out)
	}
	if err := os.Rename(filepath.Join(bin, "krew"), filepath.Join(bin, "kubectl-krew")); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name    string
		license bool
		wantErr string
	}{
		{"with LICENSE, NOTICE, the SBOM and license texts every platform installs", true, ""},
		{"without any license file the krew-index's check refuses the plugin", false, "could not find license file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dist, _ := fakeRelease(t, tc.license)
			srv := httptest.NewServer(http.FileServer(http.Dir(dist)))
			defer srv.Close()
			m, err := ReadKrewManifest(filepath.Join(dist, "dra.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for i := range m.Spec.Platforms {
				m.Spec.Platforms[i].URI = srv.URL + "/" + path.Base(m.Spec.Platforms[i].URI)
			}
			manifest, err := WriteKrewManifest(t.TempDir(), m)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "run", krewValidator, "-manifest", manifest)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("krew's validator: %v\n%s", err, out)
			case tc.wantErr == "" && !strings.Contains(string(out), "all 6 spec.platforms installed fine"):
				t.Errorf("krew's validator did not install every platform:\n%s", out)
			case tc.wantErr != "" && (err == nil || !strings.Contains(string(out), tc.wantErr)):
				t.Errorf("krew's validator = %v, want it to fail with %q:\n%s", err, tc.wantErr, out)
			}
		})
	}
}

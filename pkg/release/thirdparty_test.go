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
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestLicenseFilesFindsLicensesAnywhereButTestdata(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"LICENSE", "NOTICE.txt", "COPYING", "PATENTS", "LICENSE-APACHE", "LICENSE.docs",
		"third_party/forked/golang/LICENSE", "internal/casing/LICENSE.md",
		// not license texts:
		"license.go", "licenses_test.go", "README.md", "licensed.txt",
		"testdata/LICENSE", "sub/testdata/fixture/COPYING",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, root, f, "text of "+f, 0o644)
	}
	got, err := licenseFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"COPYING", "LICENSE", "LICENSE-APACHE", "LICENSE.docs", "NOTICE.txt", "PATENTS", "internal/casing/LICENSE.md", "third_party/forked/golang/LICENSE"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("licenseFiles = %q\nwant %q", got, want)
	}
}

// goModule returns the version and module cache directory of a module
// this module requires (offline: building this package put it there).
func goModule(t *testing.T, path string) (version, dir string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", path).Output()
	if err != nil {
		t.Skipf("go list -m %s: %v", path, err)
	}
	var m struct{ Version, Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go list -m %s: %s (%v)", path, out, err)
	}
	return m.Version, m.Dir
}

func TestCollectLicenseTexts(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	yamlVersion, yamlDir := goModule(t, "sigs.k8s.io/yaml")
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	goroot := strings.TrimSpace(string(out))

	t.Run("a module's files come from the module cache and std's from GOROOT", func(t *testing.T) {
		bom := parseSBOM(t, sbomJSON(t, "kubectl-dra", "00",
			mod{"std", runtime.Version(), []string{"BSD-3-Clause"}},
			mod{"sigs.k8s.io/yaml", yamlVersion, []string{"MIT"}},
		))
		out := filepath.Join(t.TempDir(), ThirdPartyLicensesDir)
		texts, err := CollectLicenseTexts(bom, out, "go")
		if err != nil {
			t.Fatal(err)
		}
		for dst, src := range map[string]string{
			"sigs.k8s.io/yaml/LICENSE": filepath.Join(yamlDir, "LICENSE"),
			"std/LICENSE":              filepath.Join(goroot, "LICENSE"),
			"std/PATENTS":              filepath.Join(goroot, "PATENTS"),
		} {
			if got, want := mustSHA256(t, filepath.Join(out, dst)), mustSHA256(t, src); got != want {
				t.Errorf("%s is not %s", dst, src)
			}
		}
		if texts.Modules != 2 || texts.Files < 3 {
			t.Errorf("CollectLicenseTexts = %+v, want 2 modules and at least 3 files", texts)
		}
		if _, err := os.Stat(filepath.Join(out, "sigs.k8s.io/yaml", SourceNoteFile)); !os.IsNotExist(err) {
			t.Errorf("a permissive module got a %s note (%v)", SourceNoteFile, err)
		}
	})

	t.Run("a file-level copyleft module gets a note naming its source", func(t *testing.T) {
		bom := parseSBOM(t, sbomJSON(t, "kubectl-dra", "00", mod{"sigs.k8s.io/yaml", yamlVersion, []string{"MPL-2.0"}}))
		out := t.TempDir()
		if _, err := CollectLicenseTexts(bom, out, "go"); err != nil {
			t.Fatal(err)
		}
		note, err := os.ReadFile(filepath.Join(out, "sigs.k8s.io/yaml", SourceNoteFile))
		if err != nil {
			t.Fatal(err)
		}
		if want := "go mod download sigs.k8s.io/yaml@" + yamlVersion; !strings.Contains(string(note), want) || !strings.Contains(string(note), "MPL-2.0") {
			t.Errorf("%s note %q, want it to name the license and say %q", SourceNoteFile, note, want)
		}
	})

	t.Run("std of another toolchain than the go command's is refused", func(t *testing.T) {
		bom := parseSBOM(t, sbomJSON(t, "kubectl-dra", "00", mod{"std", "go1.21.0", []string{"BSD-3-Clause"}}))
		_, err := CollectLicenseTexts(bom, t.TempDir(), "go")
		if err == nil || !strings.Contains(err.Error(), "module std@go1.21.0: the go command is "+runtime.Version()) {
			t.Errorf("CollectLicenseTexts = %v, want std's version mismatch named", err)
		}
	})
}

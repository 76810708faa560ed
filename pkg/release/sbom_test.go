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
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheSBOMOfARealBuildPassesThePolicy builds kubectl-dra (the build
// cache has its packages after make build: only the link is new), then
// does what make release does for it: the SBOM with CycloneDXGomod (go run
// through the module proxy), the policy's corrections and check, and the
// license texts from the module cache. ~20 s with warm caches; -short
// skips it.
func TestTheSBOMOfARealBuildPassesThePolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds kubectl-dra and runs the SBOM generator")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kubectl-dra")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/kubectl-dra")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build kubectl-dra: %v\n%s", err, out)
	}
	sbom := filepath.Join(dir, "kubectl-dra.cdx.json")
	var log bytes.Buffer
	if err := GenerateSBOM("go", bin, testVersion, sbom, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	bom, err := ReadSBOM(sbom)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConcludeLicenses(bom); err != nil {
		t.Fatal(err)
	}
	if err := CheckLicenses(bom); err != nil {
		t.Fatalf("the policy refuses kubectl-dra's modules: %v\ngenerator's log:\n%s", err, log.String())
	}

	// The SBOM is the binary's: its hash, its name, and the modules its
	// build information records (go version -m), the standard library too.
	if got, want := bom.Metadata.BinarySHA256(), mustSHA256(t, bin); got != want {
		t.Errorf("the SBOM describes a binary of sha256 %s, want %s", got, want)
	}
	if got := bom.Metadata.BinaryName(); got != "kubectl-dra" {
		t.Errorf("the SBOM describes binary %q, want kubectl-dra", got)
	}
	var stderr bytes.Buffer
	version := exec.Command("go", "version", "-m", bin)
	version.Stderr = &stderr
	modules, err := version.Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v\n%s", bin, err, stderr.String())
	}
	deps := map[string]string{}
	for _, line := range strings.Split(string(modules), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "dep" {
			deps[f[1]] = f[2]
		}
	}
	listed := map[string]string{}
	for _, c := range bom.Components {
		listed[c.Name] = c.Version
	}
	for mod, version := range deps {
		if listed[mod] != version {
			t.Errorf("the binary links %s %s, the SBOM lists version %q", mod, version, listed[mod])
		}
	}
	if len(bom.Components) != len(deps)+1 || listed["std"] == "" {
		t.Errorf("the SBOM lists %d components, want the binary's %d modules and std", len(bom.Components), len(deps))
	}

	out := filepath.Join(dir, ThirdPartyLicensesDir)
	texts, err := CollectLicenseTexts(bom, out, "go")
	if err != nil {
		t.Fatal(err)
	}
	if texts.Modules != len(bom.Components) {
		t.Errorf("license texts of %d modules, want all %d", texts.Modules, len(bom.Components))
	}
	for _, c := range bom.Components {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(c.Name))); err != nil {
			t.Errorf("no license texts for %s: %v", c.Ref(), err)
		}
	}
	t.Logf("%d components, licenses %s; %d license files", len(bom.Components), LicenseTally(bom), texts.Files)
}

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
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mod is a component of a fixture SBOM: a module, its version and its
// license entries as CycloneDX writes them (an SPDX id, "expr:" and an
// expression, or "name:" and a license name; none for no license).
type mod struct {
	name, version string
	licenses      []string
}

// sbomJSON returns a CycloneDX document in the shape cyclonedx-gomod's bin
// mode writes, for a binary named binary with SHA-256 sum and modules
// mods, with fields the policy does not read (hashes, purl, dependencies)
// that writing it back must keep.
func sbomJSON(t *testing.T, binary, sum string, mods ...mod) []byte {
	t.Helper()
	var components []map[string]any
	for _, m := range mods {
		c := map[string]any{
			"bom-ref": "pkg:golang/" + m.name + "@" + m.version + "?type=module",
			"type":    "library",
			"name":    m.name,
			"version": m.version,
			"scope":   "required",
			"hashes":  []map[string]string{{"alg": "SHA-256", "content": strings.Repeat("ab", 32)}},
			"purl":    "pkg:golang/" + m.name + "@" + m.version + "?goarch=amd64&goos=linux&type=module",
		}
		var licenses []map[string]any
		for _, l := range m.licenses {
			switch {
			case strings.HasPrefix(l, "expr:"):
				licenses = append(licenses, map[string]any{"expression": strings.TrimPrefix(l, "expr:")})
			case strings.HasPrefix(l, "name:"):
				licenses = append(licenses, map[string]any{"license": map[string]string{"name": strings.TrimPrefix(l, "name:")}})
			default:
				licenses = append(licenses, map[string]any{"license": map[string]string{"id": l}})
			}
		}
		if licenses != nil {
			c["licenses"] = licenses
		}
		components = append(components, c)
	}
	doc := map[string]any{
		"$schema":     "http://cyclonedx.org/schema/bom-1.6.schema.json",
		"bomFormat":   "CycloneDX",
		"specVersion": "1.6",
		"version":     1,
		"metadata": map[string]any{
			"component": map[string]any{"type": "application", "name": "github.com/dra-scheduler/dra-scheduler", "version": testVersion},
			"properties": []map[string]string{
				{"name": "cdx:gomod:binary:name", "value": binary},
				{"name": "cdx:gomod:binary:hash:SHA-256", "value": sum},
			},
		},
		"components":   components,
		"dependencies": []map[string]any{{"ref": "pkg:golang/github.com/dra-scheduler/dra-scheduler", "dependsOn": []string{}}},
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseSBOM(t *testing.T, data []byte) *SBOM {
	t.Helper()
	bom, err := ParseSBOM(data)
	if err != nil {
		t.Fatal(err)
	}
	return bom
}

func TestClassifyLicense(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   string
		want LicenseClass
	}{
		{"Apache-2.0 is permissive", "Apache-2.0", Permissive},
		{"identifiers compare without case", "mit", Permissive},
		{"BSD-3-Clause is permissive", "BSD-3-Clause", Permissive},
		{"CC0-1.0 is permissive", "CC0-1.0", Permissive},
		{"MPL-2.0 is file-level copyleft", "MPL-2.0", FileCopyleft},
		{"GPL-3.0-only is copyleft", "GPL-3.0-only", Copyleft},
		{"the deprecated GPL-2.0 is copyleft", "GPL-2.0", Copyleft},
		{"LGPL-2.1-or-later is copyleft", "LGPL-2.1-or-later", Copyleft},
		{"AGPL-3.0-only is copyleft", "AGPL-3.0-only", Copyleft},
		{"SSPL-1.0 is copyleft", "SSPL-1.0", Copyleft},
		{"a share-alike documentation license is copyleft", "CC-BY-SA-4.0", Copyleft},
		{"BSD-Source-Code is not on the policy", "BSD-Source-Code", UnknownLicense},
		{"a license name is not an identifier", "Some Company License", UnknownLicense},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClassifyLicense(tc.id); got != tc.want {
				t.Errorf("ClassifyLicense(%q) = %v, want %v", tc.id, got, tc.want)
			}
		})
	}
}

func TestCheckLicenses(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  mod
		// wantErr is empty when the policy allows the module, else what
		// its error must say (after the module@version it always names).
		wantErr string
	}{
		{"an Apache-2.0 module is allowed", mod{"k8s.io/api", "v0.37.2", []string{"Apache-2.0"}}, ""},
		{"an MPL-2.0 module is allowed", mod{"github.com/cyphar/filepath-securejoin", "v0.7.0", []string{"MPL-2.0"}}, ""},
		{"a GPL module is refused", mod{"example.com/gpl", "v1.0.0", []string{"GPL-3.0-only"}}, `license "GPL-3.0-only" is not allowed in shipped binaries (GPL-3.0-only is copyleft`},
		{"an LGPL module is refused", mod{"example.com/lgpl", "v1.0.0", []string{"LGPL-2.1-only"}}, "LGPL-2.1-only is copyleft"},
		{"an AGPL module is refused", mod{"example.com/agpl", "v0.1.0", []string{"AGPL-3.0-or-later"}}, "AGPL-3.0-or-later is copyleft"},
		{"an unknown license is refused", mod{"example.com/odd", "v0.0.1", []string{"Beerware"}}, "Beerware is unknown"},
		{"a license known only by name is refused", mod{"example.com/named", "v2.0.0", []string{"name:Proprietary"}}, "Proprietary is unknown"},
		{"a module without a license is refused", mod{"example.com/none", "v1.2.3", nil}, "no license detected"},
		{"two licenses must both be allowed", mod{"example.com/two", "v1.0.0", []string{"MIT", "GPL-2.0-only"}}, "GPL-2.0-only is copyleft"},
		{"an OR picks the allowed branch", mod{"example.com/dual", "v1.0.0", []string{"expr:GPL-2.0-only OR MIT"}}, ""},
		{"an AND needs every part allowed", mod{"example.com/both", "v1.0.0", []string{"expr:MIT AND (SSPL-1.0 OR AGPL-3.0-only)"}}, "SSPL-1.0 is copyleft, AGPL-3.0-only is copyleft"},
		{"an exception does not make GPL allowed", mod{"example.com/cp", "v1.0.0", []string{"expr:GPL-2.0-only WITH Classpath-exception-2.0"}}, "GPL-2.0-only is copyleft"},
		{"an exception to Apache-2.0 keeps it allowed", mod{"example.com/llvm", "v1.0.0", []string{"expr:Apache-2.0 WITH LLVM-exception"}}, ""},
		{"a malformed expression is an unknown license", mod{"example.com/broken", "v1.0.0", []string{"expr:(MIT OR"}}, "(unknown license)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bom := parseSBOM(t, sbomJSON(t, "kubectl-dra", "00", mod{"std", "go1.26.8", []string{"BSD-3-Clause"}}, tc.mod))
			err := CheckLicenses(bom)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckLicenses = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckLicenses = nil, want an error containing %q", tc.wantErr)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "module "+tc.mod.name+"@"+tc.mod.version+": ") || !strings.Contains(msg, tc.wantErr) {
				t.Errorf("CheckLicenses = %q\nwant it to name module %s@%s and say %q", msg, tc.mod.name, tc.mod.version, tc.wantErr)
			}
		})
	}
}

func TestCheckLicensesNamesEveryRefusedModule(t *testing.T) {
	bom := parseSBOM(t, sbomJSON(t, "dra-scheduler", "00",
		mod{"example.com/a", "v1.0.0", []string{"GPL-3.0-only"}},
		mod{"k8s.io/api", "v0.37.2", []string{"Apache-2.0"}},
		mod{"example.com/b", "v2.0.0", nil},
	))
	err := CheckLicenses(bom)
	if err == nil {
		t.Fatal("CheckLicenses = nil, want two refused modules")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "module example.com/a@v1.0.0:") || !strings.HasPrefix(lines[1], "module example.com/b@v2.0.0:") {
		t.Errorf("CheckLicenses = %q, want one line for each of example.com/a and example.com/b", err)
	}
}

func TestEveryCorrectionConcludesAnAllowedLicense(t *testing.T) {
	for _, c := range licenseCorrections() {
		if !ClassifyLicense(c.license).Allowed() {
			t.Errorf("the correction of %s concludes %s, which the policy refuses", c.module, c.license)
		}
		if c.why == "" {
			t.Errorf("the correction of %s does not say why", c.module)
		}
	}
}

func TestConcludeLicenses(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  mod
		want []string // the licenses after ConcludeLicenses
		// corrected says whether the policy's correction applies.
		corrected bool
	}{
		{"go-digest's documentation license gives way to its code's", mod{"github.com/opencontainers/go-digest", "v1.0.0", []string{"CC-BY-SA-4.0"}}, []string{"Apache-2.0"}, true},
		{"the standard library gets the Go distribution's license", mod{"std", "go1.26.8", nil}, []string{"BSD-3-Clause"}, true},
		{"a golang.org/x module's BSD text is BSD-3-Clause", mod{"golang.org/x/net", "v0.62.0", []string{"BSD-Source-Code"}}, []string{"BSD-3-Clause"}, true},
		{"go-spew's ISC text read as 0BSD is ISC", mod{"github.com/davecgh/go-spew", "v1.1.1", []string{"0BSD"}}, []string{"ISC"}, true},
		{"a correction needs the detection it was written for", mod{"github.com/opencontainers/go-digest", "v1.1.0", []string{"GPL-3.0-only"}}, []string{"GPL-3.0-only"}, false},
		{"a prefix correction does not reach a longer path outside it", mod{"golang.org/xyz", "v1.0.0", []string{"BSD-Source-Code"}}, []string{"BSD-Source-Code"}, false},
		{"an exact correction does not reach another module under its path", mod{"github.com/opencontainers/go-digest/v2", "v2.0.0", []string{"CC-BY-SA-4.0"}}, []string{"CC-BY-SA-4.0"}, false},
		{"a module without a license stays without one", mod{"example.com/none", "v1.0.0", nil}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.cdx.json")
			if err := os.WriteFile(path, sbomJSON(t, "kubectl-dra", "00", tc.mod, mod{"k8s.io/api", "v0.37.2", []string{"Apache-2.0"}}), 0o644); err != nil {
				t.Fatal(err)
			}
			bom, err := ReadSBOM(path)
			if err != nil {
				t.Fatal(err)
			}
			changed, err := ConcludeLicenses(bom)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(changed) == 1; got != tc.corrected {
				t.Errorf("ConcludeLicenses corrected %v, want a correction: %v", changed, tc.corrected)
			}
			if err := WriteSBOM(path, bom); err != nil {
				t.Fatal(err)
			}
			// What was written, read again as plain JSON.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Components []struct {
					Name     string `json:"name"`
					PURL     string `json:"purl"`
					Hashes   []any  `json:"hashes"`
					Licenses []struct {
						License struct{ ID, Acknowledgement string }
					} `json:"licenses"`
				} `json:"components"`
				Dependencies []any `json:"dependencies"`
				SpecVersion  string
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Components) != 2 || doc.SpecVersion != "1.6" || len(doc.Dependencies) != 1 {
				t.Fatalf("the written SBOM lost fields:\n%s", data)
			}
			c := doc.Components[0]
			var got []string
			for _, l := range c.Licenses {
				got = append(got, l.License.ID)
				if tc.corrected && l.License.Acknowledgement != "concluded" {
					t.Errorf("a corrected license is acknowledged %q, want concluded", l.License.Acknowledgement)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("licenses %v, want %v", got, tc.want)
			}
			if !strings.Contains(c.PURL, "&goos=linux") || len(c.Hashes) != 1 {
				t.Errorf("the written component lost its purl or hashes: %+v", c)
			}
			if other := doc.Components[1].Licenses; len(other) != 1 || other[0].License.ID != "Apache-2.0" || other[0].License.Acknowledgement != "" {
				t.Errorf("an uncorrected component changed: %+v", other)
			}
		})
	}
}

func TestParseSBOMRefusesWhatIsNotCycloneDX(t *testing.T) {
	for _, tc := range []struct {
		name, data, wantErr string
	}{
		{"not JSON", "<bom/>", "not a JSON document"},
		{"another SBOM format", `{"spdxVersion": "SPDX-2.3"}`, "want \"CycloneDX\""},
		{"a component without a version", `{"bomFormat": "CycloneDX", "components": [{"name": "k8s.io/api"}]}`, `components[0] ("k8s.io/api@"): want a name and a version`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseSBOM([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSBOM = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

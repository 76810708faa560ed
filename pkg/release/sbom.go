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
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// CycloneDXGomod is the SBOM generator, run with go run: it is kept out of
// go.mod, as krew's validator is, and pinned here, its one place.
const CycloneDXGomod = "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0"

// GenerateSBOM writes the CycloneDX SBOM (JSON, spec 1.6) of the Go binary
// at binary to out with CycloneDXGomod's bin mode: the modules the binary
// was linked from as its build information records them (go version -m),
// the standard library among them, each with its version and the license
// the generator detects in the module cache (it downloads what is missing
// through the module proxy). version names the main module's version; the
// SBOM has neither timestamp nor serial number, so the same binary gives
// the same SBOM. goCmd is the go command; the generator's messages go to
// log.
func GenerateSBOM(goCmd, binary, version, out string, log io.Writer) error {
	absBinary, err := filepath.Abs(binary)
	if err != nil {
		return fmt.Errorf("sbom of %s: %w", binary, err)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("sbom of %s: %w", binary, err)
	}
	// Outside this module: go run pkg@version builds the generator's own
	// module, and its go mod download must not touch our go.sum.
	work, err := os.MkdirTemp("", "dra-sbom-")
	if err != nil {
		return fmt.Errorf("sbom of %s: %w", binary, err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	cmd := exec.Command(goCmd, "run", CycloneDXGomod, "bin",
		"-json", "-licenses", "-assert-licenses", "-std", "-noserial", "-notimestamp",
		"-version", version, "-output", absOut, absBinary)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOWORK=off", "NO_COLOR=1")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("sbom of %s: %s: %w", binary, CycloneDXGomod, err)
	}
	return nil
}

// SBOM is a CycloneDX JSON document. Components holds what the license
// policy reads; every other field is kept as read, so that writing the
// document back after ConcludeLicenses loses nothing.
type SBOM struct {
	// Components are the document's components: the binary's modules.
	Components []Component
	// Metadata is what the document says about the binary.
	Metadata SBOMMetadata

	doc map[string]json.RawMessage
	// raw holds each component's fields as read.
	raw []map[string]json.RawMessage
}

// Component is one module of an SBOM.
type Component struct {
	Name     string          `json:"name"`
	Version  string          `json:"version"`
	PURL     string          `json:"purl"`
	Licenses []LicenseChoice `json:"licenses"`
}

// LicenseChoice is one entry of a component's licenses: a license, or an
// SPDX expression.
type LicenseChoice struct {
	License    *License `json:"license,omitempty"`
	Expression string   `json:"expression,omitempty"`
}

// License is a license by SPDX identifier, or by name when it has none.
type License struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Acknowledgement is "declared" or "concluded" (CycloneDX 1.6).
	Acknowledgement string `json:"acknowledgement,omitempty"`
}

// SBOMMetadata is the part of an SBOM's metadata a release checks.
type SBOMMetadata struct {
	Component  Component  `json:"component"`
	Properties []Property `json:"properties"`
}

// Property is a name-value pair of CycloneDX metadata.
type Property struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Properties CycloneDXGomod's bin mode records about the binary.
const (
	binaryNameProperty   = "cdx:gomod:binary:name"
	binarySHA256Property = "cdx:gomod:binary:hash:SHA-256"
)

// Ref returns the component as module@version.
func (c Component) Ref() string { return c.Name + "@" + c.Version }

// LicenseTerms returns the component's licenses as SPDX identifiers or
// expressions (a license without an identifier by its name), in order.
func (c Component) LicenseTerms() []string {
	var terms []string
	for _, l := range c.Licenses {
		switch {
		case l.Expression != "":
			terms = append(terms, l.Expression)
		case l.License != nil && l.License.ID != "":
			terms = append(terms, l.License.ID)
		case l.License != nil && l.License.Name != "":
			terms = append(terms, l.License.Name)
		}
	}
	return terms
}

// property returns the value of the metadata property name, or "".
func (m SBOMMetadata) property(name string) string {
	for _, p := range m.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// BinaryName returns the file name of the binary the SBOM describes.
func (m SBOMMetadata) BinaryName() string { return m.property(binaryNameProperty) }

// BinarySHA256 returns the hex SHA-256 of the binary the SBOM describes.
func (m SBOMMetadata) BinarySHA256() string { return m.property(binarySHA256Property) }

// ParseSBOM reads a CycloneDX JSON document.
func ParseSBOM(data []byte) (*SBOM, error) {
	bom := &SBOM{}
	if err := json.Unmarshal(data, &bom.doc); err != nil {
		return nil, fmt.Errorf("not a JSON document: %w", err)
	}
	var format string
	if err := json.Unmarshal(bom.doc["bomFormat"], &format); err != nil || format != "CycloneDX" {
		return nil, fmt.Errorf("bomFormat %s, want \"CycloneDX\"", bom.doc["bomFormat"])
	}
	if m, ok := bom.doc["metadata"]; ok {
		if err := json.Unmarshal(m, &bom.Metadata); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
	}
	if c, ok := bom.doc["components"]; ok {
		if err := json.Unmarshal(c, &bom.raw); err != nil {
			return nil, fmt.Errorf("components: %w", err)
		}
		if err := json.Unmarshal(c, &bom.Components); err != nil {
			return nil, fmt.Errorf("components: %w", err)
		}
	}
	for i, c := range bom.Components {
		if c.Name == "" || c.Version == "" {
			return nil, fmt.Errorf("components[%d] (%q): want a name and a version", i, c.Ref())
		}
	}
	return bom, nil
}

// ReadSBOM reads the CycloneDX JSON document at path.
func ReadSBOM(path string) (*SBOM, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sbom: %w", err)
	}
	bom, err := ParseSBOM(data)
	if err != nil {
		return nil, fmt.Errorf("sbom %s: %w", path, err)
	}
	return bom, nil
}

// setLicenses replaces component i's licenses, in Components and in the
// document.
func (bom *SBOM) setLicenses(i int, licenses []LicenseChoice) error {
	data, err := json.Marshal(licenses)
	if err != nil {
		return fmt.Errorf("sbom: component %s: %w", bom.Components[i].Ref(), err)
	}
	bom.Components[i].Licenses = licenses
	bom.raw[i]["licenses"] = data
	components, err := json.Marshal(bom.raw)
	if err != nil {
		return fmt.Errorf("sbom: %w", err)
	}
	bom.doc["components"] = components
	return nil
}

// Marshal returns the document as indented JSON.
func (bom *SBOM) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(bom.doc); err != nil {
		return nil, fmt.Errorf("sbom: %w", err)
	}
	return b.Bytes(), nil
}

// WriteSBOM writes bom to path.
func WriteSBOM(path string, bom *SBOM) error {
	data, err := bom.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("sbom: %w", err)
	}
	return nil
}

// LicenseTally counts bom's components by license term, e.g.
// "Apache-2.0: 96, MIT: 20", most common first ("none" for a component
// without a license).
func LicenseTally(bom *SBOM) string {
	counts := map[string]int{}
	for _, c := range bom.Components {
		terms := c.LicenseTerms()
		if len(terms) == 0 {
			terms = []string{"none"}
		}
		counts[strings.Join(terms, " AND ")]++
	}
	keys := sortedKeys(counts)
	sort.SliceStable(keys, func(i, j int) bool { return counts[keys[i]] > counts[keys[j]] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

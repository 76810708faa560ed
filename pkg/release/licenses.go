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
	"errors"
	"fmt"
	"strings"
)

// The license policy of shipped binaries: which licenses a linked module
// may carry, and the detections a person has corrected. It is the one
// place the policy lives (docs/release.md explains it); CheckLicenses
// applies it to an SBOM, and make release and make verify-release fail on
// what it refuses.

// LicenseClass is how the policy treats a license.
type LicenseClass int

const (
	// UnknownLicense is a license the policy does not list (or none at
	// all): refused until a person reads it and adds it here.
	UnknownLicense LicenseClass = iota
	// Permissive licenses ask for their text (and, for Apache-2.0, the
	// module's NOTICE) to ship with the binary, which third_party_licenses/
	// does: allowed.
	Permissive
	// FileCopyleft licenses (MPL-2.0) keep their own files under the
	// license but not the program linking them: allowed for a module
	// linked unmodified, whose source the SBOM names (module and version)
	// and whose license text and a SOURCE note ship in
	// third_party_licenses/.
	FileCopyleft
	// Copyleft licenses (GPL, LGPL, AGPL, SSPL, ...) would extend to the
	// whole statically linked binary, or (LGPL) require letting users
	// relink it, which a static Go binary does not allow: refused.
	Copyleft
)

// String names the class as the policy's errors say it.
func (c LicenseClass) String() string {
	switch c {
	case Permissive:
		return "permissive"
	case FileCopyleft:
		return "file-level copyleft"
	case Copyleft:
		return "copyleft"
	default:
		return "unknown"
	}
}

// Allowed reports whether a shipped binary may link a module under a
// license of class c.
func (c LicenseClass) Allowed() bool { return c == Permissive || c == FileCopyleft }

// ClassifyLicense returns the class of an SPDX license identifier
// (https://spdx.org/licenses/), compared case-insensitively.
func ClassifyLicense(id string) LicenseClass {
	switch strings.ToUpper(strings.TrimSpace(id)) {
	case "APACHE-2.0", "MIT", "BSD-2-CLAUSE", "BSD-3-CLAUSE", "ISC", "0BSD", "UNLICENSE", "CC0-1.0":
		return Permissive
	case "MPL-2.0":
		return FileCopyleft
	}
	upper := strings.ToUpper(id)
	for _, prefix := range []string{"GPL-", "LGPL-", "AGPL-", "SSPL-", "EUPL-", "OSL-", "CPAL-", "CC-BY-SA-", "CC-BY-NC"} {
		if strings.HasPrefix(upper, prefix) {
			return Copyleft
		}
	}
	return UnknownLicense
}

// A licenseCorrection replaces what the SBOM generator detected for a
// module by the license its files grant, after a person read them.
type licenseCorrection struct {
	// module is a module path, or a prefix of module paths when it ends
	// in "/".
	module string
	// detected is the generator's finding it corrects, exactly ("" for
	// none): if the module's files change and the detection with them,
	// the correction no longer applies and the policy looks again.
	detected string
	// license is the SPDX identifier the files grant.
	license string
	// why says what a person found.
	why string
}

// licenseCorrections returns the reviewed corrections (a function, not a
// variable, so that nothing can change the policy at run time).
func licenseCorrections() []licenseCorrection {
	return []licenseCorrection{
		{
			module: "std", detected: "", license: "BSD-3-Clause",
			why: "Go's standard library is under the Go distribution's LICENSE (GOROOT/LICENSE, BSD-3-Clause, with PATENTS); the generator does not read GOROOT",
		},
		{
			module: "golang.org/x/", detected: "BSD-Source-Code", license: "BSD-3-Clause",
			why: "golang.org/x modules carry the Go distribution's LICENSE text (BSD-3-Clause, as pkg.go.dev says), which the detector names BSD-Source-Code",
		},
		{
			module: "github.com/opencontainers/go-digest", detected: "CC-BY-SA-4.0", license: "Apache-2.0",
			why: "its code is under LICENSE (Apache-2.0); LICENSE.docs (CC-BY-SA-4.0), which the detector picked, covers its documentation, which no binary links",
		},
		{
			module: "github.com/davecgh/go-spew", detected: "0BSD", license: "ISC",
			why: "its LICENSE is the ISC license (with its notice requirement), which the detector reads as 0BSD",
		},
	}
}

// matches reports whether c applies to module whose detected licenses are
// detected.
func (c licenseCorrection) matches(module string, detected []string) bool {
	if strings.HasSuffix(c.module, "/") {
		if !strings.HasPrefix(module, c.module) {
			return false
		}
	} else if module != c.module {
		return false
	}
	if c.detected == "" {
		return len(detected) == 0
	}
	return len(detected) == 1 && detected[0] == c.detected
}

// ConcludeLicenses applies the reviewed corrections to the components of
// bom: a corrected component's licenses become the one its files grant,
// marked "concluded" (CycloneDX 1.6). It returns the modules it corrected,
// as module@version: license (was: detected).
func ConcludeLicenses(bom *SBOM) ([]string, error) {
	var changed []string
	corrections := licenseCorrections()
	for i, c := range bom.Components {
		detected := c.LicenseTerms()
		for _, fix := range corrections {
			if !fix.matches(c.Name, detected) {
				continue
			}
			if err := bom.setLicenses(i, []LicenseChoice{{License: &License{ID: fix.license, Acknowledgement: "concluded"}}}); err != nil {
				return changed, err
			}
			was := strings.Join(detected, ", ")
			if was == "" {
				was = "none detected"
			}
			changed = append(changed, fmt.Sprintf("%s: %s (was: %s)", c.Ref(), fix.license, was))
			break
		}
	}
	return changed, nil
}

// CheckLicenses applies the policy to every component of bom: each must
// have a license, and every license must be allowed (an SPDX expression
// is allowed when its OR picks an allowed branch and all its ANDs are
// allowed). It returns one error per refused module, joined, each naming
// the module, its version and its license.
func CheckLicenses(bom *SBOM) error {
	var errs []error
	for _, c := range bom.Components {
		terms := c.LicenseTerms()
		if len(terms) == 0 {
			errs = append(errs, fmt.Errorf("module %s: no license detected; read its license files and add a correction to the policy (pkg/release/licenses.go) if it is allowed", c.Ref()))
			continue
		}
		for _, term := range terms {
			if err := checkLicenseTerm(term); err != nil {
				errs = append(errs, fmt.Errorf("module %s: %w", c.Ref(), err))
			}
		}
	}
	return errors.Join(errs...)
}

// checkLicenseTerm checks one license identifier or SPDX expression.
func checkLicenseTerm(term string) error {
	expr, err := parseLicenseExpression(term)
	if err != nil {
		return fmt.Errorf("license %q: %w (unknown license)", term, err)
	}
	if bad := expr.refused(); len(bad) > 0 {
		var parts []string
		for _, id := range bad {
			parts = append(parts, fmt.Sprintf("%s is %s", id, ClassifyLicense(id)))
		}
		return fmt.Errorf("license %q is not allowed in shipped binaries (%s; policy: pkg/release/licenses.go)", term, strings.Join(parts, ", "))
	}
	return nil
}

// licenseExpr is a parsed SPDX license expression: a license identifier
// (id, with an exception after WITH) or an AND or OR of operands.
type licenseExpr struct {
	id       string
	op       string // "AND", "OR", or "" for an identifier
	operands []licenseExpr
}

// refused returns the identifiers that keep e from being allowed: none if
// it is.
func (e licenseExpr) refused() []string {
	switch e.op {
	case "":
		if ClassifyLicense(e.id).Allowed() {
			return nil
		}
		return []string{e.id}
	case "OR":
		var all []string
		for _, o := range e.operands {
			bad := o.refused()
			if len(bad) == 0 {
				return nil
			}
			all = append(all, bad...)
		}
		return all
	default: // AND
		var all []string
		for _, o := range e.operands {
			all = append(all, o.refused()...)
		}
		return all
	}
}

// parseLicenseExpression parses an SPDX license expression: identifiers,
// "WITH exception", AND (binding tighter), OR and parentheses. An
// exception is kept with its identifier, whose class decides.
func parseLicenseExpression(s string) (licenseExpr, error) {
	p := &exprParser{tokens: strings.Fields(strings.NewReplacer("(", " ( ", ")", " ) ").Replace(s))}
	if len(p.tokens) == 0 {
		return licenseExpr{}, fmt.Errorf("empty license expression")
	}
	e, err := p.or()
	if err != nil {
		return licenseExpr{}, err
	}
	if p.pos != len(p.tokens) {
		return licenseExpr{}, fmt.Errorf("unexpected %q in license expression", p.tokens[p.pos])
	}
	return e, nil
}

type exprParser struct {
	tokens []string
	pos    int
}

func (p *exprParser) peek() string {
	if p.pos < len(p.tokens) {
		return p.tokens[p.pos]
	}
	return ""
}

func (p *exprParser) or() (licenseExpr, error) { return p.binary("OR", p.and) }

func (p *exprParser) and() (licenseExpr, error) { return p.binary("AND", p.operand) }

// binary parses operands joined by op (case-insensitive).
func (p *exprParser) binary(op string, operand func() (licenseExpr, error)) (licenseExpr, error) {
	first, err := operand()
	if err != nil {
		return licenseExpr{}, err
	}
	e := licenseExpr{op: op, operands: []licenseExpr{first}}
	for strings.EqualFold(p.peek(), op) {
		p.pos++
		next, err := operand()
		if err != nil {
			return licenseExpr{}, err
		}
		e.operands = append(e.operands, next)
	}
	if len(e.operands) == 1 {
		return first, nil
	}
	return e, nil
}

func (p *exprParser) operand() (licenseExpr, error) {
	tok := p.peek()
	switch {
	case tok == "":
		return licenseExpr{}, fmt.Errorf("license expression ends early")
	case tok == "(":
		p.pos++
		e, err := p.or()
		if err != nil {
			return licenseExpr{}, err
		}
		if p.peek() != ")" {
			return licenseExpr{}, fmt.Errorf("license expression lacks a closing parenthesis")
		}
		p.pos++
		return e, nil
	case tok == ")" || strings.EqualFold(tok, "AND") || strings.EqualFold(tok, "OR") || strings.EqualFold(tok, "WITH"):
		return licenseExpr{}, fmt.Errorf("unexpected %q in license expression", tok)
	}
	p.pos++
	if strings.EqualFold(p.peek(), "WITH") {
		p.pos++
		if exc := p.peek(); exc == "" || exc == "(" || exc == ")" {
			return licenseExpr{}, fmt.Errorf("WITH lacks its exception")
		}
		p.pos++
	}
	return licenseExpr{id: tok}, nil
}

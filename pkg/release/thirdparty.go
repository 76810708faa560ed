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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Files a release ships next to every binary.
const (
	// LicenseFile and NoticeFile are the repository's own license and
	// notice.
	LicenseFile = "LICENSE"
	NoticeFile  = "NOTICE"
	// ThirdPartyLicensesDir holds the license texts of the modules a
	// binary links: <module path>/<file as in the module>, the Go
	// standard library as std/.
	ThirdPartyLicensesDir = "third_party_licenses"
	// SourceNoteFile is written into a file-level copyleft module's
	// directory of ThirdPartyLicensesDir: where its source is.
	SourceNoteFile = "SOURCE"
)

// licenseFileName matches the files CollectLicenseTexts copies: license,
// notice, patent grant and copyright files, e.g. LICENSE, LICENSE.md,
// LICENSE-APACHE, COPYING, NOTICE.txt, PATENTS.
var licenseFileName = regexp.MustCompile(`(?i)^(licen[cs]e|unlicense|copying|copyright|notice|patents)([._-][a-z0-9._-]*)?$`)

// isLicenseFile reports whether a module's file named name is a license
// text to ship (a .go file, such as license.go, is code).
func isLicenseFile(name string) bool {
	return licenseFileName.MatchString(name) && !strings.HasSuffix(strings.ToLower(name), ".go")
}

// LicenseTexts says what CollectLicenseTexts copied.
type LicenseTexts struct {
	// Modules is the number of components whose texts were copied.
	Modules int
	// Files is the number of files written.
	Files int
}

// CollectLicenseTexts copies the license texts of every component of bom
// into out (ThirdPartyLicensesDir of a release): for a module, every
// license, notice, patent and copyright file anywhere in its tree (a
// module's forked or embedded code keeps its own license in a
// subdirectory), but testdata, from the module cache (go mod download,
// run outside this module); for the standard library, the Go
// distribution's LICENSE and PATENTS from GOROOT, whose version must be
// the SBOM's. A file-level copyleft module (ClassifyLicense) also gets a
// SOURCE note naming its source. A component without any license file is
// an error naming it. goCmd is the go command.
func CollectLicenseTexts(bom *SBOM, out, goCmd string) (LicenseTexts, error) {
	var texts LicenseTexts
	dirs, err := moduleDirs(bom, goCmd)
	if err != nil {
		return texts, err
	}
	var errs []error
	written := map[string]string{} // file -> module that wrote it
	for _, c := range bom.Components {
		src, ok := dirs[c.Ref()]
		if !ok {
			errs = append(errs, fmt.Errorf("module %s: not found in the module cache", c.Ref()))
			continue
		}
		var files []string
		if c.Name == "std" {
			files = []string{"LICENSE", "PATENTS"}
		} else if files, err = licenseFiles(src); err != nil {
			errs = append(errs, fmt.Errorf("module %s: %w", c.Ref(), err))
			continue
		}
		if len(files) == 0 {
			errs = append(errs, fmt.Errorf("module %s: no license file in %s", c.Ref(), src))
			continue
		}
		copyOne := func(rel string, data []byte) error {
			dst := filepath.Join(out, filepath.FromSlash(c.Name), filepath.FromSlash(rel))
			if other, dup := written[dst]; dup {
				return fmt.Errorf("module %s: %s was written for module %s already", c.Ref(), dst, other)
			}
			written[dst] = c.Ref()
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return fmt.Errorf("module %s: %w", c.Ref(), err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return fmt.Errorf("module %s: %w", c.Ref(), err)
			}
			texts.Files++
			return nil
		}
		failed := false
		for _, rel := range files {
			data, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(rel)))
			if err == nil {
				err = copyOne(rel, data)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("module %s: %w", c.Ref(), err))
				failed = true
				break
			}
		}
		if !failed && hasFileCopyleft(c) {
			note := fmt.Sprintf("%s %s is linked unmodified into this binary under %s.\nIts Source Code Form is that module version: go mod download %s\n",
				c.Name, c.Version, strings.Join(c.LicenseTerms(), ", "), c.Ref())
			if err := copyOne(SourceNoteFile, []byte(note)); err != nil {
				errs = append(errs, err)
				failed = true
			}
		}
		if !failed {
			texts.Modules++
		}
	}
	return texts, errors.Join(errs...)
}

// hasFileCopyleft reports whether one of c's licenses is file-level
// copyleft.
func hasFileCopyleft(c Component) bool {
	for _, term := range c.LicenseTerms() {
		for _, id := range strings.FieldsFunc(term, func(r rune) bool { return r == ' ' || r == '(' || r == ')' }) {
			if ClassifyLicense(id) == FileCopyleft {
				return true
			}
		}
	}
	return false
}

// licenseFiles returns the license files of the module tree at root as
// slash-separated paths relative to it, in lexical order, skipping
// testdata directories.
func licenseFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isLicenseFile(d.Name()) {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, err
}

// moduleDirs returns the directory of each component of bom by
// module@version: the module cache's for modules (go mod download -json,
// which downloads what is missing), GOROOT for std.
func moduleDirs(bom *SBOM, goCmd string) (map[string]string, error) {
	dirs := map[string]string{}
	var mods []string
	for _, c := range bom.Components {
		if c.Name != "std" {
			mods = append(mods, c.Ref())
			continue
		}
		out, err := goOutput(goCmd, "", "env", "GOROOT", "GOVERSION")
		if err != nil {
			return nil, fmt.Errorf("module %s: %w", c.Ref(), err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 {
			return nil, fmt.Errorf("module %s: go env GOROOT GOVERSION printed %q", c.Ref(), out)
		}
		goroot, goVersion := lines[0], lines[1]
		// A toolchain's GOVERSION may carry a suffix ("go1.26.8 X:...").
		if goVersion, _, _ = strings.Cut(goVersion, " "); goVersion != c.Version {
			return nil, fmt.Errorf("module %s: the go command is %s, not the binary's toolchain: its license texts are not the binary's", c.Ref(), goVersion)
		}
		dirs[c.Ref()] = goroot
	}
	if len(mods) == 0 {
		return dirs, nil
	}
	// Outside this module, so that go.mod and go.sum stay as they are.
	work, err := os.MkdirTemp("", "dra-licenses-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(work) }()
	out, err := goOutput(goCmd, work, append([]string{"mod", "download", "-json"}, mods...)...)
	// go mod download exits 1 when a module fails, yet reports every
	// module: read the report, then say which failed.
	dec := json.NewDecoder(bytes.NewReader(out))
	var errs []error
	for {
		var m struct {
			Path, Version, Dir, Error string
		}
		if derr := dec.Decode(&m); derr == io.EOF {
			break
		} else if derr != nil {
			return nil, fmt.Errorf("go mod download: %w (%v)", derr, err)
		}
		if m.Error != "" || m.Dir == "" {
			errs = append(errs, fmt.Errorf("module %s@%s: go mod download: %s", m.Path, m.Version, m.Error))
			continue
		}
		dirs[m.Path+"@"+m.Version] = m.Dir
	}
	if len(errs) == 0 && err != nil {
		errs = append(errs, fmt.Errorf("go mod download: %w", err))
	}
	return dirs, errors.Join(errs...)
}

// goOutput runs the go command in dir (the current directory if "") and
// returns its standard output; its standard error is in the error.
func goOutput(goCmd, dir string, args ...string) ([]byte, error) {
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		err = fmt.Errorf("%s %s: %w: %s", goCmd, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, err
}

// licenseTextDir returns where a module's license texts are in a release
// archive: ThirdPartyLicensesDir/<module path>.
func licenseTextDir(module string) string { return path.Join(ThirdPartyLicensesDir, module) }

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
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Verify checks the release directory dir as a user downloading it would:
//
//   - SHA256SUMS lists every artifact of dir, and each listed file exists
//     with that digest;
//   - every name of want (other artifacts the release must hold, e.g.
//     BinaryName's) is there;
//   - plugin's krew manifest (dir/<name>.yaml) describes exactly plugin's
//     platforms, each once, with the GitHub download URL of its archive in
//     dir, the archive's digest as SHA256SUMS lists it, and a bin and files
//     the archive holds (the bin executable), copying every top-level
//     file and directory of the archive;
//   - every binary has its SBOM in dir (SBOMName) describing that very
//     binary (its SHA-256) and passing the license policy
//     (CheckLicenses), and ships with LICENSE, NOTICE and the license
//     texts of every module of its SBOM (ThirdPartyLicensesDir): in its
//     archive, with the SBOM (SBOMEntryName), for the plugin; in its
//     licenses archive (LicensesArchiveName) for a bare binary.
//
// It returns every problem found, joined.
func Verify(dir string, plugin KrewOptions, want []string) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	sumsPath := filepath.Join(dir, ChecksumsFile)
	sums, err := ReadChecksums(sumsPath)
	if err != nil {
		return err
	}
	artifacts, err := Artifacts(dir)
	if err != nil {
		return err
	}
	for _, name := range artifacts {
		if _, ok := sums[name]; !ok {
			fail("%s does not list %s", sumsPath, name)
		}
	}
	for _, name := range sortedKeys(sums) {
		got, err := SHA256File(filepath.Join(dir, name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			fail("%s lists %s, which %s does not hold", sumsPath, name, dir)
		case err != nil:
			errs = append(errs, err)
		case got != sums[name]:
			fail("%s: sha256 %s, but %s lists %s", filepath.Join(dir, name), got, sumsPath, sums[name])
		}
	}
	for _, name := range want {
		if !slices.Contains(artifacts, name) {
			fail("release directory %s lacks %s", dir, name)
			continue
		}
		binSum, err := SHA256File(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		stem := bareBinaryStem(name)
		licenses := filepath.Join(dir, stem+licensesArchiveExt)
		entries, err := ReadArchive(licenses)
		if err != nil {
			errs = append(errs, fmt.Errorf("binary %s: %w", name, err))
			entries = nil
		}
		errs = append(errs, verifyShipped(filepath.Join(dir, stem+SBOMExt), binSum, licenses, entries)...)
	}

	manifestPath := filepath.Join(dir, KrewManifestFile(plugin.Name))
	m, err := ReadKrewManifest(manifestPath)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	if m.APIVersion != KrewAPIVersion || m.Kind != KrewKind {
		fail("%s: %s %s, want %s %s", manifestPath, m.APIVersion, m.Kind, KrewAPIVersion, KrewKind)
	}
	if m.Metadata.Name != plugin.Name {
		fail("%s: plugin %q, want %q", manifestPath, m.Metadata.Name, plugin.Name)
	}
	if m.Spec.Version != plugin.Version {
		fail("%s: version %q, want %q", manifestPath, m.Spec.Version, plugin.Version)
	}
	seen := map[Platform]bool{}
	for i, kp := range m.Spec.Platforms {
		p := Platform{OS: kp.Selector.MatchLabels["os"], Arch: kp.Selector.MatchLabels["arch"]}
		where := fmt.Sprintf("%s: platforms[%d] (%s)", manifestPath, i, p)
		if len(kp.Selector.MatchLabels) != 2 || p.OS == "" || p.Arch == "" {
			fail("%s: selector %v, want matchLabels os and arch only", where, kp.Selector.MatchLabels)
			continue
		}
		if !slices.Contains(plugin.Platforms, p) {
			fail("%s: not a platform of this release (%v)", where, plugin.Platforms)
		}
		if seen[p] {
			fail("%s: listed twice", where)
		}
		seen[p] = true
		name := ArchiveName(plugin.Program, plugin.Version, p)
		if want := DownloadURL(plugin.Repository, plugin.Version, name); kp.URI != want {
			fail("%s: uri %s, want %s", where, kp.URI, want)
		}
		if sum, ok := sums[name]; !ok {
			fail("%s: %s does not list its archive %s", where, sumsPath, name)
		} else if kp.SHA256 != sum {
			fail("%s: sha256 %s, but %s lists %s for %s", where, kp.SHA256, sumsPath, sum, name)
		}
		if want := p.Executable(plugin.Program); kp.Bin != want {
			fail("%s: bin %q, want %q", where, kp.Bin, want)
		}
		entries, err := ReadArchive(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		modes := map[string]os.FileMode{}
		for _, e := range entries {
			modes[e.Name] = e.Mode
		}
		if mode, ok := modes[kp.Bin]; !ok {
			fail("%s: bin %s is not in %s", where, kp.Bin, name)
		} else if mode&0o111 == 0 {
			fail("%s: bin %s is not executable in %s (mode %v)", where, kp.Bin, name, mode)
		}
		binCopied := false
		copied := map[string]bool{}
		for _, f := range kp.Files {
			if _, ok := modes[f.From]; !ok && !holdsDir(entries, f.From) {
				fail("%s: files names %s, which %s does not hold", where, f.From, name)
			}
			copied[f.From] = true
			binCopied = binCopied || (f.From == kp.Bin && f.To == ".")
		}
		if !binCopied {
			fail("%s: files do not copy bin %s to the plugin's directory (from: %s, to: .)", where, kp.Bin, kp.Bin)
		}
		for _, top := range topLevel(entries) {
			if !copied[top] {
				fail("%s: files do not copy %s, which %s holds", where, top, name)
			}
		}

		// The archive's SBOM is the release directory's, and describes
		// the archive's binary.
		sbom := filepath.Join(dir, SBOMName(plugin.Program, plugin.Version, p))
		var binSum, sbomSum string
		for _, e := range entries {
			switch e.Name {
			case kp.Bin:
				binSum = e.SHA256
			case SBOMEntryName(plugin.Program):
				sbomSum = e.SHA256
			}
		}
		if sbomSum == "" {
			fail("%s: %s does not hold the SBOM %s", where, name, SBOMEntryName(plugin.Program))
		} else if got, err := SHA256File(sbom); err == nil && got != sbomSum {
			fail("%s: %s's %s is not %s (sha256 %s, want %s)", where, name, SBOMEntryName(plugin.Program), sbom, sbomSum, got)
		}
		for _, err := range verifyShipped(sbom, binSum, filepath.Join(dir, name), entries) {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
		}
	}
	for _, p := range plugin.Platforms {
		if !seen[p] {
			fail("%s: no platform entry for %s", manifestPath, p)
		}
	}
	return errors.Join(errs...)
}

// holdsDir reports whether entries hold a file under the directory dir.
func holdsDir(entries []ArchiveEntry, dir string) bool {
	for _, e := range entries {
		if strings.HasPrefix(e.Name, dir+"/") {
			return true
		}
	}
	return false
}

// verifyShipped checks what ships with one binary whose SHA-256 is binSum:
// its SBOM at sbomPath describes it and passes the license policy, and
// the archive at archive, whose entries are given, holds LICENSE, NOTICE
// and a directory of license texts for every module of the SBOM.
func verifyShipped(sbomPath, binSum, archive string, entries []ArchiveEntry) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name] = true
	}
	if entries != nil {
		for _, f := range []string{LicenseFile, NoticeFile} {
			if !names[f] {
				fail("%s does not hold %s", archive, f)
			}
		}
	}
	bom, err := ReadSBOM(sbomPath)
	if err != nil {
		return append(errs, err)
	}
	if got := bom.Metadata.BinarySHA256(); got != binSum {
		fail("%s describes a binary of sha256 %q, not the released one (%s)", sbomPath, got, binSum)
	}
	if len(bom.Components) == 0 {
		fail("%s lists no modules", sbomPath)
	}
	if err := CheckLicenses(bom); err != nil {
		fail("%s: %w", sbomPath, err)
	}
	if entries == nil {
		return errs
	}
	var missing []string
	for _, c := range bom.Components {
		if !holdsDir(entries, licenseTextDir(c.Name)) {
			missing = append(missing, c.Ref())
		}
	}
	if len(missing) > 0 {
		fail("%s lacks the license texts (%s/<module>/) of %d modules of %s: %s", archive, ThirdPartyLicensesDir, len(missing), sbomPath, strings.Join(missing, ", "))
	}
	return errs
}

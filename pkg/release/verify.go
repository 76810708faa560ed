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
//     the archive holds (the bin executable).
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
		}
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
		for _, f := range kp.Files {
			if _, ok := modes[f.From]; !ok {
				fail("%s: files names %s, which %s does not hold", where, f.From, name)
			}
			binCopied = binCopied || (f.From == kp.Bin && f.To == ".")
		}
		if !binCopied {
			fail("%s: files do not copy bin %s to the plugin's directory (from: %s, to: .)", where, kp.Bin, kp.Bin)
		}
	}
	for _, p := range plugin.Platforms {
		if !seen[p] {
			fail("%s: no platform entry for %s", manifestPath, p)
		}
	}
	return errors.Join(errs...)
}

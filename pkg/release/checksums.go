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
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ChecksumsFile is the name of a release's checksum file, in the format
// of sha256sum(1): `sha256sum -c SHA256SUMS` checks a download.
const ChecksumsFile = "SHA256SUMS"

// Artifacts returns the names of the files a release directory holds, in
// lexical order, without ChecksumsFile. A release directory is flat: a
// subdirectory, or anything but a regular file, is an error.
func Artifacts(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("release directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() == ChecksumsFile {
			continue
		}
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("release directory %s: %s is not a regular file (a release directory is flat)", dir, e.Name())
		}
		names = append(names, e.Name())
	}
	return names, nil // os.ReadDir sorts by name
}

// WriteChecksums writes dir/SHA256SUMS with the SHA-256 of every artifact
// of dir (Artifacts) and returns them by name.
func WriteChecksums(dir string) (map[string]string, error) {
	names, err := Artifacts(dir)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("release directory %s: no artifacts to checksum", dir)
	}
	sums := make(map[string]string, len(names))
	var b strings.Builder
	for _, name := range names {
		sum, err := SHA256File(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		sums[name] = sum
		fmt.Fprintf(&b, "%s  %s\n", sum, name)
	}
	path := filepath.Join(dir, ChecksumsFile)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return nil, fmt.Errorf("checksums: %w", err)
	}
	return sums, nil
}

// checksumLine is one line of sha256sum's output: the hex digest, two
// spaces (text mode) or a space and a star (binary mode), the file name.
var checksumLine = regexp.MustCompile(`^([0-9a-f]{64}) [ *](.+)$`)

// ReadChecksums reads a SHA256SUMS file into digests by file name.
func ReadChecksums(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checksums: %w", err)
	}
	defer func() { _ = f.Close() }()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		m := checksumLine.FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("checksums %s:%d: %q is not \"<sha256>  <file>\"", path, n, sc.Text())
		}
		if _, dup := sums[m[2]]; dup {
			return nil, fmt.Errorf("checksums %s:%d: %s listed twice", path, n, m[2])
		}
		sums[m[2]] = m[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("checksums %s: %w", path, err)
	}
	return sums, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

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
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeFile writes data to dir/name with mode and returns the path.
func writeFile(t *testing.T, dir, name, data string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

// contents reads every regular file of the archive at path by name.
func contents(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = zr.Close() }()
		for _, f := range zr.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			_ = r.Close()
			if err != nil {
				t.Fatal(err)
			}
			out[f.Name] = string(b)
		}
		return out
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[hdr.Name] = string(b)
	}
}

func TestWriteArchive(t *testing.T) {
	src := t.TempDir()
	bin := writeFile(t, src, "kubectl-dra", "#!/bin/sh\necho fake\n", 0o700)
	license := writeFile(t, src, "LICENSE", "terms\n", 0o600)
	files := []File{{Name: "kubectl-dra", Path: bin}, {Name: "LICENSE", Path: license}}
	mtime := time.Unix(1700000000, 0)
	for _, tc := range []struct {
		name    string
		archive string
	}{
		{"a tar.gz holds the files in order, the binary executable", "a.tar.gz"},
		{"a zip holds the files in order, the binary executable", "a.zip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.archive)
			if err := WriteArchive(path, files, mtime); err != nil {
				t.Fatal(err)
			}
			entries, err := ReadArchive(path)
			if err != nil {
				t.Fatal(err)
			}
			want := []ArchiveEntry{
				{Name: "kubectl-dra", Mode: 0o755, SHA256: mustSHA256(t, bin)},
				{Name: "LICENSE", Mode: 0o644, SHA256: mustSHA256(t, license)},
			}
			if !reflect.DeepEqual(entries, want) {
				t.Errorf("entries %v, want %v", entries, want)
			}
			if got, want := contents(t, path), map[string]string{"kubectl-dra": "#!/bin/sh\necho fake\n", "LICENSE": "terms\n"}; !reflect.DeepEqual(got, want) {
				t.Errorf("contents %q, want %q", got, want)
			}
			again := filepath.Join(dir, "again-"+tc.archive)
			if err := WriteArchive(again, files, mtime); err != nil {
				t.Fatal(err)
			}
			if a, b := mustSHA256(t, path), mustSHA256(t, again); a != b {
				t.Errorf("the same files gave two archives (sha256 %s and %s): not reproducible", a, b)
			}
		})
	}
}

func TestWriteArchiveRefuses(t *testing.T) {
	src := t.TempDir()
	bin := writeFile(t, src, "kubectl-dra", "x", 0o755)
	for _, tc := range []struct {
		name    string
		archive string
		files   []File
		wantErr string
	}{
		{"an unknown archive format", "a.rar", []File{{"kubectl-dra", bin}}, "want a .zip or .tar.gz name"},
		{"an archive of nothing", "a.zip", nil, "no files"},
		{"a missing file, naming it", "a.tar.gz", []File{{"kubectl-dra", filepath.Join(src, "nope")}}, filepath.Join(src, "nope")},
		{"an entry escaping the archive", "a.tar.gz", []File{{"../kubectl-dra", bin}}, "want a clean relative path"},
		{"a directory", "a.zip", []File{{"dir", src}}, "is not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.archive)
			err := WriteArchive(path, tc.files, time.Unix(0, 0))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("WriteArchive = %v, want an error containing %q", err, tc.wantErr)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("a failed WriteArchive left %s behind", path)
			}
		})
	}
}

func mustSHA256(t *testing.T, path string) string {
	t.Helper()
	sum, err := SHA256File(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestChecksums(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "b.tar.gz", "bee", 0o644)
	writeFile(t, dir, "a.zip", "ay", 0o644)
	sums, err := WriteChecksums(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%x  a.zip\n%x  b.tar.gz\n", sha256.Sum256([]byte("ay")), sha256.Sum256([]byte("bee")))
	if string(data) != want {
		t.Errorf("SHA256SUMS is\n%s\nwant sha256sum's format, sorted by name:\n%s", data, want)
	}
	read, err := ReadChecksums(filepath.Join(dir, ChecksumsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, sums) {
		t.Errorf("read back %v, wrote %v", read, sums)
	}
	if _, err := WriteChecksums(dir); err != nil {
		t.Errorf("writing SHA256SUMS again (it is not an artifact of its own): %v", err)
	}

	for _, tc := range []struct {
		name, content, wantErr string
	}{
		{"a line without two spaces is refused", strings.Repeat("a", 64) + " x\n", "is not"},
		{"a short digest is refused", "abc  x\n", "is not"},
		{"a file listed twice is refused", strings.Repeat("a", 64) + "  x\n" + strings.Repeat("b", 64) + " *x\n", "listed twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), ChecksumsFile, tc.content, 0o644)
			if _, err := ReadChecksums(path); err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadChecksums = %v, want an error naming %s and containing %q", err, path, tc.wantErr)
			}
		})
	}

	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecksums(dir); err == nil || !strings.Contains(err.Error(), "sub is not a regular file") {
		t.Errorf("WriteChecksums over a directory holding a subdirectory = %v, want it refused", err)
	}
}

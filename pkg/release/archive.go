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
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// File is one file to put into an archive: Path on disk, stored as Name
// (a slash-separated path relative to the archive's root).
type File struct {
	Name, Path string
}

// WriteArchive writes files into a new archive at path, a zip file if path
// ends in .zip and a gzip-compressed tar file if it ends in .tar.gz, with
// every entry dated modTime. An executable file (any x bit) is stored with
// mode 0755, any other with 0644.
func WriteArchive(path string, files []File, modTime time.Time) (err error) {
	var write func(io.Writer, []File, time.Time) error
	switch {
	case strings.HasSuffix(path, ".zip"):
		write = writeZip
	case strings.HasSuffix(path, ".tar.gz"):
		write = writeTarGz
	default:
		return fmt.Errorf("archive %s: want a .zip or .tar.gz name", path)
	}
	if len(files) == 0 {
		return fmt.Errorf("archive %s: no files", path)
	}
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	defer func() {
		if cerr := out.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("archive: %w", cerr)
		}
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	if err := write(out, files, modTime); err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	return nil
}

// source opens f and returns its contents' reader, size and archive mode.
func source(f File) (*os.File, int64, fs.FileMode, error) {
	if f.Name == "" || path.IsAbs(f.Name) || path.Clean(f.Name) != f.Name || strings.HasPrefix(f.Name, "../") {
		return nil, 0, 0, fmt.Errorf("entry name %q for %s: want a clean relative path", f.Name, f.Path)
	}
	in, err := os.Open(f.Path)
	if err != nil {
		return nil, 0, 0, err
	}
	info, err := in.Stat()
	if err != nil {
		_ = in.Close()
		return nil, 0, 0, err
	}
	if !info.Mode().IsRegular() {
		_ = in.Close()
		return nil, 0, 0, fmt.Errorf("%s is not a regular file", f.Path)
	}
	mode := fs.FileMode(0o644)
	if info.Mode()&0o111 != 0 {
		mode = 0o755
	}
	return in, info.Size(), mode, nil
}

func writeTarGz(w io.Writer, files []File, modTime time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		in, size, mode, err := source(f)
		if err != nil {
			return err
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.Name,
			Size:     size,
			Mode:     int64(mode),
			ModTime:  modTime.UTC().Truncate(time.Second),
			Uname:    "root",
			Gname:    "root",
			Format:   tar.FormatPAX,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			_ = in.Close()
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		_, err = io.Copy(tw, in)
		_ = in.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, files []File, modTime time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		in, _, mode, err := source(f)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: modTime.UTC().Truncate(time.Second)}
		hdr.SetMode(mode)
		entry, err := zw.CreateHeader(hdr)
		if err != nil {
			_ = in.Close()
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		_, err = io.Copy(entry, in)
		_ = in.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return zw.Close()
}

// ArchiveEntry is one file an archive holds.
type ArchiveEntry struct {
	// Name is the entry's path in the archive.
	Name string
	// Mode is its permission bits.
	Mode fs.FileMode
	// SHA256 is the hex SHA-256 of its contents.
	SHA256 string
}

// hashReader returns the hex SHA-256 of what r reads.
func hashReader(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ReadArchive lists the regular files of the .zip or .tar.gz archive at
// path, in archive order, with their digests.
func ReadArchive(path string) ([]ArchiveEntry, error) {
	var entries []ArchiveEntry
	switch {
	case strings.HasSuffix(path, ".zip"):
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", path, err)
		}
		defer func() { _ = zr.Close() }()
		for _, f := range zr.File {
			if !f.Mode().IsRegular() {
				continue
			}
			r, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("archive %s: %s: %w", path, f.Name, err)
			}
			sum, err := hashReader(r)
			_ = r.Close()
			if err != nil {
				return nil, fmt.Errorf("archive %s: %s: %w", path, f.Name, err)
			}
			entries = append(entries, ArchiveEntry{Name: f.Name, Mode: f.Mode().Perm(), SHA256: sum})
		}
	case strings.HasSuffix(path, ".tar.gz"):
		in, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
		defer func() { _ = in.Close() }()
		gz, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", path, err)
		}
		tr := tar.NewReader(gz)
		for {
			hdr, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("archive %s: %w", path, err)
			}
			if hdr.Typeflag == tar.TypeReg {
				sum, err := hashReader(tr)
				if err != nil {
					return nil, fmt.Errorf("archive %s: %s: %w", path, hdr.Name, err)
				}
				entries = append(entries, ArchiveEntry{Name: hdr.Name, Mode: fs.FileMode(hdr.Mode).Perm(), SHA256: sum})
			}
		}
	default:
		return nil, fmt.Errorf("archive %s: want a .zip or .tar.gz name", path)
	}
	return entries, nil
}

// SHA256File returns the hex SHA-256 of the file at path.
func SHA256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("sha256: %w", err)
	}
	defer func() { _ = f.Close() }()
	sum, err := hashReader(f)
	if err != nil {
		return "", fmt.Errorf("sha256 of %s: %w", path, err)
	}
	return sum, nil
}

// TreeFiles returns the regular files under the directory root as archive
// entries named name/<path under root>, in lexical order.
func TreeFiles(root, name string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, File{Name: path.Join(name, filepath.ToSlash(rel)), Path: p})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archive tree %s: %w", root, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("archive tree %s: no files", root)
	}
	return files, nil
}

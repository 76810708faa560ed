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

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/release"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// defaultMTime dates archive entries when neither -mtime nor
// SOURCE_DATE_EPOCH is set.
var defaultMTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// run executes one subcommand and returns the exit code: 2 for bad
// arguments, 1 for a failure.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: release check-version|archive|binary|krew|checksums|verify [flags] (see hack/release/main.go)")
		return 2
	}
	fs := flag.NewFlagSet("release "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "dist", "the release directory")
	version := fs.String("version", "", "the release, e.g. v0.1.0")
	platform := fs.String("platform", "", "os/arch of the binary")
	platforms := fs.String("platforms", "", "os/arch pairs of the kubectl-dra archives, comma-separated")
	binaries := fs.String("binaries", "", "programs released as bare binaries, comma-separated (verify)")
	binaryPlatforms := fs.String("binary-platforms", "", "os/arch pairs of the bare binaries, comma-separated (verify)")
	mtime := fs.String("mtime", os.Getenv("SOURCE_DATE_EPOCH"), "archive entries' modification time, in seconds since 1970 (default $SOURCE_DATE_EPOCH, else 2000-01-01)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	var err error
	switch args[0] {
	case "check-version":
		if fs.NArg() != 1 {
			err = usage("check-version takes the version")
			break
		}
		err = release.CheckVersion(fs.Arg(0))
	case "archive":
		err = archive(*dir, *version, *platform, *mtime, fs.Args(), stdout)
	case "binary":
		err = binary(*dir, *version, *platform, fs.Args(), stdout)
	case "krew":
		err = krew(*dir, *version, *platforms, stdout)
	case "checksums":
		var sums map[string]string
		if sums, err = release.WriteChecksums(*dir); err == nil {
			fmt.Fprintf(stdout, "%s: %d artifacts\n", filepath.Join(*dir, release.ChecksumsFile), len(sums))
		}
	case "verify":
		err = verify(*dir, *version, *platforms, *binaries, *binaryPlatforms, stdout)
	default:
		err = usage(fmt.Sprintf("unknown subcommand %q", args[0]))
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "release %s: %v\n", args[0], err)
		return 2
	default:
		fmt.Fprintf(stderr, "release %s: %v\n", args[0], err)
		return 1
	}
}

// usageError is a bad command line (exit code 2).
type usageError string

func (e usageError) Error() string { return string(e) }

func usage(msg string) error { return usageError(msg) }

// parsePlatform reads the single -platform.
func parsePlatform(s string) (release.Platform, error) {
	ps, err := release.ParsePlatforms(s)
	if err != nil {
		return release.Platform{}, usage(err.Error())
	}
	if len(ps) != 1 {
		return release.Platform{}, usage(fmt.Sprintf("-platform %q: want one os/arch", s))
	}
	return ps[0], nil
}

// program returns the program a binary's file is, without .exe.
func program(binary string) string { return strings.TrimSuffix(filepath.Base(binary), ".exe") }

func archive(dir, version, platform, mtime string, files []string, stdout io.Writer) error {
	if err := release.CheckVersion(version); err != nil {
		return usage(err.Error())
	}
	p, err := parsePlatform(platform)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usage("archive takes the binary and any other files to pack")
	}
	if want := p.Executable(program(files[0])); filepath.Base(files[0]) != want {
		return usage(fmt.Sprintf("binary %s: want a file named %s for %s", files[0], want, p))
	}
	modTime := defaultMTime
	if mtime != "" {
		secs, err := strconv.ParseInt(mtime, 10, 64)
		if err != nil {
			return usage(fmt.Sprintf("-mtime %q: want seconds since 1970", mtime))
		}
		modTime = time.Unix(secs, 0)
	}
	entries := make([]release.File, len(files))
	for i, f := range files {
		entries[i] = release.File{Name: filepath.Base(f), Path: f}
	}
	out := filepath.Join(dir, release.ArchiveName(program(files[0]), version, p))
	if err := release.WriteArchive(out, entries, modTime); err != nil {
		return err
	}
	fmt.Fprintln(stdout, out)
	return nil
}

func binary(dir, version, platform string, args []string, stdout io.Writer) error {
	if err := release.CheckVersion(version); err != nil {
		return usage(err.Error())
	}
	p, err := parsePlatform(platform)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usage("binary takes one binary")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return fmt.Errorf("binary: %w", err)
	}
	out := filepath.Join(dir, release.BinaryName(program(args[0]), version, p))
	if err := os.WriteFile(out, data, 0o755); err != nil {
		return fmt.Errorf("binary: %w", err)
	}
	fmt.Fprintln(stdout, out)
	return nil
}

func krew(dir, version, platforms string, stdout io.Writer) error {
	if err := release.CheckVersion(version); err != nil {
		return usage(err.Error())
	}
	ps, err := release.ParsePlatforms(platforms)
	if err != nil {
		return usage(err.Error())
	}
	m, err := release.NewKrewManifest(dir, release.KubectlDRA(version, ps))
	if err != nil {
		return err
	}
	path, err := release.WriteKrewManifest(dir, m)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, path)
	return nil
}

func verify(dir, version, platforms, binaries, binaryPlatforms string, stdout io.Writer) error {
	if err := release.CheckVersion(version); err != nil {
		return usage(err.Error())
	}
	ps, err := release.ParsePlatforms(platforms)
	if err != nil {
		return usage(err.Error())
	}
	var want []string
	if binaries != "" {
		bps, err := release.ParsePlatforms(binaryPlatforms)
		if err != nil {
			return usage(err.Error())
		}
		for _, b := range strings.Split(binaries, ",") {
			for _, p := range bps {
				want = append(want, release.BinaryName(b, version, p))
			}
		}
	}
	plugin := release.KubectlDRA(version, ps)
	if err := release.Verify(dir, plugin, want); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s and %s check out (%d %s archives, %d binaries)\n",
		dir, release.ChecksumsFile, release.KrewManifestFile(plugin.Name), len(ps), plugin.Program, len(want))
	return nil
}

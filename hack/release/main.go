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
		fmt.Fprintln(stderr, "usage: release check-version|sbom|licenses|archive|binary|krew|checksums|verify [flags] (see hack/release/doc.go)")
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
	sbom := fs.String("sbom", "", "the binary's CycloneDX SBOM (archive, binary: required; licenses: the SBOM to check)")
	licenses := fs.String("licenses", "", "the binary's third-party license texts, a directory (archive, binary: required)")
	out := fs.String("out", "", "where to write: the SBOM (sbom), the license texts' directory (licenses)")
	goCmd := fs.String("go", "go", "the go command (sbom, licenses)")
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
	case "sbom":
		err = sbomCommand(*goCmd, *version, *out, fs.Args(), stdout, stderr)
	case "licenses":
		err = licensesCommand(*goCmd, *sbom, *out, stdout)
	case "archive":
		err = archive(*dir, *version, *platform, *mtime, *sbom, *licenses, fs.Args(), stdout)
	case "binary":
		err = binary(*dir, *version, *platform, *mtime, *sbom, *licenses, fs.Args(), stdout)
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

// modTime reads -mtime.
func modTime(mtime string) (time.Time, error) {
	if mtime == "" {
		return defaultMTime, nil
	}
	secs, err := strconv.ParseInt(mtime, 10, 64)
	if err != nil {
		return time.Time{}, usage(fmt.Sprintf("-mtime %q: want seconds since 1970", mtime))
	}
	return time.Unix(secs, 0), nil
}

// entries returns the archive entries of files, each under its base name:
// a directory's files under its base name and their paths in it.
func entries(files []string) ([]release.File, error) {
	var out []release.File
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
		if !info.IsDir() {
			out = append(out, release.File{Name: filepath.Base(f), Path: f})
			continue
		}
		tree, err := release.TreeFiles(f, filepath.Base(f))
		if err != nil {
			return nil, err
		}
		out = append(out, tree...)
	}
	return out, nil
}

// shipped checks the flags every shipped binary needs: its SBOM and the
// directory of its license texts, named ThirdPartyLicensesDir.
func shipped(sbom, licenses string) error {
	if sbom == "" || licenses == "" {
		return usage("a shipped binary needs -sbom (its SBOM) and -licenses (its license texts' directory)")
	}
	if filepath.Base(licenses) != release.ThirdPartyLicensesDir {
		return usage(fmt.Sprintf("-licenses %s: want a directory named %s", licenses, release.ThirdPartyLicensesDir))
	}
	return nil
}

// copyFile copies src to dst with mode.
func copyFile(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, mode)
}

// archive packs the plugin's binary, FILEs, its SBOM and license texts
// into its archive, and copies the SBOM beside it.
func archive(dir, version, platform, mtime, sbom, licenses string, files []string, stdout io.Writer) error {
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
	when, err := modTime(mtime)
	if err != nil {
		return err
	}
	if err := shipped(sbom, licenses); err != nil {
		return err
	}
	prog := program(files[0])
	packed, err := entries(files)
	if err != nil {
		return err
	}
	packed = append(packed, release.File{Name: release.SBOMEntryName(prog), Path: sbom})
	tree, err := entries([]string{licenses})
	if err != nil {
		return err
	}
	packed = append(packed, tree...)
	out := filepath.Join(dir, release.ArchiveName(prog, version, p))
	if err := release.WriteArchive(out, packed, when); err != nil {
		return err
	}
	sbomOut := filepath.Join(dir, release.SBOMName(prog, version, p))
	if err := copyFile(sbom, sbomOut, 0o644); err != nil {
		return fmt.Errorf("archive: sbom: %w", err)
	}
	fmt.Fprintln(stdout, out)
	fmt.Fprintln(stdout, sbomOut)
	return nil
}

// binary copies a bare binary and its SBOM into the release directory,
// and packs FILEs and its license texts into its licenses archive.
func binary(dir, version, platform, mtime, sbom, licenses string, args []string, stdout io.Writer) error {
	if err := release.CheckVersion(version); err != nil {
		return usage(err.Error())
	}
	p, err := parsePlatform(platform)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return usage("binary takes the binary and any other files to pack with its license texts")
	}
	when, err := modTime(mtime)
	if err != nil {
		return err
	}
	if err := shipped(sbom, licenses); err != nil {
		return err
	}
	prog := program(args[0])
	packed, err := entries(append(args[1:], licenses))
	if err != nil {
		return err
	}
	out := filepath.Join(dir, release.BinaryName(prog, version, p))
	if err := copyFile(args[0], out, 0o755); err != nil {
		return fmt.Errorf("binary: %w", err)
	}
	sbomOut := filepath.Join(dir, release.SBOMName(prog, version, p))
	if err := copyFile(sbom, sbomOut, 0o644); err != nil {
		return fmt.Errorf("binary: sbom: %w", err)
	}
	licensesOut := filepath.Join(dir, release.LicensesArchiveName(prog, version, p))
	if err := release.WriteArchive(licensesOut, packed, when); err != nil {
		return err
	}
	fmt.Fprintln(stdout, out)
	fmt.Fprintln(stdout, sbomOut)
	fmt.Fprintln(stdout, licensesOut)
	return nil
}

// sbomCommand writes a binary's SBOM, with the policy's corrections.
func sbomCommand(goCmd, version, out string, args []string, stdout, stderr io.Writer) error {
	if version == "" {
		return usage("sbom needs -version, the version the binary names (a release's, or git describe's for an image)")
	}
	if len(args) != 1 || out == "" {
		return usage("sbom takes -out FILE and one binary")
	}
	if err := release.GenerateSBOM(goCmd, args[0], version, out, stderr); err != nil {
		return err
	}
	bom, err := release.ReadSBOM(out)
	if err != nil {
		return err
	}
	corrected, err := release.ConcludeLicenses(bom)
	if err != nil {
		return err
	}
	if err := release.WriteSBOM(out, bom); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d components\n", out, len(bom.Components))
	for _, c := range corrected {
		fmt.Fprintf(stdout, "  license corrected by the policy: %s\n", c)
	}
	return nil
}

// licensesCommand checks an SBOM against the license policy and collects
// its modules' license texts.
func licensesCommand(goCmd, sbom, out string, stdout io.Writer) error {
	if sbom == "" || out == "" {
		return usage("licenses takes -sbom FILE and -out DIR")
	}
	// out is emptied first: a name it must have keeps a typo from
	// emptying another directory.
	if filepath.Base(out) != release.ThirdPartyLicensesDir {
		return usage(fmt.Sprintf("-out %s: want a directory named %s", out, release.ThirdPartyLicensesDir))
	}
	bom, err := release.ReadSBOM(sbom)
	if err != nil {
		return err
	}
	if err := release.CheckLicenses(bom); err != nil {
		return fmt.Errorf("%s: %w", sbom, err)
	}
	if err := os.RemoveAll(out); err != nil {
		return fmt.Errorf("licenses: %w", err)
	}
	texts, err := release.CollectLicenseTexts(bom, out, goCmd)
	if err != nil {
		return fmt.Errorf("%s: %w", sbom, err)
	}
	fmt.Fprintf(stdout, "%s: %d components, licenses %s\n", sbom, len(bom.Components), release.LicenseTally(bom))
	fmt.Fprintf(stdout, "%s: %d files for %d modules\n", out, texts.Files, texts.Modules)
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
	sboms := make([]string, 0, len(ps)+len(want))
	for _, p := range ps {
		sboms = append(sboms, release.SBOMName(plugin.Program, version, p))
	}
	for _, b := range want {
		sboms = append(sboms, strings.TrimSuffix(b, ".exe")+release.SBOMExt)
	}
	for _, name := range sboms {
		bom, err := release.ReadSBOM(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d components, licenses %s\n", name, len(bom.Components), release.LicenseTally(bom))
	}
	fmt.Fprintf(stdout, "%s: %s and %s check out (%d %s archives, %d binaries; their %d SBOMs pass the license policy, their license texts ship)\n",
		dir, release.ChecksumsFile, release.KrewManifestFile(plugin.Name), len(ps), plugin.Program, len(want), len(sboms))
	return nil
}

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
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runRelease runs the command and returns its exit code and output.
func runRelease(args ...string) (int, string) {
	var out bytes.Buffer
	code := run(args, &out, &out)
	return code, out.String()
}

// TestTheMakefilesSequenceWritesAReleaseThatVerifies runs the subcommands
// in the order hack/make/release.mk does, on fake binaries.
func TestTheMakefilesSequenceWritesAReleaseThatVerifies(t *testing.T) {
	stage, dist := t.TempDir(), t.TempDir()
	const version = "v0.1.0-rc.0"
	fake := func(dir, name string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	step := func(args ...string) {
		t.Helper()
		if code, out := runRelease(args...); code != 0 {
			t.Fatalf("release %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	plugin := "linux/amd64,windows/arm64"
	step("archive", "-dir", dist, "-version", version, "-platform", "linux/amd64", fake(filepath.Join(stage, "linux_amd64"), "kubectl-dra"))
	step("archive", "-dir", dist, "-version", version, "-platform", "windows/arm64", fake(filepath.Join(stage, "windows_arm64"), "kubectl-dra.exe"))
	step("binary", "-dir", dist, "-version", version, "-platform", "linux/amd64", fake(filepath.Join(stage, "linux_amd64"), "dra-scheduler"))
	step("krew", "-dir", dist, "-version", version, "-platforms", plugin)
	step("checksums", "-dir", dist)
	step("verify", "-dir", dist, "-version", version, "-platforms", plugin, "-binaries", "dra-scheduler", "-binary-platforms", "linux/amd64")

	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "SHA256SUMS dra-scheduler_v0.1.0-rc.0_linux_amd64 dra.yaml kubectl-dra_v0.1.0-rc.0_linux_amd64.tar.gz kubectl-dra_v0.1.0-rc.0_windows_arm64.zip"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("release directory holds\n  %s\nwant\n  %s", got, want)
	}

	// verify expects what the Makefile builds: a binary it lacks fails it.
	if code, out := runRelease("verify", "-dir", dist, "-version", version, "-platforms", plugin, "-binaries", "dra-scheduler,dra-bench", "-binary-platforms", "linux/amd64"); code != 1 || !strings.Contains(out, "lacks dra-bench_v0.1.0-rc.0_linux_amd64") {
		t.Errorf("verify of a release without dra-bench: exit %d\n%s", code, out)
	}
}

func TestCommandLineErrors(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kubectl-dra")
	if err := os.WriteFile(bin, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"a release version is accepted", []string{"check-version", "v0.1.0"}, 0, ""},
		{"git describe's version is not a release", []string{"check-version", "0b26437-dirty"}, 1, `version "0b26437-dirty": want v<major>`},
		{"no subcommand is a usage error", nil, 2, "usage: release"},
		{"an unknown subcommand is a usage error", []string{"publish"}, 2, `unknown subcommand "publish"`},
		{"an archive needs a release version", []string{"archive", "-version", "dev", "-platform", "linux/amd64", bin}, 2, `version "dev"`},
		{"a Windows archive needs the .exe", []string{"archive", "-version", "v0.1.0", "-platform", "windows/amd64", bin}, 2, "want a file named kubectl-dra.exe"},
		{"an archive is for one platform", []string{"archive", "-version", "v0.1.0", "-platform", "linux/amd64,linux/arm64", bin}, 2, "want one os/arch"},
		{"a bad -mtime is a usage error", []string{"archive", "-version", "v0.1.0", "-platform", "linux/amd64", "-mtime", "yesterday", bin}, 2, `-mtime "yesterday"`},
		{"a missing release directory names it", []string{"checksums", "-dir", "/nonexistent/dist"}, 1, "/nonexistent/dist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runRelease(tc.args...)
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) {
				t.Errorf("release %v: exit %d, output\n%s\nwant exit %d and %q", tc.args, code, out, tc.wantCode, tc.wantOut)
			}
		})
	}
}

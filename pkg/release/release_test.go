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
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The platforms make release builds.
var (
	pluginPlatforms = []Platform{
		{"linux", "amd64"}, {"linux", "arm64"},
		{"darwin", "amd64"}, {"darwin", "arm64"},
		{"windows", "amd64"}, {"windows", "arm64"},
	}
	serverPlatforms = []Platform{{"linux", "amd64"}, {"linux", "arm64"}}
	serverPrograms  = []string{"dra-scheduler", "dra-bench"}
)

const testVersion = "v0.1.0-rc.0"

// krewValidator is krew's own manifest validator, run with go run (krew
// is not a dependency of this module: it would pull client-go v11 into
// go.mod).
const krewValidator = "sigs.k8s.io/krew/cmd/validate-krew-manifest@v0.4.3"

// fakeModules are the modules every fake binary's SBOM lists.
var fakeModules = []mod{
	{"std", "go1.26.8", []string{"BSD-3-Clause"}},
	{"sigs.k8s.io/yaml", "v1.6.0", []string{"MIT"}},
}

// fakeRelease writes a release directory as make release does, from tiny
// fake binaries (a shell script each; nothing runs them), each shipped
// with LICENSE, NOTICE, an SBOM describing it (fakeModules) and its
// modules' license texts; if !licensed, with none of these (archives
// holding the binary only, no SBOMs), as releases were before. It returns
// the directory and the names of the bare binaries.
func fakeRelease(t *testing.T, licensed bool) (dist string, binaries []string) {
	t.Helper()
	stage, dist := t.TempDir(), t.TempDir()
	repoFiles := []File{
		{Name: LicenseFile, Path: writeFile(t, stage, LicenseFile, "license terms\n", 0o644)},
		{Name: NoticeFile, Path: writeFile(t, stage, NoticeFile, "notice\n", 0o644)},
	}
	texts := filepath.Join(stage, ThirdPartyLicensesDir)
	for _, m := range fakeModules {
		if err := os.MkdirAll(filepath.Join(texts, m.name), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(texts, m.name), "LICENSE", m.licenses[0]+" terms of "+m.name+"\n", 0o644)
	}
	textFiles, err := TreeFiles(texts, ThirdPartyLicensesDir)
	if err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(1700000000, 0)
	// sbom writes the SBOM of the binary at path to dist as name.
	sbom := func(path, name string) string {
		sbomPath := writeFile(t, dist, name, string(sbomJSON(t, filepath.Base(path), mustSHA256(t, path), fakeModules...)), 0o644)
		return sbomPath
	}
	for _, p := range pluginPlatforms {
		dir := filepath.Join(stage, p.OS+"_"+p.Arch)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		bin := writeFile(t, dir, p.Executable("kubectl-dra"), "#!/bin/sh\necho kubectl-dra "+p.String()+"\n", 0o755)
		files := []File{{Name: p.Executable("kubectl-dra"), Path: bin}}
		if licensed {
			files = append(files, repoFiles...)
			files = append(files, File{Name: SBOMEntryName("kubectl-dra"), Path: sbom(bin, SBOMName("kubectl-dra", testVersion, p))})
			files = append(files, textFiles...)
		}
		if err := WriteArchive(filepath.Join(dist, ArchiveName("kubectl-dra", testVersion, p)), files, mtime); err != nil {
			t.Fatal(err)
		}
	}
	for _, program := range serverPrograms {
		for _, p := range serverPlatforms {
			name := BinaryName(program, testVersion, p)
			bin := writeFile(t, dist, name, "#!/bin/sh\necho "+name+"\n", 0o755)
			binaries = append(binaries, name)
			if !licensed {
				continue
			}
			sbom(bin, SBOMName(program, testVersion, p))
			if err := WriteArchive(filepath.Join(dist, LicensesArchiveName(program, testVersion, p)), append(append([]File{}, repoFiles...), textFiles...), mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
	m, err := NewKrewManifest(dist, KubectlDRA(testVersion, pluginPlatforms))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteKrewManifest(dist, m); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecksums(dist); err != nil {
		t.Fatal(err)
	}
	return dist, binaries
}

func TestAReleaseDirectoryChecksOut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
	}{
		{"krew copies the binary, LICENSE, NOTICE, the SBOM and the license texts", []string{"kubectl-dra", "LICENSE", "NOTICE", "kubectl-dra.cdx.json", "third_party_licenses"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dist, binaries := fakeRelease(t, true)
			if err := Verify(dist, KubectlDRA(testVersion, pluginPlatforms), binaries); err != nil {
				t.Fatalf("Verify: %v", err)
			}

			// The same checks, spelled out: every archive the manifest
			// lists is in the directory with its sha256, and SHA256SUMS
			// lists it with the same.
			m, err := ReadKrewManifest(filepath.Join(dist, "dra.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			sums, err := ReadChecksums(filepath.Join(dist, ChecksumsFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Spec.Platforms) != len(pluginPlatforms) {
				t.Errorf("%d platforms in the manifest, want %d", len(m.Spec.Platforms), len(pluginPlatforms))
			}
			for i, kp := range m.Spec.Platforms {
				p := pluginPlatforms[i]
				if kp.Selector.MatchLabels["os"] != p.OS || kp.Selector.MatchLabels["arch"] != p.Arch {
					t.Errorf("platforms[%d] selects %v, want %s", i, kp.Selector.MatchLabels, p)
				}
				name := path.Base(kp.URI)
				if want := "https://github.com/dra-scheduler/dra-scheduler/releases/download/" + testVersion + "/" + ArchiveName("kubectl-dra", testVersion, p); kp.URI != want {
					t.Errorf("platforms[%d].uri %s, want %s", i, kp.URI, want)
				}
				if got := mustSHA256(t, filepath.Join(dist, name)); got != kp.SHA256 {
					t.Errorf("%s: sha256 %s, the manifest says %s", name, got, kp.SHA256)
				}
				if sums[name] != kp.SHA256 {
					t.Errorf("SHA256SUMS lists %s as %q, the manifest says %s", name, sums[name], kp.SHA256)
				}
				var from []string
				for _, f := range kp.Files {
					from = append(from, strings.TrimSuffix(f.From, ".exe"))
				}
				if strings.Join(from, ",") != strings.Join(tc.files, ",") {
					t.Errorf("platforms[%d].files copy %v, want %v", i, from, tc.files)
				}
				if want := p.Executable("kubectl-dra"); kp.Bin != want {
					t.Errorf("platforms[%d].bin %s, want %s", i, kp.Bin, want)
				}
			}
			var shipped []string
			for _, b := range binaries {
				shipped = append(shipped, b, b+".cdx.json", b+".licenses.tar.gz")
			}
			for _, p := range pluginPlatforms {
				shipped = append(shipped, "kubectl-dra_"+testVersion+"_"+p.OS+"_"+p.Arch+".cdx.json")
			}
			for _, name := range append(shipped, "dra.yaml") {
				if _, ok := sums[name]; !ok {
					t.Errorf("SHA256SUMS does not list %s", name)
				}
			}
		})
	}
}

// runKrewValidator runs krew's validator on a manifest, without installing
// the plugin (its archives are not at their URLs until the release is
// published).
func runKrewValidator(t *testing.T, manifest string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: cannot run krew's validator")
	}
	cmd := exec.Command("go", "run", krewValidator, "-manifest", manifest, "-skip-install")
	cmd.Dir = t.TempDir() // outside this module: go run pkg@version builds krew's own
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestKrewsValidatorAcceptsTheManifest(t *testing.T) {
	dist, _ := fakeRelease(t, true)
	manifest := filepath.Join(dist, "dra.yaml")
	out, err := runKrewValidator(t, manifest)
	if err != nil {
		data, _ := os.ReadFile(manifest)
		t.Fatalf("%s refuses %s: %v\n%s\nmanifest:\n%s", krewValidator, manifest, err, out, data)
	}
	if !strings.Contains(out, "structural validation OK") || !strings.Contains(out, "no overlapping spec.platform[].selector") {
		t.Errorf("the validator did not report its checks passing:\n%s", out)
	}

	// The validator is not a rubber stamp: the same manifest under another
	// file name is refused (krew wants <plugin>.yaml).
	renamed := filepath.Join(t.TempDir(), "kubectl-dra.yaml")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(renamed), filepath.Base(renamed), string(data), 0o644)
	if out, err := runKrewValidator(t, renamed); err == nil || !strings.Contains(out, `plugin should be named "kubectl-dra", not "dra"`) {
		t.Errorf("the validator accepted dra's manifest as kubectl-dra.yaml: %v\n%s", err, out)
	}
}

func TestVerifyFindsWhatIsWrongWithARelease(t *testing.T) {
	archive := func(p Platform) string { return ArchiveName("kubectl-dra", testVersion, p) }
	linux := pluginPlatforms[0]
	for _, tc := range []struct {
		name    string
		mutate  func(t *testing.T, dist string)
		want    []Platform // the release's platforms, if not pluginPlatforms
		wantErr string
	}{
		{
			"an archive changed after SHA256SUMS was written",
			func(t *testing.T, dist string) { writeFile(t, dist, archive(linux), "tampered", 0o644) },
			nil, "sha256 ",
		},
		{
			"a file SHA256SUMS does not list",
			func(t *testing.T, dist string) { writeFile(t, dist, "notes.txt", "x", 0o644) },
			nil, "does not list notes.txt",
		},
		{
			"a file SHA256SUMS lists but the directory lacks",
			func(t *testing.T, dist string) {
				mustRemove(t, filepath.Join(dist, BinaryName("dra-bench", testVersion, serverPlatforms[1])))
			},
			nil, "lists dra-bench_v0.1.0-rc.0_linux_arm64, which",
		},
		{
			"a platform of the release missing from the manifest",
			nil,
			append(append([]Platform{}, pluginPlatforms...), Platform{"linux", "386"}), "no platform entry for linux/386",
		},
		{
			"a manifest whose sha256 is not the archive's",
			func(t *testing.T, dist string) {
				editManifest(t, dist, func(m *KrewManifest) { m.Spec.Platforms[2].SHA256 = strings.Repeat("0", 64) })
			},
			nil, "platforms[2] (darwin/amd64): sha256 0000",
		},
		{
			"a manifest pointing at another release's archive",
			func(t *testing.T, dist string) {
				editManifest(t, dist, func(m *KrewManifest) {
					m.Spec.Platforms[0].URI = strings.ReplaceAll(m.Spec.Platforms[0].URI, testVersion, "v0.0.9")
				})
			},
			nil, "platforms[0] (linux/amd64): uri https://github.com/dra-scheduler/dra-scheduler/releases/download/v0.0.9/",
		},
		{
			"a manifest whose bin the archive does not hold",
			func(t *testing.T, dist string) {
				editManifest(t, dist, func(m *KrewManifest) { m.Spec.Platforms[4].Bin = "kubectl-dra" })
			},
			nil, `platforms[4] (windows/amd64): bin "kubectl-dra", want "kubectl-dra.exe"`,
		},
		{
			"a manifest that does not copy the binary",
			func(t *testing.T, dist string) {
				editManifest(t, dist, func(m *KrewManifest) { m.Spec.Platforms[1].Files[0].To = "bin" })
			},
			nil, "files do not copy bin kubectl-dra",
		},
		{
			"a manifest listing a platform twice",
			func(t *testing.T, dist string) {
				editManifest(t, dist, func(m *KrewManifest) { m.Spec.Platforms[1].Selector = m.Spec.Platforms[0].Selector })
			},
			nil, "platforms[1] (linux/amd64): listed twice",
		},
		{
			"a missing bare binary",
			func(t *testing.T, dist string) {
				mustRemove(t, filepath.Join(dist, BinaryName("dra-scheduler", testVersion, serverPlatforms[0])))
				if _, err := WriteChecksums(dist); err != nil {
					t.Fatal(err)
				}
			},
			nil, "lacks dra-scheduler_v0.1.0-rc.0_linux_amd64",
		},
		{
			"a release without licenses or SBOMs, as before",
			func(t *testing.T, dist string) {
				unlicensed, _ := fakeRelease(t, false)
				if err := os.RemoveAll(dist); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(unlicensed, dist); err != nil {
					t.Fatal(err)
				}
			},
			nil, "platforms[0] (linux/amd64): " + filepath.Join("DIST", archive(linux)) + " does not hold LICENSE",
		},
		{
			"an archive without LICENSE",
			func(t *testing.T, dist string) {
				repack(t, dist, archive(pluginPlatforms[3]), func(name string) bool { return name != LicenseFile })
			},
			nil, "platforms[3] (darwin/arm64): " + filepath.Join("DIST", archive(pluginPlatforms[3])) + " does not hold LICENSE",
		},
		{
			"a manifest that does not copy the license texts",
			func(t *testing.T, dist string) {
				editManifest(t, dist, func(m *KrewManifest) {
					f := m.Spec.Platforms[5].Files
					m.Spec.Platforms[5].Files = f[:len(f)-1]
				})
			},
			nil, "platforms[5] (windows/arm64): files do not copy third_party_licenses",
		},
		{
			"an archive without the license texts of a module its SBOM lists",
			func(t *testing.T, dist string) {
				repack(t, dist, archive(linux), func(name string) bool { return !strings.HasPrefix(name, "third_party_licenses/sigs.k8s.io/yaml/") })
			},
			nil, "lacks the license texts (third_party_licenses/<module>/) of 1 modules of " + filepath.Join("DIST", SBOMName("kubectl-dra", testVersion, linux)) + ": sigs.k8s.io/yaml@v1.6.0",
		},
		{
			"a plugin's SBOM in the release directory that is not its archive's",
			func(t *testing.T, dist string) {
				writeSBOM(t, dist, SBOMName("kubectl-dra", testVersion, linux), "kubectl-dra", mustSHA256(t, filepath.Join(dist, archive(linux))), fakeModules...)
			},
			nil, "platforms[0] (linux/amd64): " + archive(linux) + "'s kubectl-dra.cdx.json is not " + filepath.Join("DIST", SBOMName("kubectl-dra", testVersion, linux)),
		},
		{
			"a bare binary's SBOM listing a GPL module",
			func(t *testing.T, dist string) {
				name := BinaryName("dra-scheduler", testVersion, serverPlatforms[1])
				writeSBOM(t, dist, SBOMName("dra-scheduler", testVersion, serverPlatforms[1]), name, mustSHA256(t, filepath.Join(dist, name)),
					append(append([]mod{}, fakeModules...), mod{"example.com/gpl", "v1.0.0", []string{"GPL-3.0-only"}})...)
			},
			nil, "module example.com/gpl@v1.0.0: license \"GPL-3.0-only\" is not allowed in shipped binaries",
		},
		{
			"a plugin's SBOM listing a module of unknown license",
			func(t *testing.T, dist string) {
				p := pluginPlatforms[2]
				sbom := SBOMName("kubectl-dra", testVersion, p)
				entries, err := ReadArchive(filepath.Join(dist, archive(p)))
				if err != nil {
					t.Fatal(err)
				}
				writeSBOM(t, dist, sbom, "kubectl-dra", entries[0].SHA256, append(append([]mod{}, fakeModules...), mod{"example.com/odd", "v0.3.0", []string{"Beerware"}})...)
			},
			nil, "module example.com/odd@v0.3.0: license \"Beerware\" is not allowed in shipped binaries (Beerware is unknown",
		},
		{
			"a bare binary's SBOM describing another binary",
			func(t *testing.T, dist string) {
				writeSBOM(t, dist, SBOMName("dra-bench", testVersion, serverPlatforms[0]), "dra-bench", strings.Repeat("1", 64), fakeModules...)
			},
			nil, "describes a binary of sha256 \"1111",
		},
		{
			"a bare binary without its licenses archive",
			func(t *testing.T, dist string) {
				mustRemove(t, filepath.Join(dist, LicensesArchiveName("dra-bench", testVersion, serverPlatforms[1])))
				if _, err := WriteChecksums(dist); err != nil {
					t.Fatal(err)
				}
			},
			nil, "binary dra-bench_v0.1.0-rc.0_linux_arm64: archive: open " + filepath.Join("DIST", "dra-bench_v0.1.0-rc.0_linux_arm64.licenses.tar.gz"),
		},
		{
			"a bare binary without its SBOM",
			func(t *testing.T, dist string) {
				mustRemove(t, filepath.Join(dist, SBOMName("dra-scheduler", testVersion, serverPlatforms[0])))
				if _, err := WriteChecksums(dist); err != nil {
					t.Fatal(err)
				}
			},
			nil, "sbom: open " + filepath.Join("DIST", "dra-scheduler_v0.1.0-rc.0_linux_amd64.cdx.json"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dist, binaries := fakeRelease(t, true)
			if tc.mutate != nil {
				tc.mutate(t, dist)
			}
			platforms := pluginPlatforms
			if tc.want != nil {
				platforms = tc.want
			}
			err := Verify(dist, KubectlDRA(testVersion, platforms), binaries)
			wantErr := strings.ReplaceAll(tc.wantErr, "DIST", dist)
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Fatalf("Verify = %v\nwant an error containing %q", err, wantErr)
			}
		})
	}
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// editManifest rewrites dist/dra.yaml through edit and SHA256SUMS after it,
// so that only the edit is wrong.
func editManifest(t *testing.T, dist string, edit func(*KrewManifest)) {
	t.Helper()
	m, err := ReadKrewManifest(filepath.Join(dist, "dra.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edit(m)
	if _, err := WriteKrewManifest(dist, m); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecksums(dist); err != nil {
		t.Fatal(err)
	}
}

// writeSBOM replaces dist/name by the SBOM of a binary named binary with
// SHA-256 sum and modules mods, and SHA256SUMS after it, so that only the
// SBOM is wrong.
func writeSBOM(t *testing.T, dist, name, binary, sum string, mods ...mod) {
	t.Helper()
	writeFile(t, dist, name, string(sbomJSON(t, binary, sum, mods...)), 0o644)
	if _, err := WriteChecksums(dist); err != nil {
		t.Fatal(err)
	}
}

// repack rewrites the archive dist/name with only the entries keep keeps,
// then the manifest and SHA256SUMS after it, so that only the archive's
// contents are wrong.
func repack(t *testing.T, dist, name string, keep func(entry string) bool) {
	t.Helper()
	entries, err := ReadArchive(filepath.Join(dist, name))
	if err != nil {
		t.Fatal(err)
	}
	stage := t.TempDir()
	var files []File
	for path, data := range contents(t, filepath.Join(dist, name)) {
		if !keep(path) {
			continue
		}
		mode := os.FileMode(0o644)
		for _, e := range entries {
			if e.Name == path {
				mode = e.Mode
			}
		}
		src := filepath.Join(stage, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Dir(src), filepath.Base(src), data, mode)
		files = append(files, File{Name: path, Path: src})
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	if err := WriteArchive(filepath.Join(dist, name), files, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	m, err := NewKrewManifest(dist, KubectlDRA(testVersion, pluginPlatforms))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteKrewManifest(dist, m); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteChecksums(dist); err != nil {
		t.Fatal(err)
	}
}

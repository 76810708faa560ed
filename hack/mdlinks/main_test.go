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

// writeTree writes files (path under dir: content) into a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheck(t *testing.T) {
	// Every case checks README.md in a tree that also holds these files.
	common := map[string]string{
		"LICENSE": "Apache-2.0\n",
		"docs/install.md": "# Install\n\n## Verify an install\n\n## Upgrade\n\n" +
			"## End to end: upstream's scheduler_perf DRA workloads — `make perf`\n\n" +
			"## Options\n\n## Options\n\n```sh\n# not a heading\n```\n",
		"docs/sub/page.md":   "# Page\n",
		"pkg/a/README.md":    "# Package a\n\n## Args\n",
		"pkg/a/main.go":      "package a\n",
		"docs/empty/.keep":   "",
		"docs/setext.md":     "Big title\n=========\n\nSmaller one\n-----------\n",
		"docs/html.md":       "<a id=\"custom-anchor\"></a>\n# Html\n",
		"docs/emphasis.md":   "## The _quick_ **brown** fox: `kubectl dra` [explain](x.md)\n",
		"docs/wrapped.md":    "# Wrapped\n",
		"docs/with space.md": "# Spaced\n",
	}
	for _, tc := range []struct {
		name   string
		readme string
		want   []string // problems, as printed; none when empty
	}{{
		name:   "a link to an existing file resolves",
		readme: "See [the license](LICENSE) and [install](docs/install.md).\n",
	}, {
		name:   "a link to a missing file is reported with its line",
		readme: "# Title\n\nSee [install](docs/instal.md).\n",
		want:   []string{`README.md:3: link "docs/instal.md": no such file or directory docs/instal.md`},
	}, {
		name:   "a link to an existing heading resolves",
		readme: "[v](docs/install.md#verify-an-install) [p](docs/install.md#end-to-end-upstreams-scheduler_perf-dra-workloads--make-perf)\n",
	}, {
		name:   "a link to a missing heading is reported",
		readme: "[v](docs/install.md#verify)\n",
		want:   []string{`README.md:1: link "docs/install.md#verify": no heading with anchor #verify in docs/install.md`},
	}, {
		name:   "a repeated heading's second anchor has -1",
		readme: "[a](docs/install.md#options) [b](docs/install.md#options-1) [c](docs/install.md#options-2)\n",
		want:   []string{`README.md:1: link "docs/install.md#options-2": no heading with anchor #options-2 in docs/install.md`},
	}, {
		name:   "a heading inside a code block gives no anchor",
		readme: "[a](docs/install.md#not-a-heading)\n",
		want:   []string{`README.md:1: link "docs/install.md#not-a-heading": no heading with anchor #not-a-heading in docs/install.md`},
	}, {
		name:   "an anchor alone points into the same file",
		readme: "# Quick start\n\n[up](#quick-start) [down](#nowhere)\n",
		want:   []string{`README.md:3: link "#nowhere": no heading with anchor #nowhere in README.md`},
	}, {
		name: "setext headings, HTML ids and emphasis in headings give anchors as on GitHub",
		readme: "[a](docs/setext.md#big-title) [b](docs/setext.md#smaller-one) [c](docs/html.md#custom-anchor) " +
			"[d](docs/emphasis.md#the-quick-brown-fox-kubectl-dra-explain)\n",
	}, {
		name: "http, https, mailto and other schemes are not checked",
		readme: "[a](https://example.com/missing) [b](http://example.com) [c](mailto:someone@example.com) " +
			"[d](ftp://example.com/x) [e](//example.com/x)\n",
	}, {
		name:   "links in fenced code blocks are not checked",
		readme: "```md\n[a](missing.md)\n```\n\n  ~~~~\n  [b](missing.md)\n  ~~~~\n\nafter [c](missing-too.md)\n",
		want:   []string{`README.md:9: link "missing-too.md": no such file or directory missing-too.md`},
	}, {
		name:   "links in inline code and HTML comments are not checked",
		readme: "Write `[a](missing.md)` or ``[b](missing.md)``.\n<!-- [c](missing.md) -->\n",
	}, {
		name:   "an unmatched backtick does not hide the links after it",
		readme: "a ` alone\n\n[a](missing.md)\n",
		want:   []string{`README.md:3: link "missing.md": no such file or directory missing.md`},
	}, {
		name:   "a link whose text wraps across lines is checked from the line it starts on",
		readme: "intro\n[a long\nlink text](docs/wrapped.md#nope)\n",
		want:   []string{`README.md:2: link "docs/wrapped.md#nope": no heading with anchor #nope in docs/wrapped.md`},
	}, {
		name:   "images, reference definitions and HTML links are checked",
		readme: "![chart](chart.svg)\n\n[ref]: docs/nope.md\n[^1]: a footnote, not a link\n\n<a href=\"gone.md\">x</a>\n",
		want: []string{
			`README.md:1: link "chart.svg": no such file or directory chart.svg`,
			`README.md:3: link "docs/nope.md": no such file or directory docs/nope.md`,
			`README.md:6: link "gone.md": no such file or directory gone.md`,
		},
	}, {
		name:   "a title and angle brackets are not part of the target",
		readme: "[a](LICENSE \"the license\") [b](<docs/with space.md>) [c](docs/with%20space.md#spaced)\n",
	}, {
		name:   "a link from a subdirectory resolves against that directory",
		readme: "[a](docs/sub/page.md)\n",
	}, {
		name:   "a link starting with / resolves against the repository root",
		readme: "[a](/pkg/a/README.md#args) [b](/pkg/b)\n",
		want:   []string{`README.md:1: link "/pkg/b": no such file or directory pkg/b`},
	}, {
		name:   "a link leaving the repository is reported",
		readme: "[a](../outside.md)\n",
		want:   []string{`README.md:1: link "../outside.md": points outside the repository`},
	}, {
		name:   "a fragment into a directory is looked up in its README",
		readme: "[a](pkg/a#args) [b](pkg/a/#nope) [c](docs/empty#x)\n",
		want: []string{
			`README.md:1: link "pkg/a/#nope": no heading with anchor #nope in pkg/a/README.md`,
			`README.md:1: link "docs/empty#x": a #fragment into a directory without a README.md`,
		},
	}, {
		name:   "a fragment into a code file is GitHub's and not checked",
		readme: "[a](pkg/a/main.go#L1) [b](pkg/a/main.go#anything)\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"README.md": tc.readme}
			for k, v := range common {
				files[k] = v
			}
			root := writeTree(t, files)
			problems, err := check(root, []string{"README.md"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Quick start", "quick-start"},
		{"Troubleshooting: why is my pod pending?", "troubleshooting-why-is-my-pod-pending"},
		{"`kubectl dra`: the whole answer for one pod", "kubectl-dra-the-whole-answer-for-one-pod"},
		{"Gangs planned jointly (beyond in-tree)", "gangs-planned-jointly-beyond-in-tree"},
		{"A/B switch: the in-tree plugin", "ab-switch-the-in-tree-plugin"},
		{"Template path: 50 claim workers, pre-queueing hints (2026-12-01)", "template-path-50-claim-workers-pre-queueing-hints-2026-12-01"},
		{"End to end: upstream's scheduler_perf DRA workloads — `make perf`", "end-to-end-upstreams-scheduler_perf-dra-workloads--make-perf"},
		{"2. Build: `make release VERSION=vX.Y.Z`", "2-build-make-release-versionvxyz"},
		{"Pod groups: upstream's `workloadresourceclaims` workloads (2026-12-02)", "pod-groups-upstreams-workloadresourceclaims-workloads-2026-12-02"},
		{"5.6.1 capacityFits(request, device, base, inProgress) (CC:46-106)", "561-capacityfitsrequest-device-base-inprogress-cc46-106"},
		{"The _quick_ **brown** fox", "the-quick-brown-fox"},
		{"See [the docs](docs/x.md) here", "see-the-docs-here"},
		{"Größe und Ärger", "größe-und-ärger"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

func TestRun(t *testing.T) {
	root := writeTree(t, map[string]string{
		"good.md": "# Good\n\n[self](#good) [other](bad.md)\n",
		"bad.md":  "# Bad\n\n[gone](gone.md) [heading](good.md#missing)\n",
	})
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{{
		name:     "a file whose links all resolve passes",
		args:     []string{"-C", root, "good.md"},
		wantCode: 0,
	}, {
		name:     "a broken link fails the check and is printed with its file and line",
		args:     []string{"-C", root, "good.md", "bad.md"},
		wantCode: 1,
		wantOut: "bad.md:3: link \"gone.md\": no such file or directory gone.md\n" +
			"bad.md:3: link \"good.md#missing\": no heading with anchor #missing in good.md\n",
		wantErr: "mdlinks: 2 broken links in 2 Markdown files\n",
	}, {
		name:     "a file that cannot be read fails the check",
		args:     []string{"-C", root, "missing.md"},
		wantCode: 1,
		wantErr:  "no such file",
	}, {
		name:     "an unknown flag is a bad command line",
		args:     []string{"-x"},
		wantCode: 2,
		wantErr:  "flag provided but not defined",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.wantCode, stderr.String())
			}
			if stdout.String() != tc.wantOut {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), tc.wantOut)
			}
			if !strings.Contains(stderr.String(), tc.wantErr) || (tc.wantErr == "" && stderr.Len() > 0) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tc.wantErr)
			}
		})
	}
}

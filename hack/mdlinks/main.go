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
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run checks the files named in args (or those git lists) and returns the
// exit code: 0 when every link resolves, 1 when one does not or a file
// cannot be read, 2 for a bad command line.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mdlinks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("C", ".", "the repository root: where git lists files and where /links start")
	verbose := fs.Bool("v", false, "print how many links each file has")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	files := fs.Args()
	if len(files) == 0 {
		var err error
		if files, err = markdownFiles(*root); err != nil {
			fmt.Fprintln(stderr, "mdlinks:", err)
			return 1
		}
	}
	var counts io.Writer
	if *verbose {
		counts = stdout
	}
	problems, err := check(*root, files, counts)
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mdlinks:", err)
		return 1
	}
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "mdlinks: %d broken links in %d Markdown files\n", len(problems), len(files))
		return 1
	}
	return 0
}

// markdownFiles lists the Markdown files git knows in root: tracked ones
// and untracked ones that .gitignore does not exclude.
func markdownFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.md")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var files []string
	seen := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// A file deleted from the work tree but still in the index is
		// listed too; it has no links to check.
		if f == "" || seen[f] {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			continue
		}
		seen[f] = true
		files = append(files, f)
	}
	sort.Strings(files)
	return files, nil
}

// problem is one link that does not resolve.
type problem struct {
	file   string // as given, relative to the root
	line   int
	target string // as written
	why    string
}

func (p problem) String() string {
	return fmt.Sprintf("%s:%d: link %q: %s", p.file, p.line, p.target, p.why)
}

// check reads each file (relative to root) and returns every link of
// theirs that does not resolve, in file and line order; with counts, it
// writes there how many links each file has.
func check(root string, files []string, counts io.Writer) ([]problem, error) {
	c := checker{root: root, anchors: map[string]map[string]bool{}}
	var problems []problem
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return problems, err
		}
		ls := links(src)
		if counts != nil {
			fmt.Fprintf(counts, "%s: %d links\n", f, len(ls))
		}
		for _, l := range ls {
			if why := c.resolve(f, l.target); why != "" {
				problems = append(problems, problem{file: f, line: l.line, target: l.target, why: why})
			}
		}
	}
	return problems, nil
}

type checker struct {
	root    string
	anchors map[string]map[string]bool // per Markdown file (path under root)
}

var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// resolve returns why target, written in file, does not resolve, or "".
func (c *checker) resolve(file, target string) string {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return "" // http:, https:, mailto:, ...: not a file
	}
	path, fragment, _ := strings.Cut(target, "#")
	path, _, _ = strings.Cut(path, "?")
	path, err := url.PathUnescape(path)
	if err != nil {
		return "bad escape in the path"
	}
	var rel string // the target under root
	switch {
	case path == "":
		rel = file
	case strings.HasPrefix(path, "/"):
		rel = filepath.Clean(strings.TrimPrefix(path, "/"))
	default:
		rel = filepath.Join(filepath.Dir(file), path)
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "points outside the repository"
	}
	info, err := os.Stat(filepath.Join(c.root, rel))
	if err != nil {
		return "no such file or directory " + filepath.ToSlash(rel)
	}
	if fragment == "" {
		return ""
	}
	if info.IsDir() {
		readme := filepath.Join(rel, "README.md")
		if _, err := os.Stat(filepath.Join(c.root, readme)); err != nil {
			return "a #fragment into a directory without a README.md"
		}
		rel = readme
	} else if ext := strings.ToLower(filepath.Ext(rel)); ext != ".md" && ext != ".markdown" {
		return "" // GitHub's own anchors (#L10) in code files
	}
	if f, err := url.PathUnescape(fragment); err == nil {
		fragment = f
	}
	anchors, err := c.anchorsOf(rel)
	if err != nil {
		return err.Error()
	}
	if !anchors[fragment] {
		return "no heading with anchor #" + fragment + " in " + filepath.ToSlash(rel)
	}
	return ""
}

func (c *checker) anchorsOf(rel string) (map[string]bool, error) {
	if a, ok := c.anchors[rel]; ok {
		return a, nil
	}
	src, err := os.ReadFile(filepath.Join(c.root, rel))
	if err != nil {
		return nil, err
	}
	a := anchors(src)
	c.anchors[rel] = a
	return a, nil
}

// link is one link target and the line (from 1) its link starts on.
type link struct {
	line   int
	target string
}

var (
	// [text](target "title"): the text may wrap across lines; the target
	// is <...> or has no spaces, and balanced parentheses.
	inlineLink = regexp.MustCompile(`\[[^\[\]]*\]\(\s*(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\)`)
	// [label]: target, at the start of a line; [^1]: is a footnote.
	referenceDefinition = regexp.MustCompile(`(?m)^ {0,3}\[([^\]\n]+)\]:[ \t]*(<[^<>\n]*>|\S+)`)
	// <a href="..."> and <img src="...">.
	htmlLink = regexp.MustCompile(`(?i)<(?:a|img)\b[^>]*?\s(?:href|src)\s*=\s*"([^"]*)"`)
)

// links returns every link target of a Markdown document, outside code.
func links(src []byte) []link {
	text := stripCode(src)
	var out []link
	add := func(offset int, target string) {
		target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
		out = append(out, link{line: 1 + bytes.Count(text[:offset], []byte("\n")), target: target})
	}
	for _, m := range inlineLink.FindAllSubmatchIndex(text, -1) {
		add(m[0], string(text[m[2]:m[3]]))
	}
	for _, m := range referenceDefinition.FindAllSubmatchIndex(text, -1) {
		if text[m[2]] != '^' {
			add(m[0], string(text[m[4]:m[5]]))
		}
	}
	for _, m := range htmlLink.FindAllSubmatchIndex(text, -1) {
		add(m[0], string(text[m[2]:m[3]]))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

// stripCode returns src with the contents of fenced code blocks, inline
// code spans and HTML comments replaced by spaces, newlines kept, so that
// offsets and line numbers stay those of src.
func stripCode(src []byte) []byte {
	text := append([]byte(nil), src...)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if text[i] != '\n' {
				text[i] = ' '
			}
		}
	}
	// Fenced code blocks: ``` or ~~~ (three or more), indented or not
	// (inside a list item), closed by a fence of the same character at
	// least as long, or by the end of the document.
	var fence string
	offset := 0
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		start := offset
		offset += len(line)
		trimmed := strings.TrimSpace(string(line))
		if fence == "" {
			if f := fenceOf(trimmed); f != "" {
				fence = f
				blank(start, offset)
			}
			continue
		}
		blank(start, offset)
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
			fence = ""
		}
	}
	// HTML comments.
	for i := 0; ; {
		open := bytes.Index(text[i:], []byte("<!--"))
		if open < 0 {
			break
		}
		open += i
		end := bytes.Index(text[open:], []byte("-->"))
		if end < 0 {
			blank(open, len(text))
			break
		}
		end += open + len("-->")
		blank(open, end)
		i = end
	}
	// Code spans: a run of backticks up to the next run of the same
	// length within the paragraph; an unmatched run is literal.
	for i := 0; i < len(text); {
		if text[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		end := closingRun(text, i+n, n)
		if end < 0 {
			i += n
			continue
		}
		blank(i, end)
		i = end
	}
	return text
}

// fenceOf returns the fence a line opens (``` or ~~~ or longer), or "".
func fenceOf(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
		if n >= 3 {
			// An info string may follow, but a ``` fence's may not hold a backtick.
			if c == "`" && strings.Contains(trimmed[n:], "`") {
				return ""
			}
			return strings.Repeat(c, n)
		}
	}
	return ""
}

var blankLine = regexp.MustCompile(`\n[ \t]*\n`)

// closingRun returns the offset just past the run of exactly n backticks
// that closes a code span opened before from, or -1 when the paragraph
// ends first.
func closingRun(text []byte, from, n int) int {
	limit := len(text)
	if loc := blankLine.FindIndex(text[from:]); loc != nil {
		limit = from + loc[0]
	}
	for i := from; i < limit; {
		if text[i] != '`' {
			i++
			continue
		}
		m := 0
		for i+m < limit && text[i+m] == '`' {
			m++
		}
		if m == n {
			return i + m
		}
		i += m
	}
	return -1
}

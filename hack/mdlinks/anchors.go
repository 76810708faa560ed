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
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// The anchors a Markdown document defines, for checking a link's
// #fragment: its headings' GitHub-style slugs and its HTML id and name
// attributes.

var (
	atxHeading    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextLine    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	htmlAnchor    = regexp.MustCompile(`(?i)<[a-z][a-z0-9]*\b[^>]*?\s(?:id|name)\s*=\s*"([^"]+)"`)
	listOrQuote   = regexp.MustCompile(`^ {0,3}(?:[-+*>]|\d+[.)])(?:\s|$)`)
	headingLink   = regexp.MustCompile(`!?\[([^\[\]]*)\]\([^()]*\)`)
	htmlTag       = regexp.MustCompile(`<[^<>]*>`)
	emphasisUnder = regexp.MustCompile(`(^|[^\p{L}\p{N}_])_+|_+([^\p{L}\p{N}_]|$)`)
)

// anchors returns the anchors a Markdown document defines: its headings'
// slugs, GitHub-style, and HTML id and name attributes.
func anchors(src []byte) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	addHeading := func(text string) {
		s := slug(text)
		if n := count[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		count[s]++
	}
	// Headings are looked for in the raw text with fenced blocks blanked
	// (code spans in a heading are part of its text).
	fenced := stripFences(src)
	lines := strings.Split(string(fenced), "\n")
	for i, line := range lines {
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			addHeading(m[2])
			continue
		}
		if i > 0 && setextLine.MatchString(line) {
			prev := lines[i-1]
			if strings.TrimSpace(prev) != "" && !atxHeading.MatchString(prev) && !listOrQuote.MatchString(prev) &&
				!strings.HasPrefix(strings.TrimSpace(prev), "|") && !setextLine.MatchString(prev) {
				addHeading(prev)
			}
		}
	}
	for _, m := range htmlAnchor.FindAllSubmatch(stripCode(src), -1) {
		out[string(m[1])] = true
	}
	return out
}

// stripFences blanks the lines of fenced code blocks only.
func stripFences(src []byte) []byte {
	var b bytes.Buffer
	var fence string
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		trimmed := strings.TrimSpace(string(line))
		inside := fence != ""
		switch {
		case !inside:
			if f := fenceOf(trimmed); f != "" {
				fence = f
				inside = true
			}
		case strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "":
			fence = ""
		}
		if inside {
			if bytes.HasSuffix(line, []byte("\n")) {
				b.WriteByte('\n')
			}
			continue
		}
		b.Write(line)
	}
	return b.Bytes()
}

// slug is GitHub's anchor for a heading: its text as rendered (links,
// images, HTML tags, code and emphasis markers removed), lowercased, with
// every character other than a letter, mark, digit, connector ('_'), '-'
// or space dropped and spaces made '-'.
func slug(heading string) string {
	text := strings.TrimSpace(heading)
	text = headingLink.ReplaceAllString(text, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	// _emphasis_ loses its underscores; snake_case keeps them.
	for {
		t := emphasisUnder.ReplaceAllString(text, "$1$2")
		if t == text {
			break
		}
		text = t
	}
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

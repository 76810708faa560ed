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

// Command mdlinks checks that every relative link in the repository's
// Markdown files resolves: to an existing file or directory and, for a
// link with a #fragment into a Markdown file, to a heading of that file.
// make verify runs it.
//
//	go run ./hack/mdlinks [-C DIR] [FILE.md...]
//
// Without FILEs it checks the Markdown files git lists in DIR (tracked,
// and untracked ones .gitignore does not exclude). Each broken link is one
// line, FILE:LINE: link "TARGET": why; the exit code is 1 when there is
// one, 2 for a bad command line.
//
// What counts as a link: inline links and images, [text](target),
// reference definitions, [label]: target, and the href and src of HTML
// <a> and <img> tags. Links with a scheme (http:, https:, mailto:, ...)
// are not checked, nor is anything in a fenced code block, an inline code
// span or an HTML comment. A target starting with / is relative to DIR,
// GitHub's repository root; a fragment into a directory is looked up in
// its README.md; a fragment into any other kind of file (a Go file's #L10)
// is not checked.
//
// Anchors follow GitHub's rules: a heading's text as rendered (code,
// emphasis and link syntax removed), lowercased, every character that is
// not a letter, a digit, a space, '-' or '_' dropped, spaces made '-'; a
// second heading with the same slug gets -1, a third -2. An HTML id or
// name attribute is an anchor too. Headings inside code blocks are none.
package main

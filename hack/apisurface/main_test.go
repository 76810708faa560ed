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
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestExportedCountsEveryKindOfDeclarationOnceAndSkipsTests(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", `package p

type Exported struct{ Field int }
type hidden struct{}
type Generic[T any] struct{}

func New() *Exported             { return nil }
func helper()                    {}
func (e *Exported) Method()      {}
func (e *Exported) method()      {}
func (h hidden) Method()         {}
func (g *Generic[T]) Get() T     { var t T; return t }

const (
	A, b = 1, 2
	C    = 3
)

var V, W int
`)
	write("a_test.go", `package p

func TestOnly() {}
`)
	got, err := exported(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A", "C", "Exported", "Exported.Method", "Generic", "Generic.Get", "New", "V", "W"}
	if !slices.Equal(got, want) {
		t.Errorf("exported() = %v, want %v", got, want)
	}
}

func TestReadLimitTakesTheFirstFieldAndRefusesAFileWithoutANumber(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          int
		wantErr       bool
	}{
		{"a number and the reason", "60\n\nwhy it is 60\n", 60, false},
		{"no number first", "sixty\n", 0, true},
		{"empty", "", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "limit")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := readLimit(path)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("readLimit(%q) = %d, %v; want %d, error %v", tc.content, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

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

// Command apisurface counts a package's exported identifiers and fails
// when they are more than a limit kept in the repository, so that a
// package's API grows only in a commit that says so.
//
//	go run ./hack/apisurface [-list] DIR LIMITFILE
//
// It counts, over DIR's non-test Go files, the exported functions, the
// exported methods of exported types, and the exported types, variables
// and constants (each name of a multi-name declaration once). LIMITFILE's
// first field is the limit; the rest of the file says why it is that
// number.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	list := flag.Bool("list", false, "print every exported identifier counted")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: apisurface [-list] DIR LIMITFILE")
		os.Exit(2)
	}
	dir, limitFile := flag.Arg(0), flag.Arg(1)
	names, err := exported(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	limit, err := readLimit(limitFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *list {
		for _, n := range names {
			fmt.Println(n)
		}
	}
	if len(names) > limit {
		fmt.Fprintf(os.Stderr, "%s exports %d identifiers, more than the %d of %s: remove some, or raise the limit there with the reason in the same commit (go run ./hack/apisurface -list %s %s lists them)\n",
			dir, len(names), limit, limitFile, dir, limitFile)
		os.Exit(1)
	}
	fmt.Printf("%s exports %d identifiers (limit %d)\n", dir, len(names), limit)
}

// exported returns the exported identifiers of the package in dir, sorted,
// methods as Type.Method.
func exported(dir string) ([]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		for _, decl := range f.Decls {
			names = append(names, declared(decl)...)
		}
	}
	slices.Sort(names)
	return names, nil
}

// declared returns the exported identifiers decl declares.
func declared(decl ast.Decl) []string {
	var names []string
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
		if recv := receiverType(d.Recv.List[0].Type); ast.IsExported(recv) {
			return []string{recv + "." + d.Name.Name}
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					names = append(names, s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// receiverType returns the name of a method's receiver type.
func receiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// readLimit returns the first field of the file at path as a number.
func readLimit(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0, fmt.Errorf("%s: no limit in it", path)
	}
	n, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0, fmt.Errorf("%s: the first field is the limit: %w", path, err)
	}
	return n, nil
}

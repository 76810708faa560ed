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

package metrics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// operationsDoc is where operators read what each metric means.
const operationsDoc = "../../../../docs/operations.md"

// TestEveryMetricIsDocumentedForOperators reads the metric names from
// this package's options (every Name in metrics.go) and requires each to
// have its row in docs/operations.md's metrics table.
func TestEveryMetricIsDocumentedForOperators(t *testing.T) {
	names := metricNames(t, "metrics.go")
	if len(names) < 20 {
		t.Fatalf("found %d metric names in metrics.go, want at least the 20 the package defines: %q", len(names), names)
	}
	doc, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		row := "| `" + subsystem + "_" + name + "` |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("%s has no row %q in its metrics table", operationsDoc, row)
		}
	}
}

// metricNames returns the string values of the Name fields of the
// composite literals in a Go file.
func metricNames(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		key, ok := kv.Key.(*ast.Ident)
		lit, isLit := kv.Value.(*ast.BasicLit)
		if ok && key.Name == "Name" && isLit && lit.Kind == token.STRING {
			name, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		return true
	})
	return names
}

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

package deviceconstraints

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics, that it refuses only with an
// *Error, and that what it accepts Marshal writes and Parse reads back the
// same, Marshal's text being a fixed point.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`[{"requests": ["gpu/accel", "nic/net"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}, {"requests": ["gpu"], "distinctAttribute": "gpu.example.com/uuid"}]`,
		`[{"matchAttribute": "example.com/numa", "requests": null}]`,
		`[{"requests": ["gpu/flex/big", "gpu/flex/small"], "distinctAttribute": "example.com/uuid"}]`,
		"- requests: [gpu/accel]\n  matchAttribute: example.com/root\n",
		`[{requests: [a], matchAttribute: b.c/d}]`,
		`[]`, ``, `null`, `{}`, `[1]`, `[{"requests":["a//b"],"matchAttribute":"x/y"}]`,
		`[{"matchAtribute":"a.com/b"}]`, `[{"matchAttribute":"a.com/b","distinctAttribute":"a.com/c"}]`,
		`[{"requests":["a","a"],"matchAttribute":"a.com/b"}]`, "[{\"matchAttribute\":\"a.com/b/\xff\"}]",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		constraints, err := Parse(value)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q) error %T is not an *Error: %v", value, err, err)
			}
			if constraints != nil {
				t.Fatalf("Parse(%q) returned constraints with its error", value)
			}
			return
		}
		if err := Validate(constraints); err != nil {
			t.Fatalf("Validate refuses what Parse(%q) accepted: %v", value, err)
		}
		text, err := Marshal(constraints)
		if err != nil {
			t.Fatalf("Marshal of Parse(%q): %v", value, err)
		}
		back, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(Marshal(Parse(%q))) = %v; Marshal wrote %q", value, err, text)
		}
		if !reflect.DeepEqual(back, constraints) {
			t.Fatalf("Parse(%q) = %v, but Parse(Marshal) = %v", value, constraints, back)
		}
		again, err := Marshal(back)
		if err != nil || again != text {
			t.Fatalf("Marshal is not stable: %q then %q, %v", text, again, err)
		}
	})
}

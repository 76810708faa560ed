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

package benchchart

import (
	"slices"
	"testing"
)

func TestAutoScale(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   Scale
	}{
		{"values spanning a factor of ten or more are drawn on a log axis", []float64{100, 1000, 5000}, Log},
		{"values within a factor of ten are drawn on a linear axis", []float64{100, 900}, Linear},
		{"a zero forces a linear axis", []float64{0, 10, 1e6}, Linear},
		{"a negative value forces a linear axis", []float64{-1, 10, 1e6}, Linear},
		{"no values give a linear axis", nil, Linear},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := AutoScale.resolve(tc.values); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAxisTicks(t *testing.T) {
	tests := []struct {
		name      string
		scale     Scale
		values    []float64
		wantLo    float64
		wantHi    float64
		wantTicks []float64
	}{
		{"a log axis spans whole decades, with 2 and 5 ticks when short", Log, []float64{150, 4000}, 100, 10000,
			[]float64{100, 200, 500, 1000, 2000, 5000, 10000}},
		{"a long log axis ticks only decades", Log, []float64{3, 40000}, 1, 100000,
			[]float64{1, 10, 100, 1000, 10000, 100000}},
		{"a log axis of one value covers one decade", Log, []float64{100}, 100, 1000,
			[]float64{100, 200, 500, 1000}},
		{"a linear axis starts at zero and uses 1-2-5 steps", Linear, []float64{3, 9.5}, 0, 10,
			[]float64{0, 2, 4, 6, 8, 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newAxis(tc.scale, tc.values, true)
			if a.lo != tc.wantLo || a.hi != tc.wantHi {
				t.Errorf("axis [%v, %v], want [%v, %v]", a.lo, a.hi, tc.wantLo, tc.wantHi)
			}
			if !slices.EqualFunc(a.ticks, tc.wantTicks, func(x, y float64) bool { return x/y > 0.999999 && x/y < 1.000001 || x == y }) {
				t.Errorf("ticks %v, want %v", a.ticks, tc.wantTicks)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"nanoseconds print without a fraction", FormatNanos(850), "850ns"},
		{"microseconds print three significant digits", FormatNanos(1234), "1.23µs"},
		{"milliseconds print three significant digits", FormatNanos(45_640_000), "45.6ms"},
		{"seconds print three significant digits", FormatNanos(2.1e9), "2.10s"},
		{"ticks drop trailing zeros", FormatNanosTick(1e7), "10ms"},
		{"ticks keep significant decimals", FormatNanosTick(2500), "2.5µs"},
		{"ticks in nanoseconds are unchanged", FormatNanosTick(500), "500ns"},
		{"thousands print with k", FormatCount(1200), "1.2k"},
		{"whole thousands print without a fraction", FormatCount(5000), "5k"},
		{"millions print with M", FormatCount(3.4e6), "3.4M"},
		{"small counts print as they are", FormatCount(950), "950"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

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
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FormatNanos formats a duration given in nanoseconds with three
// significant digits and a unit: "850ns", "1.23µs", "45.6ms", "2.10s".
func FormatNanos(ns float64) string {
	if !finite(ns) {
		return "-"
	}
	units := []struct {
		div  float64
		name string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}}
	for _, u := range units {
		if math.Abs(ns) >= u.div {
			return sig3(ns/u.div) + u.name
		}
	}
	return strconv.FormatFloat(math.Round(ns), 'f', -1, 64) + "ns"
}

// FormatNanosTick is FormatNanos without trailing zeros, for axis ticks:
// "1ms", "10ms", "2.5µs".
func FormatNanosTick(ns float64) string {
	s := FormatNanos(ns)
	i := strings.IndexFunc(s, func(r rune) bool { return r != '.' && (r < '0' || r > '9') && r != '-' })
	if i <= 0 {
		return s
	}
	return trimZeros(s[:i]) + s[i:]
}

// FormatCount formats a count compactly: "950", "1.2k", "5k", "3.4M".
func FormatCount(v float64) string {
	if !finite(v) {
		return "-"
	}
	switch a := math.Abs(v); {
	case a >= 1e6:
		return trimZeros(fmt.Sprintf("%.1f", v/1e6)) + "M"
	case a >= 1e3:
		return trimZeros(fmt.Sprintf("%.1f", v/1e3)) + "k"
	default:
		return trimZeros(fmt.Sprintf("%.1f", v))
	}
}

// sig3 prints v with three significant digits (at most two decimals).
func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// trimZeros drops trailing zeros of a decimal fraction ("1.0" -> "1").
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

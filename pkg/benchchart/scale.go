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
	"math"
)

// Scale is how an axis maps values to positions.
type Scale int

const (
	// AutoScale is Log when every value is positive and they span at
	// least a factor of 10, else Linear.
	AutoScale Scale = iota
	// Linear maps values proportionally.
	Linear
	// Log maps the base-10 logarithm of values proportionally; values
	// <= 0 cannot be drawn and are left out.
	Log
)

// String names the scale.
func (s Scale) String() string {
	switch s {
	case Linear:
		return "linear"
	case Log:
		return "log"
	default:
		return "auto"
	}
}

// resolve turns AutoScale into Linear or Log for the given values.
func (s Scale) resolve(values []float64) Scale {
	if s != AutoScale {
		return s
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if !finite(v) {
			continue
		}
		if v <= 0 {
			return Linear
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo > 0 && hi/lo >= 10 {
		return Log
	}
	return Linear
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// axis maps data values of one dimension onto [0, 1].
type axis struct {
	scale  Scale // Linear or Log
	lo, hi float64
	ticks  []float64
}

// drawable reports whether v can be placed on the axis.
func (a axis) drawable(v float64) bool {
	return finite(v) && (a.scale != Log || v > 0)
}

// pos returns v's relative position (0 at lo, 1 at hi).
func (a axis) pos(v float64) float64 {
	if a.scale == Log {
		return (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
	}
	return (v - a.lo) / (a.hi - a.lo)
}

// newAxis builds an axis covering values. fromZero makes a linear axis
// start at 0 when all values are positive (bar-less charts of latency
// read better that way).
func newAxis(s Scale, values []float64, fromZero bool) axis {
	s = s.resolve(values)
	var kept []float64
	for _, v := range values {
		if finite(v) && (s != Log || v > 0) {
			kept = append(kept, v)
		}
	}
	if s == Log {
		return logAxis(kept)
	}
	return linearAxis(kept, fromZero)
}

func bounds(values []float64) (lo, hi float64, ok bool) {
	if len(values) == 0 {
		return 0, 0, false
	}
	lo, hi = values[0], values[0]
	for _, v := range values[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi, true
}

// logAxis spans whole decades around the values; with few decades it
// also ticks at 2× and 5×.
func logAxis(values []float64) axis {
	lo, hi, ok := bounds(values)
	if !ok {
		lo, hi = 1, 10
	}
	loExp, hiExp := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if hiExp <= loExp {
		hiExp = loExp + 1
	}
	a := axis{scale: Log, lo: math.Pow(10, loExp), hi: math.Pow(10, hiExp)}
	multipliers := []float64{1}
	if hiExp-loExp <= 2 {
		multipliers = []float64{1, 2, 5}
	}
	for e := loExp; e <= hiExp; e++ {
		for _, m := range multipliers {
			if t := m * math.Pow(10, e); t <= a.hi*(1+1e-9) {
				a.ticks = append(a.ticks, t)
			}
		}
	}
	return a
}

// linearAxis spans the values with 1-2-5 steps, about five ticks.
func linearAxis(values []float64, fromZero bool) axis {
	lo, hi, ok := bounds(values)
	if !ok {
		lo, hi = 0, 1
	}
	if fromZero && lo > 0 {
		lo = 0
	}
	if hi == lo {
		pad := math.Max(math.Abs(hi)*0.1, 1)
		lo, hi = lo-pad, hi+pad
	}
	step := niceStep((hi - lo) / 5)
	a := axis{scale: Linear, lo: math.Floor(lo/step) * step, hi: math.Ceil(hi/step) * step}
	for t := a.lo; t <= a.hi+step/1e6; t += step {
		a.ticks = append(a.ticks, math.Round(t/step)*step)
	}
	return a
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || !finite(raw) {
		return 1
	}
	exp := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*exp >= raw {
			return m * exp
		}
	}
	return 10 * exp
}

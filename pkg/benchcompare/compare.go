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

package benchcompare

import (
	"fmt"
	"io"
	"math"
	"sort"
	"text/tabwriter"
)

// Row compares one metric of one benchmark between two reports.
type Row struct {
	Name, Unit string
	Old, New   []float64
	// OldMedian and NewMedian are the samples' medians; Ratio is
	// NewMedian / OldMedian (NaN when either side has no sample; +Inf or
	// NaN when the old median is 0, as a count can be).
	OldMedian, NewMedian, Ratio float64
	// P is the two-sided p-value of a Mann-Whitney U test of Old against
	// New; NaN when a side has fewer than minSamples samples.
	P float64
}

// minSamples is the fewest samples per side a p-value is computed for: with
// fewer, no difference can be significant at 0.05.
const minSamples = 4

// Compare pairs the metrics of old and new by benchmark name and unit, in
// new's order, then old's benchmarks that new lacks. Repeated results of a
// name (dra-bench --count) are its samples.
func Compare(old, new *Report) []Row {
	oldS, oldOrder := samples(old)
	newS, newOrder := samples(new)
	var rows []Row
	seen := map[string]bool{}
	for _, k := range append(newOrder, oldOrder...) {
		if seen[k.String()] {
			continue
		}
		seen[k.String()] = true
		r := Row{Name: k.name, Unit: k.unit, Old: oldS[k], New: newS[k]}
		r.OldMedian, r.NewMedian = median(r.Old), median(r.New)
		r.Ratio = r.NewMedian / r.OldMedian
		if len(r.Old) == 0 || len(r.New) == 0 {
			r.Ratio = math.NaN()
		}
		r.P = math.NaN()
		if len(r.Old) >= minSamples && len(r.New) >= minSamples {
			r.P = MannWhitneyP(r.Old, r.New)
		}
		rows = append(rows, r)
	}
	return rows
}

type key struct{ name, unit string }

func (k key) String() string { return k.name + " " + k.unit }

func samples(r *Report) (map[key][]float64, []key) {
	out := map[key][]float64{}
	var order []key
	for _, res := range r.Result {
		for _, m := range res.Metrics {
			k := key{res.Name, m.Unit}
			if _, ok := out[k]; !ok {
				order = append(order, k)
			}
			out[k] = append(out[k], m.Value)
		}
	}
	return out, order
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// WriteTable prints rows as a table: one line per benchmark and metric,
// with the medians, the change, and the p-value and sample counts, or "~"
// where the change is not significant at alpha 0.05.
func WriteTable(w io.Writer, old, new *Report, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "old: %s\nnew: %s\n", describe(old), describe(new))
	fmt.Fprintln(tw, "benchmark\tunit\told\tnew\tnew/old\tchange\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Name, r.Unit, formatValue(r.OldMedian, r.Unit, len(r.Old)), formatValue(r.NewMedian, r.Unit, len(r.New)), formatRatio(r.Ratio), change(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range append(old.Notes, new.Notes...) {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// describe names a report's build and machine.
func describe(r *Report) string {
	rev := r.Env.VCSRevision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if r.Env.VCSModified {
		rev += "+modified"
	}
	return fmt.Sprintf("%s %s (rev %s, %s, %s, %d CPUs, GOMAXPROCS %d)", r.Tool, r.Env.Version, firstNonEmpty(rev, "unknown"), r.Env.Go, firstNonEmpty(r.Env.CPUModel, r.Env.Platform), r.Env.CPUs, r.Env.GOMAXPROCS)
}

func formatValue(v float64, unit string, n int) string {
	if n == 0 || math.IsNaN(v) {
		return "-"
	}
	s := fmt.Sprintf("%.4g", v)
	if n > 1 {
		s += fmt.Sprintf(" (n=%d)", n)
	}
	return s
}

func formatRatio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	return fmt.Sprintf("%.3f", r)
}

// change is the signed change in percent, or "from 0" when the old median
// is 0 (a count such as UnitGangsPlaced), marked better or worse
// (HigherIsBetter), or "~" when repeated samples show no significant
// difference.
func change(r Row) string {
	if len(r.Old) == 0 || len(r.New) == 0 {
		return ""
	}
	var s string
	switch {
	case r.NewMedian == r.OldMedian:
		s = "+0.0%"
	case r.OldMedian == 0:
		s = "from 0"
	default:
		s = fmt.Sprintf("%+.1f%%", (r.Ratio-1)*100)
	}
	if !math.IsNaN(r.P) {
		if r.P >= 0.05 {
			return fmt.Sprintf("~ (p=%.3f)", r.P)
		}
		s += fmt.Sprintf(" (p=%.3f)", r.P)
	}
	switch {
	case r.NewMedian == r.OldMedian:
		return s
	case (r.NewMedian > r.OldMedian) == HigherIsBetter(r.Unit):
		return s + " better"
	default:
		return s + " worse"
	}
}

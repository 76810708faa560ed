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
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
)

// parsed is what a test reads back from an SVG document.
type parsed struct {
	panels []string
	series map[string][]int // series name -> marker count, per occurrence
	paths  int
	texts  []string
}

func parseSVG(t *testing.T, data []byte) parsed {
	t.Helper()
	p := parsed{series: map[string][]int{}}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var current string
	inText := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, data)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "g":
				for _, a := range el.Attr {
					switch a.Name.Local {
					case "data-title":
						p.panels = append(p.panels, a.Value)
					case "data-series":
						current = a.Value
						p.series[current] = append(p.series[current], 0)
					}
				}
			case "circle":
				n := p.series[current]
				n[len(n)-1]++
			case "path":
				p.paths++
			case "text":
				inText = true
			}
		case xml.EndElement:
			if el.Name.Local == "text" {
				inText = false
			}
		case xml.CharData:
			if inText {
				p.texts = append(p.texts, string(el))
			}
		}
	}
	return p
}

func TestWriteSVG(t *testing.T) {
	latency := Panel{
		Title: "h100 <half> & co", XLabel: "nodes", YLabel: "latency",
		FormatY: func(v float64) string { return FormatNanos(v) },
		Series: []Series{
			{Name: "ours per pod", Points: []Point{{X: 1000, Y: 2e5}, {X: 100, Y: 2e4}, {X: 5000, Y: 1e6}}},
			{Name: "upstream per pod", Dashed: true, Points: []Point{{X: 100, Y: 3e6}, {X: 1000, Y: 3e7, Label: `"quoted" <label>`}}},
		},
	}
	tests := []struct {
		name       string
		fig        Figure
		wantSeries map[string][]int
		wantPaths  int
		wantText   []string
	}{
		{
			name:       "two series in one panel are two groups with one marker per point",
			fig:        Figure{Title: "latency", Panels: []Panel{latency}},
			wantSeries: map[string][]int{"ours per pod": {3}, "upstream per pod": {2}},
			wantPaths:  2,
			wantText:   []string{"latency", "h100 <half> & co", "ours per pod", "nodes (log)"},
		},
		{
			name: "values that cannot be drawn on a log axis are left out, not written",
			fig: Figure{Title: "log", Panels: []Panel{{Title: "p", YScale: Log, Series: []Series{
				{Name: "s", Points: []Point{{X: 1, Y: 0}, {X: 2, Y: -3}, {X: 3, Y: math.NaN()}, {X: 4, Y: math.Inf(1)}, {X: 5, Y: 10}}},
			}}}},
			wantSeries: map[string][]int{"s": {1}},
			wantPaths:  1,
		},
		{
			name: "a series without drawable points has a legend but no line",
			fig: Figure{Title: "empty", Panels: []Panel{{Title: "p", Series: []Series{
				{Name: "nothing", Points: []Point{{X: math.NaN(), Y: 1}}},
			}}}},
			wantSeries: map[string][]int{"nothing": {0}},
			wantPaths:  0,
			wantText:   []string{"nothing"},
		},
		{
			name:       "panels in a grid keep their own series",
			fig:        Figure{Title: "grid", Subtitle: "2 cores", Columns: 1, Panels: []Panel{latency, latency}},
			wantSeries: map[string][]int{"ours per pod": {3, 3}, "upstream per pod": {2, 2}},
			wantPaths:  4,
			wantText:   []string{"2 cores"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteSVG(&buf, tc.fig); err != nil {
				t.Fatal(err)
			}
			got := parseSVG(t, buf.Bytes())
			if len(got.series) != len(tc.wantSeries) {
				t.Errorf("series %v, want %v", got.series, tc.wantSeries)
			}
			for name, want := range tc.wantSeries {
				if !slices.Equal(got.series[name], want) {
					t.Errorf("series %q has markers %v, want %v", name, got.series[name], want)
				}
			}
			if got.paths != tc.wantPaths {
				t.Errorf("%d lines, want %d", got.paths, tc.wantPaths)
			}
			if len(got.panels) != len(tc.fig.Panels) {
				t.Errorf("%d panels, want %d", len(got.panels), len(tc.fig.Panels))
			}
			for _, want := range tc.wantText {
				if !slices.Contains(got.texts, want) {
					t.Errorf("no text %q in %q", want, got.texts)
				}
			}
		})
	}
}

func TestWriteSVGIsDeterministicAndLeavesInputsAlone(t *testing.T) {
	pts := []Point{{X: 3, Y: 1}, {X: 1, Y: 2}}
	fig := Figure{Title: "t", Panels: []Panel{{Title: "p", Series: []Series{{Name: "s", Points: pts}}}}}
	var a, b bytes.Buffer
	if err := WriteSVG(&a, fig); err != nil {
		t.Fatal(err)
	}
	if err := WriteSVG(&b, fig); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two writes of the same figure differ")
	}
	if pts[0].X != 3 {
		t.Error("WriteSVG sorted the caller's points")
	}
}

func TestPointsAreJoinedInIncreasingX(t *testing.T) {
	fig := Figure{Title: "t", Panels: []Panel{{Title: "p", XScale: Linear, YScale: Linear, Series: []Series{
		{Name: "s", Points: []Point{{X: 10, Y: 1}, {X: 0, Y: 1}, {X: 5, Y: 1}}},
	}}}}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, fig); err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(buf.Bytes(), []byte(`<path d="`))
	d := buf.String()[i+len(`<path d="`):]
	d = d[:strings.IndexByte(d, '"')]
	var xs []float64
	for _, seg := range strings.Fields(d) {
		if seg[0] == 'M' || seg[0] == 'L' {
			var x float64
			if _, err := fmt.Sscan(seg[1:], &x); err != nil {
				t.Fatal(err)
			}
			xs = append(xs, x)
		}
	}
	if len(xs) != 3 || !slices.IsSorted(xs) {
		t.Errorf("path x coordinates %v, want 3 increasing", xs)
	}
}

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
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
)

// Figure is a titled grid of panels.
type Figure struct {
	// Title heads the figure; Subtitle (optional) is printed below it,
	// e.g. the machine and settings the numbers were measured with.
	Title, Subtitle string
	// Columns is the number of panels per row (<= 0: 2).
	Columns int
	// Panels are drawn left to right, top to bottom.
	Panels []Panel
}

// Panel is one line chart.
type Panel struct {
	// Title heads the panel; XLabel and YLabel name the axes.
	Title, XLabel, YLabel string
	// XScale and YScale choose linear or log axes (AutoScale by default).
	XScale, YScale Scale
	// FormatX and FormatY print tick values (nil: FormatCount).
	FormatX, FormatY func(float64) string
	// Series are drawn in order; the legend lists them in that order.
	Series []Series
}

// Series is one named line of points.
type Series struct {
	// Name labels the series in the legend and in data-series.
	Name string
	// Color is any SVG color; empty picks one from a fixed palette by the
	// series' position in the panel.
	Color string
	// Dashed draws the line dashed (e.g. to tell two metrics of one
	// implementation apart).
	Dashed bool
	// Points are joined in increasing X order.
	Points []Point
}

// Point is one measurement.
type Point struct {
	X, Y float64
	// Label is the marker's tooltip (empty: "x, y").
	Label string
}

// palette is colour-blind friendly (Okabe–Ito).
var palette = [...]string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"}

// Geometry of one panel, in SVG user units.
const (
	panelWidth   = 440
	plotLeft     = 72
	plotRight    = 16
	plotTop      = 34
	plotHeight   = 200
	xAxisSpace   = 46
	legendRow    = 16
	legendPerRow = 2
	figureTop    = 54
	figureMargin = 10
)

// WriteSVG writes the figure as a standalone SVG document.
func WriteSVG(w io.Writer, f Figure) error {
	cols := f.Columns
	if cols <= 0 {
		cols = 2
	}
	cols = max(1, min(cols, len(f.Panels)))
	panelHeight := 0
	for _, p := range f.Panels {
		panelHeight = max(panelHeight, p.height())
	}
	rows := (len(f.Panels) + cols - 1) / cols
	width := 2*figureMargin + cols*panelWidth
	height := figureTop + rows*panelHeight + figureMargin

	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", figureMargin, esc(f.Title))
	if f.Subtitle != "" {
		fmt.Fprintf(&b, `<text x="%d" y="42" fill="#555">%s</text>`+"\n", figureMargin, esc(f.Subtitle))
	}
	for i, p := range f.Panels {
		x := figureMargin + (i%cols)*panelWidth
		y := figureTop + (i/cols)*panelHeight
		p.write(&b, x, y)
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

func (p Panel) legendRows() int { return (len(p.Series) + legendPerRow - 1) / legendPerRow }

func (p Panel) height() int {
	return plotTop + plotHeight + xAxisSpace + p.legendRows()*legendRow + 8
}

// write draws the panel with its top left corner at (x0, y0).
func (p Panel) write(b *bytes.Buffer, x0, y0 int) {
	var xs, ys []float64
	for _, s := range p.Series {
		for _, pt := range s.Points {
			xs, ys = append(xs, pt.X), append(ys, pt.Y)
		}
	}
	xa, ya := newAxis(p.XScale, xs, false), newAxis(p.YScale, ys, true)
	fx, fy := orDefault(p.FormatX), orDefault(p.FormatY)
	left, top := float64(x0+plotLeft), float64(y0+plotTop)
	width := float64(panelWidth - plotLeft - plotRight)
	px := func(v float64) float64 { return left + xa.pos(v)*width }
	py := func(v float64) float64 { return top + (1-ya.pos(v))*plotHeight }

	fmt.Fprintf(b, `<g class="panel" data-title="%s">`+"\n", esc(p.Title))
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", x0+8, y0+18, esc(p.Title))
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="none" stroke="#999"/>`+"\n", left, top, width, plotHeight)
	for _, t := range ya.ticks {
		y := py(t)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", left, y, left+width, y)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-4, y+4, esc(fy(t)))
	}
	for _, t := range xa.ticks {
		x := px(t)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", x, top, x, top+plotHeight)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, top+plotHeight+14, esc(fx(t)))
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", left+width/2, top+plotHeight+30, esc(axisTitle(p.XLabel, xa)))
	fmt.Fprintf(b, `<text transform="translate(%d %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n",
		x0+14, top+plotHeight/2, esc(axisTitle(p.YLabel, ya)))

	for i, s := range p.Series {
		color := s.Color
		if color == "" {
			color = palette[i%len(palette)]
		}
		pts := slices.Clone(s.Points)
		slices.SortStableFunc(pts, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
		fmt.Fprintf(b, `<g class="series" data-series="%s">`+"\n", esc(s.Name))
		var path bytes.Buffer
		for _, pt := range pts {
			if !xa.drawable(pt.X) || !ya.drawable(pt.Y) {
				continue
			}
			cmd := "L"
			if path.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&path, "%s%.1f %.1f ", cmd, px(pt.X), py(pt.Y))
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		if path.Len() > 0 {
			fmt.Fprintf(b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", bytes.TrimSpace(path.Bytes()), esc(color), dash)
		}
		for _, pt := range pts {
			if !xa.drawable(pt.X) || !ya.drawable(pt.Y) {
				continue
			}
			label := pt.Label
			if label == "" {
				label = fmt.Sprintf("%s: %s, %s", s.Name, fx(pt.X), fy(pt.Y))
			}
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s</title></circle>`+"\n", px(pt.X), py(pt.Y), esc(color), esc(label))
		}
		lx := x0 + 8 + (i%legendPerRow)*(panelWidth/legendPerRow)
		ly := y0 + plotTop + plotHeight + xAxisSpace + (i/legendPerRow)*legendRow
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly-4, lx+22, ly-4, esc(color), dash)
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", lx+28, ly, esc(s.Name))
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n")
}

func axisTitle(label string, a axis) string {
	if a.scale == Log && label != "" {
		return label + " (log)"
	}
	return label
}

func orDefault(f func(float64) string) func(float64) string {
	if f == nil {
		return FormatCount
	}
	return f
}

// esc escapes text for element content and attribute values.
func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writes to a bytes.Buffer never fail
	return b.String()
}

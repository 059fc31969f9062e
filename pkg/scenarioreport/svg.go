/*
Copyright 2026 The Kubernetes Authors.

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

package scenarioreport

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// The plots SVG draws.
const (
	// PlotAllocation is CPU requested ÷ allocatable over time, one line per
	// variant, and memory as dashed lines.
	PlotAllocation = "allocation"
	// PlotPending is pending Pods over time, one line per variant.
	PlotPending = "pending"
)

// Plots are the plots SVG draws.
func Plots() []string { return []string{PlotAllocation, PlotPending} }

// The drawing's size and its plot area, in user units.
const (
	svgWidth, svgHeight = 720, 360
	plotLeft, plotRight = 64.0, 540.0
	plotTop, plotBottom = 48.0, 312.0
	ticks               = 5
)

// palette colours the variants in order (Okabe-Ito, readable by the colour
// blind), again from the first past the eighth.
var palette = [...]string{"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"}

// series is one line per variant of a plot.
type series struct {
	label  string
	dashed bool
	value  func(contract.ScenarioSample) float64
}

// SVG draws one of Plots over the run's (scaled) time, a line per variant
// and series, as a 720×360 SVG document; without samples, a document that
// says so.
func (r *Report) SVG(plot string) ([]byte, error) {
	var title, unit string
	var lines []series
	yMax := 0.0
	switch plot {
	case PlotAllocation:
		title, unit, yMax = "requested ÷ allocatable", "%", 100
		lines = []series{
			{label: "CPU", value: func(s contract.ScenarioSample) float64 { return float64(s.CPUPercent) }},
			{label: "memory", dashed: true, value: func(s contract.ScenarioSample) float64 { return float64(s.MemoryPercent) }},
		}
	case PlotPending:
		title, unit, yMax = "pending Pods", "Pods", 1
		lines = []series{{label: "pending", value: func(s contract.ScenarioSample) float64 { return float64(s.PodsPending) }}}
	default:
		return nil, fmt.Errorf("unknown plot %q: the plots are %s", plot, strings.Join(Plots(), ", "))
	}

	var w svgWriter
	fmt.Fprintf(&w.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		svgWidth, svgHeight, svgWidth, svgHeight)
	w.b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	w.text(plotLeft, 20, "start", `font-size="14"`, truncate(r.Namespace+"/"+r.Name, 60)+": "+title)

	var maxMillis int64
	sampled := false
	for _, v := range r.Variants {
		for _, s := range v.Samples {
			sampled = true
			maxMillis = max(maxMillis, s.ElapsedMilliseconds)
			for _, l := range lines {
				yMax = max(yMax, l.value(s))
			}
		}
	}
	if !sampled {
		w.text((plotLeft+plotRight)/2, (plotTop+plotBottom)/2, "middle", "", "no samples yet")
		w.b.WriteString("</svg>\n")
		return w.b.Bytes(), nil
	}

	// Axes: time in seconds up to two minutes, else in minutes.
	timeUnit, perUnit := "s", 1000.0
	if maxMillis > 120_000 {
		timeUnit, perUnit = "min", 60_000.0
	}
	xStep, xMax := axis(float64(maxMillis)/perUnit, false)
	yStep, yMax := axis(yMax, plot == PlotPending)
	x := func(ms int64) float64 { return plotLeft + float64(ms)/perUnit/xMax*(plotRight-plotLeft) }
	y := func(v float64) float64 { return plotBottom - v/yMax*(plotBottom-plotTop) }

	w.line(plotLeft, plotBottom, plotRight, plotBottom, `stroke="#000000"`)
	w.line(plotLeft, plotTop, plotLeft, plotBottom, `stroke="#000000"`)
	for i := 0; float64(i)*xStep <= xMax+xStep/1e6; i++ {
		t := float64(i) * xStep
		px := plotLeft + t/xMax*(plotRight-plotLeft)
		w.line(px, plotBottom, px, plotBottom+5, `stroke="#000000"`)
		w.text(px, plotBottom+18, "middle", "", number(t))
	}
	w.text((plotLeft+plotRight)/2, plotBottom+38, "middle", "", "time ("+timeUnit+")")
	for i := 0; float64(i)*yStep <= yMax+yStep/1e6; i++ {
		v := float64(i) * yStep
		py := y(v)
		w.line(plotLeft-5, py, plotLeft, py, `stroke="#000000"`)
		w.line(plotLeft, py, plotRight, py, `stroke="#e0e0e0"`)
		w.text(plotLeft-8, py+4, "end", "", number(v))
	}
	w.text(plotLeft, plotTop-10, "middle", "", unit)

	// Lines, then the legend: a colour per variant, a dash per series.
	legendStep := min(18, (svgHeight-plotTop-20)/float64(len(r.Variants)+len(lines)+1))
	for i, v := range r.Variants {
		colour := palette[i%len(palette)]
		for _, l := range lines {
			if len(v.Samples) == 0 {
				break
			}
			var pts []string
			for _, s := range v.Samples {
				pts = append(pts, coord(x(s.ElapsedMilliseconds))+","+coord(y(l.value(s))))
			}
			dash := ""
			if l.dashed {
				dash = ` stroke-dasharray="6 4"`
			}
			fmt.Fprintf(&w.b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", colour, dash, strings.Join(pts, " "))
		}
		ly := plotTop + 8 + float64(i)*legendStep
		w.line(plotRight+16, ly, plotRight+40, ly, `stroke="`+colour+`" stroke-width="3"`)
		w.text(plotRight+46, ly+4, "start", "", truncate(v.Name, 22))
	}
	if len(lines) > 1 {
		ly := plotTop + 8 + float64(len(r.Variants)+1)*legendStep
		for _, l := range lines {
			dash := ""
			if l.dashed {
				dash = ` stroke-dasharray="6 4"`
			}
			w.line(plotRight+16, ly, plotRight+40, ly, `stroke="#555555" stroke-width="2"`+dash)
			w.text(plotRight+46, ly+4, "start", "", l.label)
			ly += legendStep
		}
	}
	w.b.WriteString("</svg>\n")
	return w.b.Bytes(), nil
}

// axis is a tick step and the axis' end, a multiple of it, for values up
// to maxValue; whole steps for counts.
func axis(maxValue float64, whole bool) (step, end float64) {
	if maxValue <= 0 {
		maxValue = 1
	}
	raw := maxValue / ticks
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if whole {
		step = max(step, 1)
	}
	return step, math.Ceil(maxValue/step-1e-9) * step
}

// svgWriter writes SVG elements, escaping text.
type svgWriter struct{ b bytes.Buffer }

func (w *svgWriter) line(x1, y1, x2, y2 float64, attrs string) {
	fmt.Fprintf(&w.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" %s/>`+"\n", coord(x1), coord(y1), coord(x2), coord(y2), attrs)
}

func (w *svgWriter) text(x, y float64, anchor, attrs, s string) {
	fmt.Fprintf(&w.b, `<text x="%s" y="%s" text-anchor="%s" %s>`, coord(x), coord(y), anchor, attrs)
	_ = xml.EscapeText(&w.b, []byte(s)) // a bytes.Buffer does not fail
	w.b.WriteString("</text>\n")
}

// truncate shortens s to n runes, marking the cut.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func coord(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// number is a tick's label: no trailing zeros, no float noise.
func number(f float64) string { return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64) }

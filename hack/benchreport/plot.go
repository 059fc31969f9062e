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

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"math"
	"os"
	"strconv"
	"strings"
)

// plot is a line chart: named series of (x, y) points.
type plot struct {
	title, xLabel, yLabel string
	names                 []string // series in the order they came
	points                map[string][][2]float64
}

// readPlot reads a series file (test/framework.WriteSeries): a header line
// "#title<TAB>x label<TAB>y label", then "series<TAB>x<TAB>y" lines.
func readPlot(path string) (*plot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck
	p := &plot{points: map[string][][2]float64{}}
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		fields := strings.Split(s.Text(), "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("line %d: want 3 fields separated by tabs, got %d", n, len(fields))
		}
		if n == 1 {
			if !strings.HasPrefix(fields[0], "#") {
				return nil, fmt.Errorf("line 1: want the header #title, x label, y label")
			}
			p.title, p.xLabel, p.yLabel = fields[0][1:], fields[1], fields[2]
			continue
		}
		x, err1 := strconv.ParseFloat(fields[1], 64)
		y, err2 := strconv.ParseFloat(fields[2], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d: x and y must be numbers", n)
		}
		if _, ok := p.points[fields[0]]; !ok {
			p.names = append(p.names, fields[0])
		}
		p.points[fields[0]] = append(p.points[fields[0]], [2]float64{x, y})
	}
	return p, s.Err()
}

func plotFile(path string) (string, []byte, error) {
	p, err := readPlot(path)
	if err != nil {
		return "", nil, err
	}
	return p.title, p.svg(), nil
}

// ticks returns round values from 0 to at least max, about 5 of them.
func ticks(max float64) []float64 {
	if max <= 0 {
		max = 1
	}
	raw := max / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := 0.0; ; v += step {
		out = append(out, v)
		if v >= max {
			return out
		}
	}
}

// tick formats a tick's value without the float noise of its sum.
func tick(v float64) string { return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64) }

var colors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"}

// svg draws the plot with both axes from 0.
func (p *plot) svg() []byte {
	const width, height, left, right, top, bottom = 720.0, 400.0, 70.0, 20.0, 40.0, 50.0
	var maxX, maxY float64
	for _, pts := range p.points {
		for _, pt := range pts {
			maxX, maxY = math.Max(maxX, pt[0]), math.Max(maxY, pt[1])
		}
	}
	xt, yt := ticks(maxX), ticks(maxY)
	xMax, yMax := xt[len(xt)-1], yt[len(yt)-1]
	px := func(x float64) float64 { return left + x/xMax*(width-left-right) }
	py := func(y float64) float64 { return height - bottom - y/yMax*(height-top-bottom) }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%g" y="20" text-anchor="middle" font-size="14">%s</text>`+"\n", width/2, html.EscapeString(p.title))
	for _, x := range xt {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#ddd"/>`+"\n", px(x), top, px(x), height-bottom)
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle">%s</text>`+"\n", px(x), height-bottom+16, tick(x))
	}
	for _, y := range yt {
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/>`+"\n", left, py(y), width-right, py(y))
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", left-6, py(y), tick(y))
	}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="black"/>`+"\n", left, top, width-left-right, height-top-bottom)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`+"\n", (left+width-right)/2, height-12, html.EscapeString(p.xLabel))
	fmt.Fprintf(&b, `<text transform="translate(16 %g) rotate(-90)" text-anchor="middle">%s</text>`+"\n", (top+height-bottom)/2, html.EscapeString(p.yLabel))
	for i, name := range p.names {
		color := colors[i%len(colors)]
		var pts []string
		for _, pt := range p.points[name] {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(pt[0]), py(pt[1])))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", color, strings.Join(pts, " "))
		ly := height - bottom - 16 - float64(len(p.names)-1-i)*18 // bottom right: the lines rise away from it
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/>`+"\n", width-right-150, ly, width-right-126, ly, color)
		fmt.Fprintf(&b, `<text x="%g" y="%g" dominant-baseline="middle">%s</text>`+"\n", width-right-120, ly, html.EscapeString(name))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

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

// Command benchreport turns the output of go test -bench (on stdin) into
// the figures of `make bench`: one "name value unit" line per figure and
// per ratio on stdout, and a Markdown report (-out) with one table per
// benchmark, the budgets of docs/performance.md against what was measured, and a plot
// (SVG, next to the report) per series file a benchmark wrote to -dir.
//
// A benchmark compares contenders by reporting each one's figures as the
// unit "CONTENDER:METRIC" (test/framework.ReportContender); the ratios are
// those of every contender to each one before it, for the same metric.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// figure is one value a benchmark reported.
type figure struct {
	bench     string // benchmark name without the -GOMAXPROCS suffix
	contender string // "" when the figure is the benchmark's own
	metric    string
	value     float64
}

// parse reads the benchmark lines of go test output: name, iterations, then
// value/unit pairs. It leaves ns/op out when a benchmark reports figures of
// its own: its iterations are rounds or runs, not operations. go test
// prints a benchmark's name before it runs it (past its first iteration)
// and its figures after: a log line written meanwhile lands between the two,
// and the figures then start a line of their own.
func parse(r io.Reader) ([]figure, error) {
	var out []figure
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	pending := "" // a benchmark whose name came without its figures
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) > 0 && strings.HasPrefix(fields[0], "Benchmark") {
			pending = ""
			if len(fields) < 4 {
				continue
			}
			if _, err := strconv.Atoi(fields[1]); err != nil {
				pending = fields[0] // its name, then a log line
				continue
			}
		} else {
			// The figures of the benchmark named last, on their own line.
			if pending == "" || len(fields) < 3 || fields[2] != "ns/op" {
				continue
			}
			if _, err := strconv.Atoi(fields[0]); err != nil {
				continue
			}
			fields = append([]string{pending}, fields...)
			pending = ""
		}
		name := fields[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		var line []figure
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			f := figure{bench: name, metric: fields[i+1], value: v}
			if c, m, ok := strings.Cut(f.metric, ":"); ok {
				f.contender, f.metric = c, m
			}
			line = append(line, f)
		}
		if len(line) > 1 && line[0].metric == "ns/op" {
			line = line[1:]
		}
		out = append(out, line...)
	}
	return out, s.Err()
}

// table is one benchmark's figures: contenders and metrics in the order
// they came, values by contender and metric.
type table struct {
	bench      string
	contenders []string // "" for the benchmark's own figures
	metrics    []string
	values     map[[2]string]float64
}

func (t *table) value(contender, metric string) (float64, bool) {
	v, ok := t.values[[2]string{contender, metric}]
	return v, ok
}

// contenderOrder puts the contenders of each comparison in the order of
// docs/performance.md, the physical limit or the baseline first (go test prints a
// benchmark's figures sorted by unit); others follow in the order they came.
var contenderOrder = []string{"", "direct", "services-proxy", "sim-proxy", "hosted-proxy", "hosted-nodeport", "raw", "nodepool", "kwokctl", "stock", "sim-scheduler", "idle"}

func rank(contender string) int {
	for i, c := range contenderOrder {
		if c == contender {
			return i
		}
	}
	return len(contenderOrder)
}

// group sorts figures into tables, one per benchmark, in order.
func group(figs []figure) []*table {
	var out []*table
	byBench := map[string]*table{}
	for _, f := range figs {
		t := byBench[f.bench]
		if t == nil {
			t = &table{bench: f.bench, values: map[[2]string]float64{}}
			byBench[f.bench] = t
			out = append(out, t)
		}
		if !slices.Contains(t.contenders, f.contender) {
			t.contenders = append(t.contenders, f.contender)
		}
		if !slices.Contains(t.metrics, f.metric) {
			t.metrics = append(t.metrics, f.metric)
		}
		t.values[[2]string{f.contender, f.metric}] = f.value
	}
	for _, t := range out {
		slices.SortStableFunc(t.contenders, func(a, b string) int { return rank(a) - rank(b) })
	}
	return out
}

// ratio is one contender's figure over an earlier one's.
type ratio struct{ num, den string }

// ratios returns the pairs of contenders of t, each later one over each
// earlier one.
func (t *table) ratios() []ratio {
	var named []string
	for _, c := range t.contenders {
		if c != "" {
			named = append(named, c)
		}
	}
	var out []ratio
	for i := range named {
		for j := range i {
			out = append(out, ratio{named[i], named[j]})
		}
	}
	return out
}

func (r ratio) String() string { return r.num + "÷" + r.den }

func (t *table) ratio(r ratio, metric string) (float64, bool) {
	n, ok1 := t.value(r.num, metric)
	d, ok2 := t.value(r.den, metric)
	if !ok1 || !ok2 || d == 0 {
		return 0, false
	}
	return n / d, true
}

func format(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100 || v <= -100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10 || v <= -10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// lines writes the figures and ratios as "name value unit" lines.
func lines(w io.Writer, tables []*table) {
	for _, t := range tables {
		for _, c := range t.contenders {
			name := t.bench
			if c != "" {
				name += "/" + c
			}
			for _, m := range t.metrics {
				if v, ok := t.value(c, m); ok {
					fmt.Fprintf(w, "%s %s %s\n", name, format(v), m)
				}
			}
		}
		for _, r := range t.ratios() {
			for _, m := range t.metrics {
				if v, ok := t.ratio(r, m); ok {
					fmt.Fprintf(w, "%s/%s %.2f ×%s\n", t.bench, r, v, m)
				}
			}
		}
	}
}

// markdown writes a table per benchmark: a row per metric, a column per
// contender and per ratio.
func markdown(w io.Writer, tables []*table) {
	for _, t := range tables {
		fmt.Fprintf(w, "\n### %s\n\n", strings.TrimPrefix(t.bench, "Benchmark"))
		if d := descriptions[t.bench]; d != "" {
			fmt.Fprintf(w, "%s\n\n", d)
		}
		cols := []string{"figure"}
		for _, c := range t.contenders {
			if c == "" {
				c = "value"
			}
			cols = append(cols, c)
		}
		rs := t.ratios()
		for _, r := range rs {
			cols = append(cols, r.String())
		}
		fmt.Fprintf(w, "| %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)-1))
		for _, m := range t.metrics {
			row := []string{m}
			for _, c := range t.contenders {
				if v, ok := t.value(c, m); ok {
					row = append(row, format(v))
				} else {
					row = append(row, "")
				}
			}
			for _, r := range rs {
				if v, ok := t.ratio(r, m); ok {
					row = append(row, fmt.Sprintf("%.2f×", v))
				} else {
					row = append(row, "")
				}
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
		}
	}
}

func main() {
	out := flag.String("out", "", "write the Markdown report here")
	dir := flag.String("dir", "", "draw the *.series.tsv files of this directory as SVG plots next to them")
	cpus := flag.Int("cpus", runtime.NumCPU(), "the CPUs of the machine that ran the benchmarks")
	flag.Parse()
	if err := report(os.Stdin, os.Stdout, *out, *dir, *cpus); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func report(in io.Reader, stdout io.Writer, out, dir string, cpus int) error {
	figs, err := parse(in)
	if err != nil {
		return err
	}
	tables := group(figs)
	lines(stdout, tables)
	if out == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n## Budgets (docs/performance.md)\n\n")
	budgetTable(&b, run{tables: tables, cpus: cpus})
	b.WriteString("\n## Figures\n")
	markdown(&b, tables)
	if dir != "" {
		files, err := filepath.Glob(filepath.Join(dir, "*.series.tsv"))
		if err != nil {
			return err
		}
		if len(files) > 0 {
			b.WriteString("\n## Plots\n")
		}
		for _, f := range files {
			title, svg, err := plotFile(f)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			name := strings.TrimSuffix(filepath.Base(f), ".series.tsv") + ".svg"
			if err := os.WriteFile(filepath.Join(dir, name), svg, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(&b, "\n![%s](%s)\n", title, name)
		}
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

// Command benchreport turns the output of go test -bench (on stdin) into a
// Markdown table, one row per figure (name, value, unit), with each
// sub-benchmark's ratio to the first of its family for the same unit: the
// contenders of one comparison (e.g. BenchmarkProxyPaths/direct,
// /services-proxy, /sim-proxy) are sub-benchmarks of one benchmark. It
// prints the figures as "name value unit" lines too.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// figure is one value a benchmark reported.
type figure struct {
	name  string // benchmark name without the -GOMAXPROCS suffix
	value float64
	unit  string
}

// parse reads the benchmark lines of go test output: name, iterations, then
// value/unit pairs.
func parse(r io.Reader) ([]figure, error) {
	var out []figure
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue // a log line that starts with a benchmark's name
		}
		name := fields[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			out = append(out, figure{name: name, value: v, unit: fields[i+1]})
		}
	}
	return out, s.Err()
}

// ratios returns, per figure, its ratio to the first figure of the same
// family (the name up to the last "/") and unit, or "" for the first.
func ratios(figs []figure) []string {
	out := make([]string, len(figs))
	first := map[string]figure{}
	for i, f := range figs {
		family, _, sub := strings.Cut(f.name, "/")
		if !sub {
			continue
		}
		key := family + "\x00" + f.unit
		base, ok := first[key]
		if !ok {
			first[key] = f
			continue
		}
		if base.value != 0 {
			out[i] = fmt.Sprintf("%.2f× %s", f.value/base.value, strings.TrimPrefix(base.name, family+"/"))
		}
	}
	return out
}

func main() {
	figs, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rs := ratios(figs)
	var b strings.Builder
	b.WriteString("| name | value | unit | ratio |\n|---|---:|---|---|\n")
	for i, f := range figs {
		fmt.Printf("%s %g %s\n", f.name, f.value, f.unit)
		fmt.Fprintf(&b, "| %s | %g | %s | %s |\n", f.name, f.value, f.unit, rs[i])
	}
	if len(os.Args) > 1 {
		if err := os.WriteFile(os.Args[1], []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

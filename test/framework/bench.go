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

package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Benchmarks compare contenders (ways of doing the same thing) within one
// run, in rounds that alternate them so that the machine's drift hits them
// all alike. A figure of a contender is reported as the unit
// "CONTENDER:METRIC" (e.g. "direct:p50-ms"); hack/benchreport groups them
// into one table per benchmark with their ratios.

// BenchDirEnv names the directory where benchmarks write series for plots
// (hack/bench.sh sets it); unset, they write none.
const BenchDirEnv = "SIM_BENCH_DIR"

// ReportContender reports one figure of one contender.
func ReportContender(b *testing.B, contender string, value float64, unit string) {
	b.Helper()
	b.ReportMetric(value, contender+":"+unit)
}

// Contender is one way of making the request a benchmark measures. Do is
// called by client (0..clients-1) and returns how many bytes of answer it
// read.
type Contender struct {
	Name string
	Do   func(ctx context.Context, client int) (int64, error)
}

// Measured is what Alternate measured of one contender.
type Measured struct {
	Name      string
	Latencies []time.Duration // sorted
	Elapsed   time.Duration   // wall time of its batches, all clients together
	Bytes     int64
}

// Quantile returns the latency at q (0..1).
func (m Measured) Quantile(q float64) time.Duration {
	if len(m.Latencies) == 0 {
		return 0
	}
	return m.Latencies[int(q*float64(len(m.Latencies)-1))]
}

// Alternate runs a round per b.Loop iteration (-benchtime 5x: 5 rounds);
// in each, every contender (in an order that rotates from round to round)
// makes perRound requests from clients concurrent clients, one contender
// after the other. It fails the benchmark on any error.
func Alternate(b *testing.B, clients, perRound int, contenders []Contender) []Measured {
	b.Helper()
	out := make([]Measured, len(contenders))
	for i, c := range contenders {
		out[i].Name = c.Name
	}
	ctx := b.Context()
	round := 0
	for b.Loop() {
		for k := range contenders {
			i := (round + k) % len(contenders)
			latencies, bytes, elapsed, err := batch(ctx, clients, perRound, contenders[i].Do)
			if err != nil {
				b.Fatalf("%s: %v", contenders[i].Name, err)
			}
			out[i].Latencies = append(out[i].Latencies, latencies...)
			out[i].Bytes += bytes
			out[i].Elapsed += elapsed
		}
		round++
	}
	for i := range out {
		slices.Sort(out[i].Latencies)
	}
	return out
}

// batch makes n requests from clients goroutines.
func batch(ctx context.Context, clients, n int, do func(ctx context.Context, client int) (int64, error)) ([]time.Duration, int64, time.Duration, error) {
	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, n)
		total     int64
		firstErr  error
		next      = make(chan struct{}, n)
		wg        sync.WaitGroup
	)
	for range n {
		next <- struct{}{}
	}
	close(next)
	start := time.Now()
	for client := range clients {
		wg.Go(func() {
			for range next {
				t := time.Now()
				bytes, err := do(ctx, client)
				d := time.Since(t)
				mu.Lock()
				latencies = append(latencies, d)
				total += bytes
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return latencies, total, time.Since(start), firstErr
}

// Series is one line of a plot: points (x, y) in order of x.
type Series struct {
	Name   string
	Points [][2]float64
}

// WriteSeries writes a plot's series to NAME.series.tsv in the directory
// of SIM_BENCH_DIR, for hack/benchreport to draw: a header line
// "#title<TAB>x label<TAB>y label", then "series<TAB>x<TAB>y" lines.
func WriteSeries(tb testing.TB, name, title, xLabel, yLabel string, series []Series) {
	tb.Helper()
	dir := os.Getenv(BenchDirEnv)
	if dir == "" {
		return
	}
	var s strings.Builder
	fmt.Fprintf(&s, "#%s\t%s\t%s\n", title, xLabel, yLabel)
	for _, line := range series {
		for _, p := range line.Points {
			fmt.Fprintf(&s, "%s\t%g\t%g\n", line.Name, p[0], p[1])
		}
	}
	if err := os.WriteFile(filepath.Join(dir, name+".series.tsv"), []byte(s.String()), 0o644); err != nil {
		tb.Errorf("writing the series of %s: %v", name, err)
	}
}

// BenchIdle is how long a benchmark lets what it measures idle before
// reading its memory: SIM_BENCH_IDLE if set, else def.
func BenchIdle(b *testing.B, def time.Duration) time.Duration {
	b.Helper()
	v := os.Getenv("SIM_BENCH_IDLE")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.Fatalf("SIM_BENCH_IDLE=%q: %v", v, err)
	}
	return d
}

// BenchNodes is how many Nodes the many-Node benchmarks make:
// SIM_BENCH_NODES if set (e.g. fewer for a quick run), else 5000.
func BenchNodes(b *testing.B) int {
	b.Helper()
	return BenchCount(b, "SIM_BENCH_NODES", 5000, 1)
}

// BenchCount is a count a benchmark takes from the environment variable
// env if set, else def; one below least fails the benchmark.
func BenchCount(b *testing.B, env string, def, least int) int {
	b.Helper()
	return BenchCounts(b, env, []int{def}, least)[0]
}

// BenchCounts is BenchCount for a comma-separated list of counts, e.g.
// sizes to measure one after the other.
func BenchCounts(b *testing.B, env string, def []int, least int) []int {
	b.Helper()
	v := os.Getenv(env)
	if v == "" {
		return def
	}
	var counts []int
	for _, field := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < least {
			b.Fatalf("%s=%q: want numbers of at least %d, comma-separated", env, v, least)
		}
		counts = append(counts, n)
	}
	return counts
}

// Median is the middle of xs, or the mean of its two middle values.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MsPer is d in milliseconds per one of n, e.g. CPU time per Pod.
func MsPer(d time.Duration, n int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(n)
}

// MiB is bytes in MiB.
func MiB(bytes int64) float64 { return float64(bytes) / (1 << 20) }

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
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const output = `goos: linux
BenchmarkProxyGet-2         	     5	   1000000 ns/op	         1.00 direct:p50-ms	         2.00 services-proxy:p50-ms	         1.50 sim-proxy:p50-ms
BenchmarkNodesToReady-2   	I1203 03:44:29.962630   20418 reflector.go:664] "Warning: watch ended with error"
I1203 03:44:30.000000   20418 converge.go:92] "Converging" nodes=0 desired=5000
       2	1000000 ns/op	         4000 kwokctl:nodes/s	         20000 nodepool:nodes/s	         16000 raw:nodes/s
BenchmarkListSimulators-2 log line
BenchmarkListSimulators-2            	     100	    500000 ns/op	        40.0 p50-ms	 120 sim-apiserver-rss-MiB
BenchmarkSimulatorPod-2   	     5	   1000000 ns/op	         2.50 create-to-available-median-s	       510 idle:rss-total-MiB	       240 idle:working-set-MiB	       230 second-pod-working-set-MiB
BenchmarkSchedulingThroughput-2 	     3	   1000000 ns/op	         0.700 ratio	       170 sim-scheduler:pods/s	       200 stock:pods/s
BenchmarkOld-2            	     100	    500000 ns/op
PASS
`

func TestRun(t *testing.T) {
	dir := t.TempDir()
	series := "#Nodes Ready\tseconds\tNodes\nnodepool\t0\t0\nnodepool\t2\t5000\nraw\t0\t0\nraw\t4\t5000\n"
	if err := os.WriteFile(filepath.Join(dir, "ready.series.tsv"), []byte(series), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	report := filepath.Join(dir, "report.md")
	if err := run(strings.NewReader(output), &stdout, report, dir); err != nil {
		t.Fatal(err)
	}
	want := `BenchmarkProxyGet/direct 1 p50-ms
BenchmarkProxyGet/services-proxy 2 p50-ms
BenchmarkProxyGet/sim-proxy 1.5 p50-ms
BenchmarkProxyGet/services-proxy÷direct 2.00 ×p50-ms
BenchmarkProxyGet/sim-proxy÷direct 1.50 ×p50-ms
BenchmarkProxyGet/sim-proxy÷services-proxy 0.75 ×p50-ms
BenchmarkNodesToReady/raw 16000 nodes/s
BenchmarkNodesToReady/nodepool 20000 nodes/s
BenchmarkNodesToReady/kwokctl 4000 nodes/s
BenchmarkNodesToReady/nodepool÷raw 1.25 ×nodes/s
BenchmarkNodesToReady/kwokctl÷raw 0.25 ×nodes/s
BenchmarkNodesToReady/kwokctl÷nodepool 0.20 ×nodes/s
BenchmarkListSimulators 40.0 p50-ms
BenchmarkListSimulators 120 sim-apiserver-rss-MiB
BenchmarkSimulatorPod 2.5 create-to-available-median-s
BenchmarkSimulatorPod 230 second-pod-working-set-MiB
BenchmarkSimulatorPod/idle 510 rss-total-MiB
BenchmarkSimulatorPod/idle 240 working-set-MiB
BenchmarkSchedulingThroughput 0.7 ratio
BenchmarkSchedulingThroughput/stock 200 pods/s
BenchmarkSchedulingThroughput/sim-scheduler 170 pods/s
BenchmarkSchedulingThroughput/sim-scheduler÷stock 0.85 ×pods/s
BenchmarkOld 500000 ns/op
`
	if diff := cmp.Diff(want, stdout.String()); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| proxy, small GET p50 ≤ 1.0× the host's services/proxy | 0.75× | yes |",
		"| 100 simulators: list p50 ≤ 50 ms | 40.0 p50-ms | yes |",
		"| simulator Pod RSS idle ≤ 300 MiB | 510 rss-total-MiB | **no** |",
		"| simulator Pod working set idle (as `kubectl top`) ≤ 150 MiB | 240 working-set-MiB | **no** |",
		"| second-pod-working-set-MiB | 230 |  |",
		"| 100 simulators: sim-apiserver RSS ≤ 150 MiB | 120 sim-apiserver-rss-MiB | yes |",
		"| NodePool ≥ 5× the rate of kwokctl scale node | 5.00× | yes |",
		"| NodePool, 5,000 Nodes to Ready ≥ 0.9× the rate of a raw 32-worker loop | 1.25× | yes |",
		// The rounds' paired ratio, not the ratio of the medians (0.85).
		"| scheduling with per-plugin results ≥ 0.8× the stock kube-scheduler's pods/s | 0.70× | **no** |",
		"| figure | direct | services-proxy | sim-proxy | services-proxy÷direct | sim-proxy÷direct | sim-proxy÷services-proxy |",
		"| p50-ms | 1 | 2 | 1.5 | 2.00× | 1.50× | 0.75× |",
		"| figure | value |",
		"![Nodes Ready](ready.svg)",
	} {
		if !strings.Contains(string(md), s) {
			t.Errorf("the report lacks %q:\n%s", s, md)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "ready.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<polyline", ">nodepool<", ">raw<", ">5000<"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("the plot lacks %q:\n%s", s, svg)
		}
	}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		max  float64
		want []float64
	}{
		{5000, []float64{0, 1000, 2000, 3000, 4000, 5000}},
		{37, []float64{0, 10, 20, 30, 40}},
		{0.8, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8}},
	} {
		if diff := cmp.Diff(tc.want, ticks(tc.max)); diff != "" {
			t.Errorf("ticks(%g) (-want +got):\n%s", tc.max, diff)
		}
	}
}

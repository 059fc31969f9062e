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
       2	1000000 ns/op	         4000 kwokctl:nodes/s	         20000 nodepool:nodes/s	         16000 raw:nodes/s	         12.0 kwokctl:cpu-ms/node	         3.00 nodepool:cpu-ms/node
BenchmarkListSimulators-2 log line
BenchmarkListSimulators-2            	     100	    500000 ns/op	        40.0 p50-ms	 120 sim-apiserver-rss-MiB
BenchmarkSimulatorPod-2   	     5	   1000000 ns/op	         2.50 create-to-available-median-s	       510 idle:rss-total-MiB	       240 idle:working-set-MiB	       230 second-pod-working-set-MiB	 1.00 start-containers-running-median-s	 2.40 start-available-median-s	 60.0 idle:rss-etcd-MiB	 400 idle:rss-sim-control-plane-MiB	 50.0 idle:rss-simulator-MiB	 200 idle:anon-total-MiB	 300 idle:file-total-MiB
BenchmarkScenarioReplay-2 	     1	   1000000 ns/op	 23900 lag-max-ms	 147 cpu-total-s	 70.0 wall-s
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
	reportFile := filepath.Join(dir, "report.md")
	if err := report(strings.NewReader(output), &stdout, reportFile, dir, 2); err != nil {
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
BenchmarkNodesToReady/nodepool 3 cpu-ms/node
BenchmarkNodesToReady/kwokctl 4000 nodes/s
BenchmarkNodesToReady/kwokctl 12.0 cpu-ms/node
BenchmarkNodesToReady/nodepool÷raw 1.25 ×nodes/s
BenchmarkNodesToReady/kwokctl÷raw 0.25 ×nodes/s
BenchmarkNodesToReady/kwokctl÷nodepool 0.20 ×nodes/s
BenchmarkNodesToReady/kwokctl÷nodepool 4.00 ×cpu-ms/node
BenchmarkListSimulators 40.0 p50-ms
BenchmarkListSimulators 120 sim-apiserver-rss-MiB
BenchmarkSimulatorPod 2.5 create-to-available-median-s
BenchmarkSimulatorPod 230 second-pod-working-set-MiB
BenchmarkSimulatorPod 1 start-containers-running-median-s
BenchmarkSimulatorPod 2.4 start-available-median-s
BenchmarkSimulatorPod/idle 510 rss-total-MiB
BenchmarkSimulatorPod/idle 240 working-set-MiB
BenchmarkSimulatorPod/idle 60.0 rss-etcd-MiB
BenchmarkSimulatorPod/idle 400 rss-sim-control-plane-MiB
BenchmarkSimulatorPod/idle 50.0 rss-simulator-MiB
BenchmarkSimulatorPod/idle 200 anon-total-MiB
BenchmarkSimulatorPod/idle 300 file-total-MiB
BenchmarkScenarioReplay 23900 lag-max-ms
BenchmarkScenarioReplay 147 cpu-total-s
BenchmarkScenarioReplay 70.0 wall-s
BenchmarkSchedulingThroughput 0.7 ratio
BenchmarkSchedulingThroughput/stock 200 pods/s
BenchmarkSchedulingThroughput/sim-scheduler 170 pods/s
BenchmarkSchedulingThroughput/sim-scheduler÷stock 0.85 ×pods/s
BenchmarkOld 500000 ns/op
`
	if diff := cmp.Diff(want, stdout.String()); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
	md, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| proxy, small GET p50 ≤ 1.0× the host's services/proxy | 0.75× | yes |  |",
		"| 100 simulators: list p50 ≤ 50 ms | 40.0 p50-ms | yes |  |",
		// Each program's RSS, largest first, the total left out.
		"| simulator Pod RSS idle ≤ 300 MiB | 510 rss-total-MiB | **no** | RSS by program, MiB: sim-control-plane 400, etcd 60.0, simulator 50.0; " +
			"in all 200 anonymous and 300 file-backed (the binaries, shared by the node's simulators) |",
		// A budget missed, but none of the run's figures says why.
		"| simulator Pod working set idle (as `kubectl top`) ≤ 150 MiB | 240 working-set-MiB | **no** | no figure of this run says |",
		"| simulator create → Available ≤ 1.5 s (median) | 2.5 create-to-available-median-s | **no** | seconds after the create (medians): containers-running 1, available 2.4 |",
		"| second-pod-working-set-MiB | 230 |  |",
		"| 100 simulators: sim-apiserver RSS ≤ 150 MiB | 120 sim-apiserver-rss-MiB | yes |  |",
		"| NodePool ≥ 5× the rate of kwokctl scale node | 5.00× | yes |  |",
		"| NodePool, 5,000 Nodes to Ready ≥ 0.9× the rate of a raw 32-worker loop | 1.25× | yes |  |",
		// The rounds' paired ratio, not the ratio of the medians (0.85).
		"| scheduling with per-plugin results ≥ 0.8× the stock kube-scheduler's pods/s | 0.70× | **no** | no figure of this run says |",
		"| scenario replay at 60×: each event within 100 ms of its scaled time (max lag) | 23900 lag-max-ms | **no** | 147 CPU-seconds in 70.0 s: 2.10 CPUs busy, of this machine's 2 |",
		"| 20,000 Nodes of a NodePool Ready ≤ 40 s | not measured | | |",
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

// TestBudgetReasons: each budget missed says where its cost went, from the
// same run's figures.
func TestBudgetReasons(t *testing.T) {
	const missed = `BenchmarkNodesToReady-2 	 2	 1 ns/op	 400 kwokctl:nodes/s	 1600 nodepool:nodes/s	 12.0 kwokctl:cpu-ms/node	 3.00 nodepool:cpu-ms/node
BenchmarkScale-2 	 1	 1 ns/op	 50.0 nodes-20000:ready-s	 4.00 nodes-20000:nodepool-over-kwokctl	 2.50 nodes-20000:nodepool-cpu-ms/node	 11.0 nodes-20000:kwokctl-cpu-ms/node	 0.800 nodes-20000:scheduling-ratio	 25.0 nodes-20000:sim-scheduler-cpu-ms/pod	 20.0 nodes-20000:stock-cpu-ms/pod
BenchmarkDensity-2 	 1	 1 ns/op	 30.0 idle-millicores-per-simulator	 1500 machine-millicores-total	 8.00 idle-millicores-etcd-per-simulator	 22.0 idle-millicores-sim-control-plane-per-simulator
BenchmarkSchedulingThroughput-2 	 3	 1 ns/op	 0.700 ratio	 3.50 sim-scheduler:scheduler-cpu-ms/pod	 2.50 stock:scheduler-cpu-ms/pod	 3.60 sim-scheduler:control-plane-cpu-ms/pod	 3.40 stock:control-plane-cpu-ms/pod
`
	figs, err := parse(strings.NewReader(missed))
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	budgetTable(&md, run{tables: group(figs), cpus: 2})
	for _, s := range []string{
		"| NodePool ≥ 5× the rate of kwokctl scale node | 4.00× | **no** | the simulator's CPU per Node: NodePool 3 ms, kwokctl 12.0 ms; with its CPUs busy, a rate 4.00× the other's at most |",
		"| 20,000 Nodes of a NodePool Ready ≤ 40 s | 50.0 ready-s | **no** | the simulator's CPU per Node 2.5 ms: 50.0 CPU-seconds for 20000 Nodes, 25.0 s at least on this machine's 2 CPUs |",
		"| NodePool ≥ 5× the rate of kwokctl scale node at 20,000 Nodes | 4.00× | **no** | the simulator's CPU per Node: NodePool 2.5 ms, kwokctl 11.0 ms; with its CPUs busy, a rate 4.40× the other's at most |",
		"| scheduling with per-plugin results among 20,000 Nodes ≥ 0.9× the stock kube-scheduler's pods/s | 0.80× | **no** | CPU per Pod, the scheduler's and the simulator's: sim-scheduler 25.0 ms, stock 20.0 ms; with the CPUs busy, 0.80× the stock's rate at most |",
		"| 40 idle simulators on one node: ≤ 10 millicores each | 30.0 idle-millicores-per-simulator | **no** | millicores each by program: sim-control-plane 22.0, etcd 8; the machine's in all 1500 of 2000 |",
		"| scheduling with per-plugin results ≥ 0.8× the stock kube-scheduler's pods/s | 0.70× | **no** | CPU ms per Pod, scheduler: sim-scheduler 3.5, stock 2.5; control-plane: sim-scheduler 3.6, stock 3.4 |",
	} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the budgets lack %q:\n%s", s, md.String())
		}
	}
}

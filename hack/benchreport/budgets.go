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
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// descriptions say what each benchmark of make bench compares.
var descriptions = map[string]string{
	"BenchmarkProxyGet": "A small GET (a Namespace) inside a simulator from 8 clients at once, contenders alternating in rounds: " +
		"direct to the Pod IP, the host's services/proxy to the simulator's Service, and simulators/NAME/proxy.",
	"BenchmarkListNodes/json":     "LIST of 1,000 Nodes as JSON from 8 clients at once, same three paths.",
	"BenchmarkListNodes/protobuf": "LIST of 1,000 Nodes as protobuf from 8 clients at once, same three paths.",
	"BenchmarkWatchLatency":       "From a ConfigMap's create (direct) until a watcher on each path sees it.",
	"BenchmarkNodesToReady": "5,000 Nodes to Ready, each contender against a fresh simulator: a NodePool, " +
		"a raw 32-worker protobuf create loop, `kwokctl scale node --replicas 5000`.",
	"BenchmarkSchedulingThroughput": "1,000 Pods on 5,000 Nodes: sim-scheduler (records every plugin's results) vs the stock kube-scheduler.",
	"BenchmarkSimulatorPod": "Simulators created one after the other: create → Available; then the last one's Pod's memory, " +
		"idle (beside two more simulators, after a minute) and with 5,000 Ready Nodes: RSS and its anonymous part per program; " +
		"RSS, anonymous, file-backed (the binaries' page cache, shared by every simulator Pod of the node) and private in all; " +
		"the working set of its containers as the kubelet and `kubectl top` report it, and their cgroups' anonymous and page cache charges. " +
		"second-pod-* and third-pod-*: the working set and private memory of the two more, what each further simulator adds to a node. " +
		"idle-separate: the same figures of a fourth simulator beside them whose control plane is four processes (SIMULATOR_SHARED_RUNTIME=false; as shipped it is one, sim-control-plane).",
	"BenchmarkStartToReady": "A simulator as processes on this machine, without a node: start → ready, then, idle a minute, the RSS and its anonymous part of each program " +
		"and in all (its etcd included) and the CPU each used over the idle time's second half. Contenders: shared (kube-apiserver, kube-controller-manager, " +
		"kwok and sim-scheduler in one process, sim-control-plane, as shipped) and separate (the four each a process, SIMULATOR_SHARED_RUNTIME=false).",
	"BenchmarkDensity": "40 simulators on the one node of the machine, all Available, idle: their summed CPU (their containers' cgroups, over 30 s) " +
		"and working set, in all and per simulator; then create → Available of one more while the node holds the 39 others.",
	"BenchmarkListSimulators": "100 simulators: listing them in all namespaces as `kubectl get simulators -A` does (Table), " +
		"and sim-apiserver's RSS.",
	"BenchmarkWebView": "The web view (simulators/NAME/ui/) in Chromium through `kubectl proxy` over 5,000 Nodes, the page loaded afresh each round, " +
		"its own marks: nodes-draw (the Nodes' list arrived → the grid drawn), nodes-list (that list's fetch through the host), " +
		"result-open (a pending Pod's full result asked for → its table drawn) and result-render (the drawing alone); medians of the rounds.",
	"BenchmarkKubectlSimWhy": "`kubectl sim why` (the plugin, run by kubectl) on a Pod that fits on none of 5,000 Nodes: " +
		"the table (from the full result's summary) and -o json (the full result, every node × plugin), one of each per round; " +
		"the median and slowest round, and the full result's size.",
	"BenchmarkScenarioReplay": "A trace of one hour, 5,000 Pods arriving and leaving (10,000 events), replayed at 60× by the scenario runner " +
		"into a simulator of 50 kwok Nodes: each event's lag behind its scaled time (late: over 100 ms), and the Pods scheduled.",
	"BenchmarkSourceImport": "A source simulator of 5,000 Nodes and 50,000 Pods (one in twenty pending) mirrored Once into another: " +
		"seconds from the mirror's start to Synced, objects a second, that rate over KSS's advised 400 QPS, " +
		"and a raw 32-worker protobuf loop writing the same objects into a fresh simulator over the import (1: as fast as the inner cluster takes them).",
	"BenchmarkScale": "How a simulator's cost grows with its Nodes, a column per size, each against fresh simulators: " +
		"a NodePool's Nodes to Ready and `kwokctl scale node`'s; the RSS of its control plane (kube-apiserver, kube-controller-manager, kwok and sim-scheduler, one process) and of all the simulator's processes, its Nodes Ready; " +
		"`kubectl get nodes` direct and through simulators/NAME/proxy (median of 3); 2,000 pending Pods bound by sim-scheduler (recording every plugin's results) " +
		"and by the stock kube-scheduler, each a second scheduler of the simulator, and the annotation bytes a bound Pod carries. " +
		"The ratio columns are a larger size's figure over a smaller one's.",
	"BenchmarkSourceSync": "The same source mirrored in Sync while its Pods change 100 times a second for a minute (half creates, a quarter relabels, a quarter deletes): " +
		"each change's lag from the source's write until a watch on the mirror shows it, the changes never shown, and the mirror's summed RSS at its largest.",
}

// budget is one goal of docs/performance.md: a figure (or a ratio of two
// contenders' figures) against a limit.
type budget struct {
	goal          string
	bench, metric string
	contender     string // "" for the benchmark's own figure
	over          string // the ratio's denominator; "" for an absolute figure
	atMost        bool   // the limit is a maximum (else a minimum)
	limit         float64
	// why says, from the same run's figures, where the budget's cost goes:
	// the report prints it beside a budget missed. nil when the run
	// measures nothing that explains it.
	why func(r run) string
}

// run is one make bench run's tables and the machine's CPUs.
type run struct {
	tables []*table
	cpus   int
}

// value returns bench's figure of contender and metric.
func (r run) value(bench, contender, metric string) (float64, bool) {
	for _, t := range r.tables {
		if t.bench == bench {
			return t.value(contender, metric)
		}
	}
	return 0, false
}

var budgets = []budget{
	{"proxy, small GET p50 ≤ 1.0× the host's services/proxy", "BenchmarkProxyGet", "p50-ms", "sim-proxy", "services-proxy", true, 1.0, nil},
	{"proxy, LIST of 1,000 Nodes (JSON) ≥ 0.85× direct throughput", "BenchmarkListNodes/json", "lists/s", "sim-proxy", "direct", false, 0.85, nil},
	{"proxy, LIST of 1,000 Nodes (protobuf) ≥ 0.85× direct throughput", "BenchmarkListNodes/protobuf", "lists/s", "sim-proxy", "direct", false, 0.85, nil},
	{"NodePool, 5,000 Nodes to Ready ≥ 0.9× the rate of a raw 32-worker loop", "BenchmarkNodesToReady", "nodes/s", "nodepool", "raw", false, 0.9,
		perNodeCPU("BenchmarkNodesToReady", "NodePool", "nodepool", "cpu-ms/node", "the raw loop", "raw", "cpu-ms/node")},
	{"NodePool ≥ 5× the rate of kwokctl scale node", "BenchmarkNodesToReady", "nodes/s", "nodepool", "kwokctl", false, 5,
		perNodeCPU("BenchmarkNodesToReady", "NodePool", "nodepool", "cpu-ms/node", "kwokctl", "kwokctl", "cpu-ms/node")},
	{"simulator create → Available ≤ 1.5 s (median)", "BenchmarkSimulatorPod", "create-to-available-median-s", "", "", true, 1.5, startMilestones},
	{"simulator Pod RSS idle ≤ 300 MiB", "BenchmarkSimulatorPod", "rss-total-MiB", "idle", "", true, 300, idleRSS},
	{"simulator Pod working set idle (as `kubectl top`) ≤ 150 MiB", "BenchmarkSimulatorPod", "working-set-MiB", "idle", "", true, 150, idleWorkingSet},
	{"40 idle simulators on one node: ≤ 10 millicores each", "BenchmarkDensity", "idle-millicores-per-simulator", "", "", true, 10, densityCPU},
	// The median of the rounds' ratios, each of a sim-scheduler and a stock
	// run side by side: the ratio of the two medians pairs runs of
	// different rounds, which a machine's drift tells apart.
	{"scheduling with per-plugin results ≥ 0.8× the stock kube-scheduler's pods/s", "BenchmarkSchedulingThroughput", "ratio", "", "", false, 0.8, schedulingCPU},
	{"100 simulators: list p50 ≤ 50 ms", "BenchmarkListSimulators", "p50-ms", "", "", true, 50, nil},
	{"100 simulators: sim-apiserver RSS ≤ 150 MiB", "BenchmarkListSimulators", "sim-apiserver-rss-MiB", "", "", true, 150, nil},
	{"web view: 5,000 Nodes drawn ≤ 1 s after their list arrives (median)", "BenchmarkWebView", "nodes-draw-ms", "", "", true, 1000, nil},
	{"web view: a Pod's full result among 5,000 Nodes opened ≤ 1 s (median)", "BenchmarkWebView", "result-open-ms", "", "", true, 1000, nil},
	{"kubectl sim why explains a Pod pending among 5,000 Nodes ≤ 1 s (table, median)", "BenchmarkKubectlSimWhy", "median-s", "table", "", true, 1, nil},
	{"kubectl sim why -o json, the full result among 5,000 Nodes ≤ 1 s (median)", "BenchmarkKubectlSimWhy", "median-s", "json", "", true, 1, nil},
	{"20,000 Nodes of a NodePool Ready ≤ 40 s", "BenchmarkScale", "ready-s", "nodes-20000", "", true, 40, readyCPU(20000)},
	{"NodePool ≥ 5× the rate of kwokctl scale node at 20,000 Nodes", "BenchmarkScale", "nodepool-over-kwokctl", "nodes-20000", "", false, 5,
		perNodeCPU("BenchmarkScale", "NodePool", "nodes-20000", "nodepool-cpu-ms/node", "kwokctl", "nodes-20000", "kwokctl-cpu-ms/node")},
	{"scheduling with per-plugin results among 20,000 Nodes ≥ 0.9× the stock kube-scheduler's pods/s", "BenchmarkScale", "scheduling-ratio", "nodes-20000", "", false, 0.9, scaleSchedulingCPU(20000)},
	// The LIST budget above as kubectl sees it: 0.85× the throughput.
	{"kubectl get nodes among 20,000 Nodes through simulators/proxy ≤ 1.18× the time direct", "BenchmarkScale", "get-nodes-proxy-over-direct", "nodes-20000", "", true, 1.18, nil},
	{"scenario replay at 60×: each event within 100 ms of its scaled time (max lag)", "BenchmarkScenarioReplay", "lag-max-ms", "", "", true, 100, replayCPU},
	{"source import of 5,000 Nodes and 50,000 Pods ≤ 60 s", "BenchmarkSourceImport", "import-s", "", "", true, 60, nil},
	{"source sync lag p99 ≤ 2 s while the source changes 100 objects/s", "BenchmarkSourceSync", "lag-p99-ms", "", "", true, 2000, nil},
}

// measure returns the budget's figure from the run's tables.
func (b budget) measure(r run) (float64, bool) {
	for _, t := range r.tables {
		if t.bench != b.bench {
			continue
		}
		if b.over != "" {
			return t.ratio(ratio{b.contender, b.over}, b.metric)
		}
		return t.value(b.contender, b.metric)
	}
	return 0, false
}

// budgetTable writes the budgets, measured, met or not, and for those
// missed the run's own figures that say where the cost goes.
func budgetTable(w io.Writer, r run) {
	fmt.Fprintf(w, "| goal | measured | met | where it goes (this run) |\n|---|---:|---|---|\n")
	for _, b := range budgets {
		v, ok := b.measure(r)
		if !ok {
			fmt.Fprintf(w, "| %s | not measured | | |\n", b.goal)
			continue
		}
		measured := format(v) + " " + b.metric
		if b.over != "" || strings.HasSuffix(b.metric, "ratio") || strings.Contains(b.metric, "-over-") {
			measured = fmt.Sprintf("%.2f×", v)
		}
		met, why := "yes", ""
		if (b.atMost && v > b.limit) || (!b.atMost && v < b.limit) {
			met, why = "**no**", "no figure of this run says"
			if b.why != nil {
				if s := b.why(r); s != "" {
					why = s
				}
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", b.goal, measured, met, why)
	}
}

// perNodeCPU: two makers of Nodes share the simulator's CPUs, so while
// both keep them busy their rates differ by about the CPU a Node costs
// each; a lead over the other is bounded near the ratio of the two.
func perNodeCPU(bench, ours, oursContender, oursMetric, theirs, theirsContender, theirsMetric string) func(run) string {
	return func(r run) string {
		a, ok1 := r.value(bench, oursContender, oursMetric)
		c, ok2 := r.value(bench, theirsContender, theirsMetric)
		if !ok1 || !ok2 || a == 0 {
			return ""
		}
		return fmt.Sprintf("the simulator's CPU per Node: %s %s ms, %s %s ms; with its CPUs busy, a rate %.2f× the other's at most",
			ours, format(a), theirs, format(c), c/a)
	}
}

// readyCPU: n Nodes need n times a Node's CPU, which the machine's CPUs
// spend in no less than that over their number.
func readyCPU(n int) func(run) string {
	return func(r run) string {
		perNode, ok := r.value("BenchmarkScale", fmt.Sprintf("nodes-%d", n), "nodepool-cpu-ms/node")
		if !ok || r.cpus == 0 {
			return ""
		}
		cpuSeconds := perNode * float64(n) / 1000
		return fmt.Sprintf("the simulator's CPU per Node %s ms: %s CPU-seconds for %d Nodes, %s s at least on this machine's %d CPUs",
			format(perNode), format(cpuSeconds), n, format(cpuSeconds/float64(r.cpus)), r.cpus)
	}
}

// scaleSchedulingCPU: the schedulers and the simulator share the CPUs; the
// CPU a Pod costs each scheduler with the simulator bounds their rates'
// ratio.
func scaleSchedulingCPU(n int) func(run) string {
	return func(r run) string {
		size := fmt.Sprintf("nodes-%d", n)
		sim, ok1 := r.value("BenchmarkScale", size, "sim-scheduler-cpu-ms/pod")
		stock, ok2 := r.value("BenchmarkScale", size, "stock-cpu-ms/pod")
		if !ok1 || !ok2 || sim == 0 {
			return ""
		}
		return fmt.Sprintf("CPU per Pod, the scheduler's and the simulator's: sim-scheduler %s ms, stock %s ms; with the CPUs busy, %.2f× the stock's rate at most",
			format(sim), format(stock), stock/sim)
	}
}

func schedulingCPU(r run) string {
	const bench = "BenchmarkSchedulingThroughput"
	var parts []string
	for _, m := range []string{"scheduler-cpu-ms/pod", "control-plane-cpu-ms/pod"} {
		sim, ok1 := r.value(bench, "sim-scheduler", m)
		stock, ok2 := r.value(bench, "stock", m)
		if ok1 && ok2 {
			parts = append(parts, fmt.Sprintf("%s: sim-scheduler %s, stock %s", strings.TrimSuffix(m, "-cpu-ms/pod"), format(sim), format(stock)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "CPU ms per Pod, " + strings.Join(parts, "; ")
}

// startMilestones: when each part of a start was reached after the
// create, medians (test/e2e's startup timeline), in the order reached.
func startMilestones(r run) string {
	parts := largestFirst(r, "BenchmarkSimulatorPod", "", "start-", "-median-s")
	if len(parts) == 0 {
		return ""
	}
	slices.Reverse(parts)
	return "seconds after the create (medians): " + strings.Join(parts, ", ")
}

// largestFirst returns the figures of bench and contender whose metric is
// prefix+NAME+suffix as "NAME value", largest first.
func largestFirst(r run, bench, contender, prefix, suffix string) []string {
	type named struct {
		name  string
		value float64
	}
	var all []named
	for _, t := range r.tables {
		if t.bench != bench {
			continue
		}
		for _, m := range t.metrics {
			name, ok := strings.CutPrefix(m, prefix)
			if !ok || !strings.HasSuffix(name, suffix) {
				continue
			}
			name = strings.TrimSuffix(name, suffix)
			if v, ok := t.value(contender, m); ok && name != "total" {
				all = append(all, named{name, v})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b named) int { return cmp.Compare(b.value, a.value) })
	out := make([]string, len(all))
	for i, n := range all {
		out[i] = n.name + " " + format(n.value)
	}
	return out
}

func idleRSS(r run) string {
	programs := largestFirst(r, "BenchmarkSimulatorPod", "idle", "rss-", "-MiB")
	anon, ok1 := r.value("BenchmarkSimulatorPod", "idle", "anon-total-MiB")
	file, ok2 := r.value("BenchmarkSimulatorPod", "idle", "file-total-MiB")
	if len(programs) == 0 || !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf("RSS by program, MiB: %s; in all %s anonymous and %s file-backed (the binaries, shared by the node's simulators)",
		strings.Join(programs, ", "), format(anon), format(file))
}

func idleWorkingSet(r run) string {
	anon, ok1 := r.value("BenchmarkSimulatorPod", "idle", "cgroup-anon-MiB")
	file, ok2 := r.value("BenchmarkSimulatorPod", "idle", "cgroup-file-MiB")
	if !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf("its containers' cgroups: %s MiB anonymous, %s MiB page cache", format(anon), format(file))
}

func densityCPU(r run) string {
	programs := largestFirst(r, "BenchmarkDensity", "", "idle-millicores-", "-per-simulator")
	machine, ok := r.value("BenchmarkDensity", "", "machine-millicores-total")
	if len(programs) == 0 || !ok {
		return ""
	}
	return fmt.Sprintf("millicores each by program: %s; the machine's in all %s of %d", strings.Join(programs, ", "), format(machine), r.cpus*1000)
}

// replayCPU: the CPUs the replay kept busy, against the machine's.
func replayCPU(r run) string {
	cpu, ok1 := r.value("BenchmarkScenarioReplay", "", "cpu-total-s")
	wall, ok2 := r.value("BenchmarkScenarioReplay", "", "wall-s")
	if !ok1 || !ok2 || wall == 0 {
		return ""
	}
	return fmt.Sprintf("%s CPU-seconds in %s s: %.2f CPUs busy, of this machine's %d", format(cpu), format(wall), cpu/wall, r.cpus)
}

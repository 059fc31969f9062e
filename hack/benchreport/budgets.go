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
	"fmt"
	"io"
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
}

var budgets = []budget{
	{"proxy, small GET p50 ≤ 1.0× the host's services/proxy", "BenchmarkProxyGet", "p50-ms", "sim-proxy", "services-proxy", true, 1.0},
	{"proxy, LIST of 1,000 Nodes (JSON) ≥ 0.85× direct throughput", "BenchmarkListNodes/json", "lists/s", "sim-proxy", "direct", false, 0.85},
	{"proxy, LIST of 1,000 Nodes (protobuf) ≥ 0.85× direct throughput", "BenchmarkListNodes/protobuf", "lists/s", "sim-proxy", "direct", false, 0.85},
	{"NodePool, 5,000 Nodes to Ready ≥ 0.9× the rate of a raw 32-worker loop", "BenchmarkNodesToReady", "nodes/s", "nodepool", "raw", false, 0.9},
	{"NodePool ≥ 5× the rate of kwokctl scale node", "BenchmarkNodesToReady", "nodes/s", "nodepool", "kwokctl", false, 5},
	{"simulator create → Available ≤ 1.5 s (median)", "BenchmarkSimulatorPod", "create-to-available-median-s", "", "", true, 1.5},
	{"simulator Pod RSS idle ≤ 300 MiB", "BenchmarkSimulatorPod", "rss-total-MiB", "idle", "", true, 300},
	{"simulator Pod working set idle (as `kubectl top`) ≤ 150 MiB", "BenchmarkSimulatorPod", "working-set-MiB", "idle", "", true, 150},
	{"40 idle simulators on one node: ≤ 10 millicores each", "BenchmarkDensity", "idle-millicores-per-simulator", "", "", true, 10},
	// The median of the rounds' ratios, each of a sim-scheduler and a stock
	// run side by side: the ratio of the two medians pairs runs of
	// different rounds, which a machine's drift tells apart.
	{"scheduling with per-plugin results ≥ 0.8× the stock kube-scheduler's pods/s", "BenchmarkSchedulingThroughput", "ratio", "", "", false, 0.8},
	{"100 simulators: list p50 ≤ 50 ms", "BenchmarkListSimulators", "p50-ms", "", "", true, 50},
	{"100 simulators: sim-apiserver RSS ≤ 150 MiB", "BenchmarkListSimulators", "sim-apiserver-rss-MiB", "", "", true, 150},
	{"web view: 5,000 Nodes drawn ≤ 1 s after their list arrives (median)", "BenchmarkWebView", "nodes-draw-ms", "", "", true, 1000},
	{"web view: a Pod's full result among 5,000 Nodes opened ≤ 1 s (median)", "BenchmarkWebView", "result-open-ms", "", "", true, 1000},
	{"kubectl sim why explains a Pod pending among 5,000 Nodes ≤ 1 s (table, median)", "BenchmarkKubectlSimWhy", "median-s", "table", "", true, 1},
	{"kubectl sim why -o json, the full result among 5,000 Nodes ≤ 1 s (median)", "BenchmarkKubectlSimWhy", "median-s", "json", "", true, 1},
	{"20,000 Nodes of a NodePool Ready ≤ 40 s", "BenchmarkScale", "ready-s", "nodes-20000", "", true, 40},
	{"NodePool ≥ 5× the rate of kwokctl scale node at 20,000 Nodes", "BenchmarkScale", "nodepool-over-kwokctl", "nodes-20000", "", false, 5},
	{"scheduling with per-plugin results among 20,000 Nodes ≥ 0.9× the stock kube-scheduler's pods/s", "BenchmarkScale", "scheduling-ratio", "nodes-20000", "", false, 0.9},
	// The LIST budget above as kubectl sees it: 0.85× the throughput.
	{"kubectl get nodes among 20,000 Nodes through simulators/proxy ≤ 1.18× the time direct", "BenchmarkScale", "get-nodes-proxy-over-direct", "nodes-20000", "", true, 1.18},
	{"scenario replay at 60×: each event within 100 ms of its scaled time (max lag)", "BenchmarkScenarioReplay", "lag-max-ms", "", "", true, 100},
	{"source import of 5,000 Nodes and 50,000 Pods ≤ 60 s", "BenchmarkSourceImport", "import-s", "", "", true, 60},
	{"source sync lag p99 ≤ 2 s while the source changes 100 objects/s", "BenchmarkSourceSync", "lag-p99-ms", "", "", true, 2000},
}

// measure returns the budget's figure from tables.
func (b budget) measure(tables []*table) (float64, bool) {
	for _, t := range tables {
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

func budgetTable(w io.Writer, tables []*table) {
	fmt.Fprintf(w, "| goal | measured | met |\n|---|---:|---|\n")
	for _, b := range budgets {
		v, ok := b.measure(tables)
		if !ok {
			fmt.Fprintf(w, "| %s | not measured | |\n", b.goal)
			continue
		}
		measured := format(v) + " " + b.metric
		if b.over != "" || strings.HasSuffix(b.metric, "ratio") || strings.Contains(b.metric, "-over-") {
			measured = fmt.Sprintf("%.2f×", v)
		}
		met := "yes"
		if (b.atMost && v > b.limit) || (!b.atMost && v < b.limit) {
			met = "**no**"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", b.goal, measured, met)
	}
}

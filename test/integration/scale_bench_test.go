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

package integration

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkScale measures how a simulator's cost grows with its Nodes. For
// each size N of SIM_BENCH_SCALE (default 1000,5000,20000), against fresh
// simulators, it reports as contender nodes-N:
//   - N Nodes to Ready by a NodePool (ready-s, nodepool-nodes/s) and by
//     `kwokctl scale node` (kwokctl-nodes/s), and their ratio, with the
//     CPU the simulator spent per Node for each;
//   - in the NodePool's simulator, its Nodes Ready: the RSS of its control
//     plane (kube-apiserver, kube-controller-manager, kwok and
//     sim-scheduler: one process, sim-control-plane, as shipped) and of all
//     the simulator's processes with its etcd;
//   - `kubectl get nodes`, direct to the simulator and through
//     simulators/NAME/proxy: the median of 3 each, alternating;
//   - SIM_BENCH_SCALE_PODS (default 2000) pending Pods bound by
//     sim-scheduler, recording every plugin's results, and by the stock
//     kube-scheduler, each started as a second scheduler of the simulator
//     with client QPS 5000, as BenchmarkSchedulingThroughput does, twice
//     each: their pods/s and ratio, the CPU per Pod of the scheduler and
//     the simulator together, and the annotation bytes each bound Pod
//     carries.
//
// The report's table has a column per size and the ratios between sizes:
// how each cost grows. Every figure of a size is from one run; the sizes
// run one after the other.
//
//	SIM_BENCH_SCALE=1000 go test ./test/integration -run '^$' -bench Scale -benchtime 1x -timeout 90m
func BenchmarkScale(b *testing.B) {
	sizes := framework.BenchCounts(b, "SIM_BENCH_SCALE", []int{1000, 5000, 20000}, 1)
	pods := framework.BenchCount(b, "SIM_BENCH_SCALE_PODS", 2000, 2)
	stockBin := framework.RequireBinary(b, "kube-scheduler")
	simBin := framework.RequireBinary(b, "sim-scheduler")
	ns := createNamespace(b, "bench-scale")
	// cost[figure] are the sizes' values, for the plots.
	cost := map[string][][2]float64{}
	for i, n := range sizes {
		var f scaleFigures
		for j := range b.N {
			var series []framework.Series
			kwokctl := timeToReady(b, ns, fmt.Sprintf("kwokctl-%d-%d", n, j), n, &series, kwokctlOf(b, ns, n), nil)
			name := fmt.Sprintf("nodepool-%d-%d", n, j)
			nodepool := timeToReady(b, ns, name, n, &series, nodePoolOf(b, ns, n), func(p *framework.SimulatorProcess, cfg *rest.Config) {
				f = measureAtScale(b, ns, name, p, cfg, n, pods, (i+j)%2 == 1, stockBin, simBin)
			})
			f.nodepool, f.kwokctl = nodepool.took, kwokctl.took
			f.nodepoolCPU, f.kwokctlCPU = framework.MsPer(nodepool.cpu, n), framework.MsPer(kwokctl.cpu, n)
			framework.WriteSeries(b, fmt.Sprintf("scale-%d-ready", n), fmt.Sprintf("%d Nodes to Ready, each maker against a fresh simulator", n), "seconds", "Nodes Ready", series)
		}
		size := fmt.Sprintf("nodes-%d", n)
		for _, v := range []struct {
			value float64
			unit  string
		}{
			{f.nodepool.Seconds(), "ready-s"},
			{float64(n) / f.nodepool.Seconds(), "nodepool-nodes/s"},
			{float64(n) / f.kwokctl.Seconds(), "kwokctl-nodes/s"},
			{f.kwokctl.Seconds() / f.nodepool.Seconds(), "nodepool-over-kwokctl"},
			{f.nodepoolCPU, "nodepool-cpu-ms/node"},
			{f.kwokctlCPU, "kwokctl-cpu-ms/node"},
			{framework.MiB(f.controlPlane.RSS), "control-plane-rss-MiB"},
			{framework.MiB(f.total.RSS), "simulator-rss-MiB"},
			{f.listDirect, "get-nodes-direct-s"},
			{f.listProxy, "get-nodes-proxy-s"},
			{f.listProxy / f.listDirect, "get-nodes-proxy-over-direct"},
			{f.simRate, "sim-scheduler-pods/s"},
			{f.stockRate, "stock-pods/s"},
			{f.simRate / f.stockRate, "scheduling-ratio"},
			{f.simCPU, "sim-scheduler-cpu-ms/pod"},
			{f.stockCPU, "stock-cpu-ms/pod"},
			{f.resultBytes, "results-bytes/pod"},
		} {
			framework.ReportContender(b, size, v.value, v.unit)
			cost[v.unit] = append(cost[v.unit], [2]float64{float64(n), v.value})
		}
	}
	if len(sizes) > 1 {
		framework.WriteSeries(b, "scale-ready", "A NodePool's Nodes to Ready, by size", "Nodes", "seconds",
			[]framework.Series{{Name: "nodepool", Points: cost["ready-s"]}})
		framework.WriteSeries(b, "scale-memory", "RSS, the Nodes Ready", "Nodes", "MiB",
			[]framework.Series{{Name: "control plane", Points: cost["control-plane-rss-MiB"]}, {Name: "simulator", Points: cost["simulator-rss-MiB"]}})
		framework.WriteSeries(b, "scale-scheduling", "Pending Pods bound per second", "Nodes", "pods/s",
			[]framework.Series{{Name: "sim-scheduler", Points: cost["sim-scheduler-pods/s"]}, {Name: "stock", Points: cost["stock-pods/s"]}})
	}
}

// scaleFigures are one size's figures.
type scaleFigures struct {
	nodepool, kwokctl       time.Duration
	nodepoolCPU, kwokctlCPU float64 // the simulator's CPU ms per Node
	controlPlane, total     framework.Memory
	listDirect, listProxy   float64 // seconds
	simRate, stockRate      float64
	simCPU, stockCPU        float64 // the scheduler's and the simulator's CPU ms per Pod
	resultBytes             float64
}

// measureAtScale takes the figures of simulator ns/name, running as p, its
// nodes Ready; cfg reaches it directly. simFirst says which scheduler runs
// first.
func measureAtScale(b *testing.B, ns, name string, p *framework.SimulatorProcess, cfg *rest.Config, nodes, pods int, simFirst bool, stockBin, simBin string) scaleFigures {
	var f scaleFigures
	for _, pid := range p.PIDs() {
		total, byProgram, err := framework.TreeMemory(pid)
		if err != nil {
			b.Fatal(err)
		}
		f.total = f.total.Add(total)
		// One process as shipped, four with SIMULATOR_SHARED_RUNTIME=false.
		for _, program := range []string{"sim-control-plane", "kube-apiserver", "kube-controller-manager", "kwok", "sim-scheduler"} {
			f.controlPlane = f.controlPlane.Add(byProgram[program])
		}
	}
	if f.controlPlane.RSS == 0 {
		b.Fatalf("no control plane among the processes of simulator %s", name)
	}

	direct, proxy := fetchKubeconfig(b, ns, name, "?mode=direct"), fetchKubeconfig(b, ns, name, "")
	var directTimes, proxyTimes []float64
	getNodes := func(kubeconfig string) float64 {
		start := time.Now()
		out, err := kubectl(b, kubeconfig, "get", "nodes", "--no-headers")
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if lines := strings.Count(out, "\n"); lines < nodes {
			b.Fatalf("kubectl get nodes listed %d Nodes, want %d", lines, nodes)
		}
		return took.Seconds()
	}
	for range 3 {
		directTimes = append(directTimes, getNodes(direct))
		proxyTimes = append(proxyTimes, getNodes(proxy))
	}
	f.listDirect, f.listProxy = framework.Median(directTimes), framework.Median(proxyTimes)

	// Both schedulers as a second scheduler of the simulator, with a
	// profile of their own; its own scheduler idles.
	config := filepath.Join(b.TempDir(), "scheduler.yaml")
	data := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
		"clientConnection: {qps: 5000, burst: 5000, kubeconfig: " + direct + "}\n" +
		"leaderElection: {leaderElect: false}\nprofiles:\n- schedulerName: bench-scheduler\n"
	if err := os.WriteFile(config, []byte(data), 0o600); err != nil {
		b.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	schedule := func(contender, bin string, args ...string) (rate, cpuPerPod float64, annotationBytes int64) {
		framework.CreatePendingPods(b, client, contender, "bench-scheduler", pods)
		var proc *framework.TestProcess
		cpuBefore := simulatorCPU(b, p)
		rate = framework.MeasureBinding(b, client, contender, pods, func() {
			proc = framework.StartTestProcess(b, contender, b.TempDir(), nil, bin, append([]string{"--config=" + config, "--secure-port=0"}, args...)...)
		})
		// Where the time went: the scheduler's CPU (its start included,
		// the same for both) and the simulator's, per Pod.
		cpu := simulatorCPU(b, p)
		schedulerCPU, err := framework.ProcessCPU(proc.PID())
		if err != nil {
			b.Fatal(err)
		}
		parts := []string{fmt.Sprintf("the scheduler %.2f", framework.MsPer(schedulerCPU, pods))}
		used, simulator := framework.CPUUsed(cpuBefore, cpu)
		all := schedulerCPU + simulator
		for _, program := range slices.Sorted(maps.Keys(used)) {
			parts = append(parts, fmt.Sprintf("%s %.2f", program, framework.MsPer(used[program], pods)))
		}
		b.Logf("%s, %s: %.1f Pods bound a second; CPU ms per Pod: %s", name, contender, rate, strings.Join(parts, ", "))
		proc.Stop(b, 30*time.Second)
		annotationBytes = framework.AnnotationBytes(b, client, contender)
		framework.DeleteBenchPods(b, client, contender)
		return rate, framework.MsPer(all, pods), annotationBytes
	}
	// Each twice, in the order A B B A, so that a machine getting busier
	// or idler favours neither: one pair among 20,000 Nodes gave 0.79×
	// where the two schedulers' CPU per Pod differed by 2%
	// (BenchmarkSchedulingThroughput). A rate is the mean of its two (their median).
	var simRates, stockRates, simCPUs, stockCPUs []float64
	sim := func() {
		rate, cpu, bytes := schedule("sim-scheduler", simBin, "--results-dir="+filepath.Join(b.TempDir(), "results"))
		simRates, simCPUs = append(simRates, rate), append(simCPUs, cpu)
		f.resultBytes = float64(bytes) / float64(pods)
	}
	stock := func() {
		rate, cpu, _ := schedule("stock", stockBin)
		stockRates, stockCPUs = append(stockRates, rate), append(stockCPUs, cpu)
	}
	if simFirst {
		sim()
		stock()
		stock()
		sim()
	} else {
		stock()
		sim()
		sim()
		stock()
	}
	f.simRate, f.stockRate = framework.Median(simRates), framework.Median(stockRates)
	f.simCPU, f.stockCPU = framework.Median(simCPUs), framework.Median(stockCPUs)
	b.Logf("%s: %d Nodes Ready: control plane RSS %d MiB (the simulator's %d); kubectl get nodes direct %.2f s, through simulators/proxy %.2f s; %d Pods bound at %.1f/s by sim-scheduler (%.0f annotation bytes each), %.1f/s by the stock kube-scheduler",
		name, nodes, f.controlPlane.RSS>>20, f.total.RSS>>20, f.listDirect, f.listProxy,
		pods, f.simRate, f.resultBytes, f.stockRate)
	return f
}

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

package simulator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkSchedulingThroughput measures, in one simulator with
// SIM_BENCH_NODES (5,000) nodes, how fast 1,000 pending Pods are bound by
// the stock kube-scheduler of `make tools` and by sim-scheduler (which
// records every plugin's results and publishes them as in the simulator),
// each started the same way as a second scheduler of the cluster with all
// its Pods already pending, and both schedulers' RSS once done, the CPU
// time they and the control plane used per Pod, the bytes of annotations
// each bound Pod carries and the requests per Pod the API server served
// meanwhile (by verb and resource, from its apiserver_request_total):
//
//	go test ./test/simulator -run XXX -bench SchedulingThroughput -benchtime 3x -timeout 60m
//
// Each round (-benchtime Nx) runs both; the reported rates and ratio are
// the medians of the rounds'.
//
// Both run the default plugins with client QPS 5000, so that the client's
// rate limit does not hide the scheduler's own cost. The rate is (pods-1)
// over the time from the first binding to the last. SIM_SCHEDULER_BENCH_ARGS
// adds flags to sim-scheduler (e.g. --results-workers=0 to leave the
// publishing out); SIM_SCHEDULERS_BENCH_ARGS adds flags to both (e.g.
// --feature-gates=OpportunisticBatching=false, so that every Pod of this
// benchmark's identical ones goes through a full filter and score cycle
// instead of a hint from the previous one).
func BenchmarkSchedulingThroughput(b *testing.B) {
	nodes, pods := framework.BenchNodes(b), 1000
	stockBin := framework.RequireBinary(b, "kube-scheduler")
	simBin := framework.RequireBinary(b, "sim-scheduler")
	etcdProc, etcd := framework.StartTestEtcd(b, b.TempDir(), nil, "--unsafe-no-fsync=true")
	// The simulator's own scheduler idles: no Pod names its profile.
	sim := framework.StartStandaloneSimulator(b, etcd, "/simulators/bench/scheduling/uid-1")
	sim.WaitReady(b, 2*time.Minute)
	c := sim.Client(b)
	createNodes(b, c, "n", nodes, false)
	const header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

	// Both schedulers are started the same way, as a second scheduler of
	// the cluster with a profile of its own.
	cfg := filepath.Join(b.TempDir(), "stock.yaml")
	data := header + "clientConnection: {qps: 5000, burst: 5000, kubeconfig: " + filepath.Join(sim.DataDir, "admin.kubeconfig") + "}\n" +
		"leaderElection: {leaderElect: false}\nprofiles:\n- schedulerName: stock-scheduler\n"
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		b.Fatal(err)
	}
	// controlPlaneCPU is what the simulator's processes (kube-apiserver
	// among them) and etcd have used so far.
	controlPlaneCPU := func() time.Duration {
		sum := time.Duration(0)
		for _, pid := range []int{sim.PID(), etcdProc.PID()} {
			cpu, err := framework.TreeCPU(pid)
			if err != nil {
				b.Fatal(err)
			}
			sum += cpu
		}
		return sum
	}
	// run schedules pods Pods with one scheduler and returns what it took.
	run := func(name, bin string, args ...string) schedulingRound {
		framework.CreatePendingPods(b, c, name, "stock-scheduler", pods)
		// The control plane is never idle (its controllers, the node
		// lifecycle controller's pass over 5,000 Nodes every 5 s): what it
		// uses meanwhile at rest is not the
		// scheduler's doing, and a slower scheduler would be charged more
		// of it. Its rate at rest, over a few seconds, is taken off.
		const rest = 5 * time.Second
		atRest := controlPlaneCPU()
		time.Sleep(rest)
		before := controlPlaneCPU()
		restRate := float64(before-atRest) / float64(rest)
		var p *framework.TestProcess
		var r schedulingRound
		requestsBefore := framework.APIRequests(b, c)
		start := time.Now()
		r.rate = framework.MeasureBinding(b, c, name, pods, func() {
			p = framework.StartTestProcess(b, name+"-scheduler", b.TempDir(), nil, bin, append([]string{"--config=" + cfg, "--secure-port=0"}, args...)...)
		})
		// CPU time from the scheduler's start to the last binding: its
		// own (start included, the same for both) and the control plane's
		// beyond its rate at rest.
		r.controlPlaneCPU = controlPlaneCPU() - before - time.Duration(restRate*float64(time.Since(start)))
		r.requests = framework.APIRequests(b, c).Minus(requestsBefore)
		var err error
		if r.schedulerCPU, err = framework.ProcessCPU(p.PID()); err != nil {
			b.Fatal(err)
		}
		if r.rss, err = framework.ProcessRSS(p.PID()); err != nil {
			b.Fatal(err)
		}
		p.Stop(b, 30*time.Second)
		r.annotationBytes = framework.AnnotationBytes(b, c, name)
		framework.DeleteBenchPods(b, c, name)
		return r
	}
	both := strings.Fields(os.Getenv("SIM_SCHEDULERS_BENCH_ARGS"))
	stock := func() schedulingRound { return run("stock", stockBin, both...) }
	// sim-scheduler publishes its results as in the simulator.
	simArgs := append(append([]string{"--results-dir=" + filepath.Join(b.TempDir(), "results")}, both...), strings.Fields(os.Getenv("SIM_SCHEDULER_BENCH_ARGS"))...)
	simulated := func() schedulingRound { return run("sim", simBin, simArgs...) }

	// Each iteration runs both, in alternating order, so that a machine
	// getting busier or idler favours neither: the ratio is the median of
	// the iterations' ratios.
	var ratios []float64
	var stockRounds, simRounds []schedulingRound
	b.ResetTimer()
	for i := range b.N {
		var s, m schedulingRound
		if i%2 == 0 {
			s = stock()
			m = simulated()
		} else {
			m = simulated()
			s = stock()
		}
		b.Logf("round %d: %d pods on %d nodes: stock kube-scheduler %s; sim-scheduler %s: %.2fx",
			i+1, pods, nodes, s.String(pods), m.String(pods), m.rate/s.rate)
		ratios = append(ratios, m.rate/s.rate)
		stockRounds, simRounds = append(stockRounds, s), append(simRounds, m)
	}
	b.StopTimer()
	// Contenders as hack/benchreport reads them.
	for _, c := range []struct {
		name   string
		rounds []schedulingRound
	}{{"stock", stockRounds}, {"sim-scheduler", simRounds}} {
		b.ReportMetric(medianOf(c.rounds, func(r schedulingRound) float64 { return r.rate }), c.name+":pods/s")
		b.ReportMetric(medianOf(c.rounds, func(r schedulingRound) float64 { return float64(r.rss) / (1 << 20) }), c.name+":rss-MiB")
		b.ReportMetric(medianOf(c.rounds, func(r schedulingRound) float64 { return framework.MsPer(r.schedulerCPU, pods) }), c.name+":scheduler-cpu-ms/pod")
		b.ReportMetric(medianOf(c.rounds, func(r schedulingRound) float64 { return framework.MsPer(r.controlPlaneCPU, pods) }), c.name+":control-plane-cpu-ms/pod")
		b.ReportMetric(medianOf(c.rounds, func(r schedulingRound) float64 { return float64(r.annotationBytes) / float64(pods) }), c.name+":annotation-bytes/pod")
	}
	b.ReportMetric(framework.Median(ratios), "ratio")
}

// schedulingRound is what one scheduler took to bind the Pods: their rate,
// its RSS once done, and the CPU time it and the control plane (beyond its
// use at rest) used from its start to the last binding. CPU time is a steadier figure than the
// rate on a shared machine: it grows little when others take the CPUs.
// annotationBytes is what the bound Pods carry in annotations (keys and
// values), which every write and watch event of a Pod carries.
type schedulingRound struct {
	rate                          float64
	rss                           int64
	schedulerCPU, controlPlaneCPU time.Duration
	annotationBytes               int64
	requests                      framework.RequestCounts // the API server served, from the start to the last binding
}

func (r schedulingRound) String(pods int) string {
	return fmt.Sprintf("%.1f pods/s, RSS %d MiB, CPU per Pod: scheduler %.2f ms, control plane %.2f ms, annotations %d bytes per Pod, requests per Pod: %s",
		r.rate, r.rss>>20, framework.MsPer(r.schedulerCPU, pods), framework.MsPer(r.controlPlaneCPU, pods), r.annotationBytes/int64(pods), r.requests.PerItem(pods))
}

func medianOf[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	return framework.Median(v)
}

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
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkSchedulingThroughput measures, in one simulator with 5,000
// nodes, how fast 1,000 pending Pods are bound by the stock kube-scheduler
// of `make tools` and by sim-scheduler (which records every plugin's
// results and publishes them as in the simulator), each started the same
// way as a second scheduler of the cluster with all its Pods already
// pending, and both schedulers' RSS once done (the most of the rounds):
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
	const nodes, pods = 5000, 1000
	bins := binDir(b)
	stockBin := filepath.Join(bins, "kube-scheduler")
	if _, err := os.Stat(stockBin); err != nil {
		b.Fatalf("%s: run make tools", stockBin)
	}
	etcd := startEtcd(b, bins, b.TempDir())
	// The simulator's own scheduler idles: no Pod names its profile.
	sim := startSimulator(b, bins, etcd, "/simulators/bench/scheduling/uid-1")
	sim.waitReady(b, 2*time.Minute)
	c := sim.client(b)
	createNodes(b, c, "n", nodes, false)
	const header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

	// Both schedulers are started the same way, as a second scheduler of
	// the cluster with a profile of its own.
	cfg := filepath.Join(b.TempDir(), "stock.yaml")
	data := header + "clientConnection: {qps: 5000, burst: 5000, kubeconfig: " + filepath.Join(sim.dataDir, "admin.kubeconfig") + "}\n" +
		"leaderElection: {leaderElect: false}\nprofiles:\n- schedulerName: stock-scheduler\n"
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		b.Fatal(err)
	}
	// run schedules pods Pods with one scheduler and returns its rate and
	// RSS (bytes) once done.
	run := func(name, bin string, args ...string) (float64, int64) {
		createPending(b, c, name, "stock-scheduler", pods)
		var p *proc
		rate := measureBinding(b, c, name, pods, func() {
			p = startProc(b, name+"-scheduler", b.TempDir(), nil, bin, append([]string{"--config=" + cfg, "--secure-port=0"}, args...)...)
		})
		rss, err := framework.ProcessRSS(p.cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		p.stop(b, 30*time.Second)
		deletePods(b, c, name)
		return rate, rss
	}
	both := strings.Fields(os.Getenv("SIM_SCHEDULERS_BENCH_ARGS"))
	stock := func() (float64, int64) { return run("stock", stockBin, both...) }
	// sim-scheduler publishes its results as in the simulator.
	simArgs := append(append([]string{"--results-dir=" + filepath.Join(b.TempDir(), "results")}, both...), strings.Fields(os.Getenv("SIM_SCHEDULER_BENCH_ARGS"))...)
	simulated := func() (float64, int64) { return run("sim", filepath.Join(bins, "sim-scheduler"), simArgs...) }

	// Each iteration runs both, in alternating order, so that a machine
	// getting busier or idler favours neither: the ratio is the median of
	// the iterations' ratios.
	var ratios, stockRates, simRates []float64
	var stockRSS, simRSS int64
	b.ResetTimer()
	for i := range b.N {
		var stockRate, simRate float64
		var sRSS, mRSS int64
		if i%2 == 0 {
			stockRate, sRSS = stock()
			simRate, mRSS = simulated()
		} else {
			simRate, mRSS = simulated()
			stockRate, sRSS = stock()
		}
		stockRSS, simRSS = max(stockRSS, sRSS), max(simRSS, mRSS)
		b.Logf("round %d: %d pods on %d nodes: stock kube-scheduler %.1f pods/s (RSS %d MiB), sim-scheduler %.1f pods/s (RSS %d MiB): %.2fx",
			i+1, pods, nodes, stockRate, sRSS>>20, simRate, mRSS>>20, simRate/stockRate)
		ratios, stockRates, simRates = append(ratios, simRate/stockRate), append(stockRates, stockRate), append(simRates, simRate)
	}
	b.StopTimer()
	// Contenders as hack/benchreport reads them.
	b.ReportMetric(median(stockRates), "stock:pods/s")
	b.ReportMetric(median(simRates), "sim-scheduler:pods/s")
	b.ReportMetric(float64(stockRSS)/(1<<20), "stock:rss-MiB")
	b.ReportMetric(float64(simRSS)/(1<<20), "sim-scheduler:rss-MiB")
	b.ReportMetric(median(ratios), "ratio")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// createPending creates n Pods labelled bench=prefix for schedulerName.
func createPending(tb testing.TB, c kubernetes.Interface, prefix, schedulerName string, n int) {
	tb.Helper()
	ctx := ctxWithTimeout(tb, 5*time.Minute)
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range 32 {
		wg.Go(func() {
			for i := range work {
				p := testPod("default", fmt.Sprintf("%s-%d", prefix, i))
				p.Labels = map[string]string{"bench": prefix}
				p.Spec.SchedulerName = schedulerName
				p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("100m")
				if _, err := c.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		tb.Fatalf("creating pods: %v", firstErr)
	}
}

// measureBinding calls start, waits until the n Pods labelled bench=prefix
// are bound and returns their rate from the first binding to the last.
func measureBinding(tb testing.TB, c kubernetes.Interface, prefix string, n int, start func()) float64 {
	tb.Helper()
	ctx := ctxWithTimeout(tb, 15*time.Minute)
	selector := "bench=" + prefix
	list, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		tb.Fatal(err)
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			return c.CoreV1().Pods("default").Watch(ctx, o)
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Stop()
	start()
	bound := map[string]bool{}
	var first, last time.Time
	for len(bound) < n {
		select {
		case <-ctx.Done():
			tb.Fatalf("%d of %d pods bound in time", len(bound), n)
		case ev, ok := <-w.ResultChan():
			if !ok {
				tb.Fatalf("watch ended with %d of %d pods bound", len(bound), n)
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || p.Spec.NodeName == "" || bound[p.Name] {
				continue
			}
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			last = now
			bound[p.Name] = true
		}
	}
	return float64(n-1) / last.Sub(first).Seconds()
}

func deletePods(tb testing.TB, c kubernetes.Interface, prefix string) {
	tb.Helper()
	ctx := ctxWithTimeout(tb, 5*time.Minute)
	selector := metav1.ListOptions{LabelSelector: "bench=" + prefix}
	if err := c.CoreV1().Pods("default").DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, selector); err != nil {
		tb.Fatal(err)
	}
	waitFor(tb, 5*time.Minute, "the "+prefix+" pods to go", func() (bool, error) {
		list, err := c.CoreV1().Pods("default").List(ctx, selector)
		return err == nil && len(list.Items) == 0, nil
	})
}

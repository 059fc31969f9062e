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
)

// BenchmarkSchedulingThroughput measures, in one simulator with 5,000
// nodes, how fast 1,000 pending Pods are bound by the stock kube-scheduler
// of `make tools` and by sim-scheduler (which records every plugin's
// results and publishes them as in the simulator), each started the same
// way as a second scheduler of the cluster with all its Pods already
// pending, and both schedulers' RSS once done:
//
//	go test ./test/simulator -run XXX -bench SchedulingThroughput -benchtime 1x -timeout 30m
//
// Both run the default plugins with client QPS 5000, so that the client's
// rate limit does not hide the scheduler's own cost. The rate is (pods-1)
// over the time from the first binding to the last. SIM_SCHEDULER_BENCH_ARGS
// adds flags to sim-scheduler (e.g. --results-workers=0 to leave the
// publishing out).
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

	b.ResetTimer()
	for range b.N {
		// The stock kube-scheduler, a second scheduler of the same cluster
		// with a profile of its own.
		createPending(b, c, "stock", "stock-scheduler", pods)
		cfg := filepath.Join(b.TempDir(), "stock.yaml")
		data := header + "clientConnection: {qps: 5000, burst: 5000, kubeconfig: " + filepath.Join(sim.dataDir, "admin.kubeconfig") + "}\n" +
			"leaderElection: {leaderElect: false}\nprofiles:\n- schedulerName: stock-scheduler\n"
		if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
			b.Fatal(err)
		}
		var stock *proc
		stockRate := measureBinding(b, c, "stock", pods, func() {
			stock = startProc(b, "stock-scheduler", b.TempDir(), nil, stockBin, "--config="+cfg, "--secure-port=0")
		})
		_, _, stockRSS, err := procStat(stock.cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		stock.stop(b, 30*time.Second)
		deletePods(b, c, "stock")

		// sim-scheduler, started the same way, with its results published
		// as in the simulator.
		createPending(b, c, "sim", "stock-scheduler", pods)
		var sim2 *proc
		simRate := measureBinding(b, c, "sim", pods, func() {
			args := []string{"--config=" + cfg, "--secure-port=0", "--results-dir=" + filepath.Join(b.TempDir(), "results")}
			args = append(args, strings.Fields(os.Getenv("SIM_SCHEDULER_BENCH_ARGS"))...)
			sim2 = startProc(b, "sim-scheduler", b.TempDir(), nil, filepath.Join(bins, "sim-scheduler"), args...)
		})
		_, _, simRSS, err := procStat(sim2.cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		sim2.stop(b, 30*time.Second)
		b.StopTimer()
		b.Logf("%d pods on %d nodes: stock kube-scheduler %.1f pods/s (RSS %d MiB), sim-scheduler %.1f pods/s (RSS %d MiB): %.2fx",
			pods, nodes, stockRate, stockRSS/1024, simRate, simRSS/1024, simRate/stockRate)
		// Contenders as hack/benchreport reads them.
		b.ReportMetric(stockRate, "stock:pods/s")
		b.ReportMetric(simRate, "sim-scheduler:pods/s")
		b.ReportMetric(float64(stockRSS)/1024, "stock:rss-MiB")
		b.ReportMetric(float64(simRSS)/1024, "sim-scheduler:rss-MiB")
		deletePods(b, c, "sim")
		b.StartTimer()
	}
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

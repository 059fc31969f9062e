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
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkSourceImport measures the first copy of a source: a simulator
// holding SIM_BENCH_NODES Nodes (default 5000) and ten times as many Pods,
// one in twenty pending, mirrored Once into another:
//
//	SIM_BENCH_NODES=1000 go test ./test/simulator -run XXX -bench SourceImport -benchtime 1x -timeout 30m
//
// It reports the seconds from the mirror's start to Synced (import-s, the
// simulator's start to ready taken off), the objects a second, that rate
// over KSS's advised 400 QPS (vs-400qps), and the time a raw 32-worker
// loop takes to write the same objects into a fresh simulator over the
// import's (vs-raw-loop: 1 is as fast as the inner cluster takes them).
func BenchmarkSourceImport(b *testing.B) {
	nodes := framework.BenchNodes(b)
	pods := 10 * nodes
	etcd, _, secretDir := fillSource(b, nodes, pods)
	objects := float64(nodes + pods)

	var imports, raws []float64
	b.ResetTimer()
	for i := range b.N {
		source := &contract.Source{Mode: contract.SourceModeOnce, Dir: secretDir, QPS: 50}
		sim := framework.StartStandaloneSimulator(b, etcd, fmt.Sprintf("/simulators/bench/import/%d/%d", b.N, i), contract.Environment{Source: source}.Strings()...)
		ready := sim.WaitReady(b, 2*time.Minute)
		var synced time.Duration
		framework.WaitUntil(b, 10*time.Minute, "the import", func() (bool, error) {
			if sim.Exited() {
				return false, fmt.Errorf("simulator exited: %v", sim.Err())
			}
			s := sourceStatus(b, sim)
			synced = time.Since(sim.Started)
			return s.Phase == contract.SourceSynced, nil
		})
		s := sourceStatus(b, sim)
		if s.Objects["pods"] != int64(pods) || s.Objects["nodes"] != int64(nodes) {
			b.Fatalf("imported %v, want %d nodes and %d pods", s.Objects, nodes, pods)
		}
		// The mirror starts when kube-apiserver is ready, a little before
		// the simulator is: the figure is a little more than the import.
		imports = append(imports, (synced - ready).Seconds())
		b.Logf("import %d: ready after %s, synced after %s", i, ready.Round(time.Millisecond), synced.Round(time.Millisecond))
		for l := range strings.Lines(sim.Tail(2000)) {
			if strings.Contains(l, "Copied") {
				b.Log(strings.TrimSpace(l))
			}
		}
		sim.Stop(b, time.Minute)

		// The same objects written by a raw 32-worker loop into a fresh
		// simulator: what its kube-apiserver (and kwok, playing the bound
		// Pods) takes on this machine now.
		raw := framework.StartStandaloneSimulator(b, etcd, fmt.Sprintf("/simulators/bench/raw/%d/%d", b.N, i))
		raw.WaitReady(b, 2*time.Minute)
		rcfg := raw.RESTConfig()
		rcfg.QPS, rcfg.Burst = -1, 0
		rcfg.ContentType = "application/vnd.kubernetes.protobuf"
		rc, err := kubernetes.NewForConfig(rcfg)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		createNodes(b, rc, "node", nodes, true)
		createSourcePods(b, rc, nodes, pods)
		raws = append(raws, time.Since(start).Seconds())
		b.Logf("raw %d: %s", i, time.Since(start).Round(time.Millisecond))
		raw.Stop(b, time.Minute)
	}
	b.StopTimer()
	m := framework.Median(imports)
	b.ReportMetric(m, "import-s")
	b.ReportMetric(objects/m, "objects/s")
	b.ReportMetric(objects/m/400, "vs-400qps")
	b.ReportMetric(framework.Median(raws)/m, "vs-raw-loop")
}

// fillSource starts a source simulator holding nodes Nodes and pods Pods
// (createSourcePods), and returns its etcd (for the mirrors too), a client
// of it without rate limit, and the directory of its Secret as a mirror
// mounts it.
func fillSource(b *testing.B, nodes, pods int) (etcd string, sc kubernetes.Interface, secretDir string) {
	b.Helper()
	etcd = framework.StartThrowawayEtcd(b)
	src := startSource(b, etcd)
	src.WaitReady(b, 2*time.Minute)
	cfg := src.RESTConfig()
	cfg.QPS, cfg.Burst = -1, 0
	sc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	createNodes(b, sc, "node", nodes, false)
	createSourcePods(b, sc, nodes, pods)
	secretDir = b.TempDir()
	writeSourceSecret(b, secretDir, src, "")
	return etcd, sc, secretDir
}

// createSourcePods makes n Pods in the default namespace, bound round
// the nodes node-0..node-(nodes-1), but one in twenty left pending.
func createSourcePods(tb testing.TB, c kubernetes.Interface, nodes, n int) {
	tb.Helper()
	framework.CreatePods(tb, c, 10*time.Minute, n, func(i int) *corev1.Pod {
		node := fmt.Sprintf("node-%d", i%nodes)
		if i%20 == 19 {
			node = ""
		}
		return boundPod("default", fmt.Sprintf("pod-%d", i), node)
	})
}

// BenchmarkSourceSync measures how far a Sync mirror trails its source
// while the source changes syncRate objects a second for syncFor: a
// simulator holding SIM_BENCH_NODES Nodes (default 5000) and ten times as
// many Pods, mirrored, then Pods created (bound), relabelled and deleted
// in the source, one in two a create, one in four each of the others:
//
//	SIM_BENCH_NODES=1000 go test ./test/simulator -run XXX -bench SourceSync -benchtime 1x -timeout 30m
//
// Each change's lag runs from the moment the source was sent it until a
// watch on the mirror shows it. It reports the lag's p50, p99 and max,
// the changes a second the source took (changes/s), the changes the
// mirror never showed (missed), and the mirror's processes' summed RSS at
// its largest during the changes (rss-max-MiB).
func BenchmarkSourceSync(b *testing.B) {
	const (
		syncRate = 100
		syncFor  = time.Minute
		ns       = "sync"
	)
	nodes := framework.BenchNodes(b)
	etcd, sc, secretDir := fillSource(b, nodes, 10*nodes)
	if _, err := sc.CoreV1().Namespaces().Create(b.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}

	var lags []time.Duration
	var changes, missed int
	var rssMax int64
	b.ResetTimer()
	for i := range b.N {
		source := &contract.Source{Mode: contract.SourceModeSync, Dir: secretDir, QPS: contract.DefaultSourceQPS}
		sim := framework.StartStandaloneSimulator(b, etcd, fmt.Sprintf("/simulators/bench/sync/%d/%d", b.N, i), contract.Environment{Source: source}.Strings()...)
		sim.WaitReady(b, 2*time.Minute)
		framework.WaitUntil(b, 10*time.Minute, "the first copy", func() (bool, error) {
			if sim.Exited() {
				return false, fmt.Errorf("simulator exited: %v", sim.Err())
			}
			return sourceStatus(b, sim).Phase == contract.SourceSyncing, nil
		})
		// The first copy leaves work behind inside (kwok running 50,000
		// Pods, the scheduler deciding the pending ones): the lag is
		// measured once the mirror is quiet, as a mirror that has been
		// syncing for a while is.
		settled := waitQuiet(b, sim.PID(), 10*time.Minute)
		b.Logf("sync %d: the mirror was quiet %s after Syncing", i, settled.Round(time.Second))
		r := driveSource(b, sc, sim, ns, nodes, syncRate, syncFor)
		b.Logf("sync %d: %d changes in %s, %d missed, mirror RSS at most %d MiB; lag p50/p99: creates %s, relabels %s, deletes %s; all after the source's own watch showed them %s",
			i, r.changes, syncFor, r.missed, r.rssMax>>20, p50p99(r.byKind[0]), p50p99(r.byKind[2]), p50p99(r.byKind[3]), p50p99(r.afterSource))
		for name, m := range r.rssByProgram {
			b.Logf("sync %d: at the largest, %s had %d MiB resident (%d MiB anonymous)", i, name, m.RSS>>20, m.Anon>>20)
		}
		for _, l := range r.byKind {
			lags = append(lags, l...)
		}
		changes += r.changes
		missed += r.missed
		rssMax = max(rssMax, r.rssMax)
		sim.Stop(b, time.Minute)
	}
	b.StopTimer()
	if len(lags) == 0 {
		b.Fatal("the mirror showed no change")
	}
	slices.Sort(lags)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(percentileOf(lags, 50)), "lag-p50-ms")
	b.ReportMetric(ms(percentileOf(lags, 99)), "lag-p99-ms")
	b.ReportMetric(ms(lags[len(lags)-1]), "lag-max-ms")
	b.ReportMetric(float64(changes)/float64(b.N)/syncFor.Seconds(), "changes/s")
	b.ReportMetric(float64(missed), "missed")
	b.ReportMetric(float64(rssMax>>20), "rss-max-MiB")
}

// waitQuiet waits until process pid and its descendants use less than
// half a CPU over 5 s (an idle mirror of 5,000 Nodes still renews their
// leases), at most timeout, and returns how long it took.
func waitQuiet(tb testing.TB, pid int, timeout time.Duration) time.Duration {
	tb.Helper()
	start := time.Now()
	const window = 5 * time.Second
	for time.Since(start) < timeout {
		before, err := framework.TreeCPU(pid)
		if err != nil {
			tb.Fatal(err)
		}
		time.Sleep(window)
		after, err := framework.TreeCPU(pid)
		if err != nil {
			tb.Fatal(err)
		}
		if after-before < window/2 {
			return time.Since(start)
		}
	}
	tb.Logf("process %d still busy after %s: measuring anyway", pid, timeout)
	return timeout
}

// p50p99 says the median and 99th percentile of lags.
func p50p99(lags []time.Duration) string {
	if len(lags) == 0 {
		return "none"
	}
	s := slices.Clone(lags)
	slices.Sort(s)
	return fmt.Sprintf("%s/%s", percentileOf(s, 50).Round(time.Millisecond), percentileOf(s, 99).Round(time.Millisecond))
}

// percentileOf is the p-th percentile of sorted, which is not empty.
func percentileOf(sorted []time.Duration, p int) time.Duration {
	return sorted[len(sorted)*p/100]
}

// syncRun is what driveSource saw.
type syncRun struct {
	// byKind holds the lags by change: 0 create, 2 relabel, 3 delete.
	byKind [4][]time.Duration
	// afterSource holds, of each change, the part of its lag after a
	// watch on the source showed it: the mirror's own, without the
	// source's delivery.
	afterSource     []time.Duration
	changes, missed int
	rssMax          int64
	// rssByProgram is the largest sample's RSS by program.
	rssByProgram map[string]framework.Memory
}

// driveSource changes Pods of namespace ns in the source at rate a second
// for d, and times each change until a watch on the mirror sim shows it:
// a create or relabel by its label step, a delete by the Pod going. A Pod
// is changed again only once the mirror showed its last change, so that
// no change is folded into the next. It samples the mirror's memory
// meanwhile, and waits up to a minute after the last change for the
// mirror to catch up.
func driveSource(tb testing.TB, src kubernetes.Interface, sim *framework.StandaloneSimulator, ns string, nodes, rate int, d time.Duration) syncRun {
	tb.Helper()
	ctx := framework.TimeoutContext(tb, d+5*time.Minute)
	mc := sim.Client(tb)
	list, err := mc.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	w, err := mc.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Stop()
	srcList, err := src.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	sw, err := src.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: srcList.ResourceVersion})
	if err != nil {
		tb.Fatal(err)
	}
	defer sw.Stop()

	// pending holds each Pod's change not yet seen: its step ("" for its
	// deletion) and when it was sent. live holds the Pods with none, not
	// deleted, for relabels and deletes to pick from.
	type change struct {
		step string
		sent time.Time
		kind int
	}
	var mu sync.Mutex
	pending := map[string]change{}
	// shownBySource is when the source's watch showed each Pod's step.
	shownBySource := map[string]time.Time{}
	var live []string
	var run syncRun
	seen := func(pod, step string) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := pending[pod]; ok && c.step == step {
			run.byKind[c.kind] = append(run.byKind[c.kind], time.Since(c.sent))
			if t, ok := shownBySource[pod+"\x00"+step]; ok {
				run.afterSource = append(run.afterSource, time.Since(t))
			}
			delete(pending, pod)
			if step != "" {
				live = append(live, pod)
			}
		}
	}
	go func() {
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				seen(p.Name, p.Labels["step"])
			case watch.Deleted:
				seen(p.Name, "")
			}
		}
	}()
	go func() {
		for ev := range sw.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			step := p.Labels["step"]
			if ev.Type == watch.Deleted {
				step = ""
			}
			mu.Lock()
			if _, ok := shownBySource[p.Name+"\x00"+step]; !ok {
				shownBySource[p.Name+"\x00"+step] = time.Now()
			}
			mu.Unlock()
		}
	}()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			if total, byProgram, err := framework.TreeMemory(sim.PID()); err == nil {
				mu.Lock()
				if total.RSS > run.rssMax {
					run.rssMax, run.rssByProgram = total.RSS, byProgram
				}
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	defer close(done)

	// Each change runs on a writer of its own, so that a slow answer does
	// not hold up the rate.
	var writers sync.WaitGroup
	var failures atomic.Int64
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		<-tick.C
		step := strconv.Itoa(i)
		mu.Lock()
		kind, name := i%4, ""
		if kind >= 2 && len(live) > 0 {
			j := rand.IntN(len(live))
			name, live[j] = live[j], live[len(live)-1]
			live = live[:len(live)-1]
		} else {
			kind, name = 0, fmt.Sprintf("sync-%d", i)
		}
		c := change{step, time.Now(), kind}
		if kind == 3 {
			c.step = ""
		}
		pending[name] = c
		run.changes++
		mu.Unlock()
		writers.Go(func() {
			var err error
			switch kind {
			case 0:
				p := boundPod(ns, name, fmt.Sprintf("node-%d", i%nodes))
				p.Labels = map[string]string{"step": step}
				_, err = src.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
			case 2:
				patch := fmt.Sprintf(`{"metadata":{"labels":{"step":%q}}}`, step)
				_, err = src.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			case 3:
				err = src.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
			}
			if err != nil {
				failures.Add(1)
				tb.Errorf("change %d of Pod %s: %v", i, name, err)
				return
			}
			// The change is the source's once it answered: the lag runs
			// from then, unless the mirror showed it already.
			mu.Lock()
			if p, ok := pending[name]; ok && p.step == c.step {
				pending[name] = change{c.step, time.Now(), c.kind}
			}
			mu.Unlock()
		})
	}
	writers.Wait()
	if failures.Load() > 0 {
		tb.FailNow()
	}
	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(pending) == 0, nil
	})
	mu.Lock()
	defer mu.Unlock()
	run.missed = len(pending)
	for pod, c := range pending {
		tb.Logf("never shown in the mirror: Pod %s's %s (step %q)", pod, [...]string{"create", "", "relabel", "delete"}[c.kind], c.step)
	}
	return run
}

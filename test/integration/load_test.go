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
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// The load of issue 13: many long watches through simulators/proxy while
// objects change inside, for as long as a real client would keep them.
const (
	loadWatchers = 50
	// loadDuration is how long the writer writes: long enough for every
	// watcher that asks for a server timeout (60 to 108 s) to see its
	// watch end there and resume at least once. SIM_LOAD_DURATION (a Go
	// duration, e.g. 10m) makes it a longer soak.
	loadDuration = 3 * time.Minute
	// loadTick is the writer's pace: each tick creates, updates and
	// deletes one ConfigMap, so every kind of event flows all along.
	loadTick = 500 * time.Millisecond
	// goroutineMargin is how far above its baseline sim-apiserver's
	// goroutine count may stay once the watchers are gone: a leak of one
	// goroutine per watch (or per watch restart) is far above it.
	goroutineMargin = 20
	// heapMargin bounds the growth of sim-apiserver's live heap (after a GC)
	// once the watchers are gone.
	heapMargin = 64 << 20
)

// writtenEvent is one change the writer made: what every watcher must see.
type writtenEvent struct {
	typ  watch.EventType
	name string
	rv   string
}

// TestProxyWatchersUnderLoad keeps 50 watchers on one simulator through the
// host and simulators/proxy for 3 minutes while a writer changes
// ConfigMaps inside at a steady pace. Half of the watchers ask for a server
// timeout (timeoutSeconds, 60 s to 109 s) and resume from their last
// resourceVersion each time it ends; the others ask for none, so the inner
// apiserver's own (30 to 60 minutes) outlasts the test. No watch may end
// before the timeout it asked for, and every watcher must see every change,
// once, in resourceVersion order. Afterwards sim-apiserver's goroutines
// and live heap are back near what they were before the watchers.
func TestProxyWatchersUnderLoad(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "load")
	runningSimulator(t, ns, "watched")

	// The watchers' client: no client-side timeout, which would end a
	// watch early.
	cfg := rest.CopyConfig(c.Config)
	cfg.Host += framework.SimulatorPath(ns, "watched", "proxy", "")
	cfg.Timeout = 0
	cfg.QPS, cfg.Burst = -1, 0
	inner, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const target = "load"
	if _, err := inner.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: target}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Only the writer's: the inner controller-manager adds kube-root-ca.crt.
	const selector = "written-by=load-test"
	list, err := inner.CoreV1().ConfigMaps(target).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	startRV := list.ResourceVersion

	// The baseline: sim-apiserver with the simulator's proxy in use.
	before := simAPIServerFigures(t)
	t.Logf("sim-apiserver before the watchers: %s", before)

	watchCtx, stopWatchers := context.WithCancel(ctx)
	defer stopWatchers()
	watchers := make([]*proxyWatcher, loadWatchers)
	var wg sync.WaitGroup
	for i := range watchers {
		w := &proxyWatcher{client: inner, namespace: target, selector: selector, rv: startRV}
		if i%2 == 0 {
			w.timeout = ptr.To(int64(60 + i))
		}
		watchers[i] = w
		wg.Go(func() { w.run(watchCtx) })
	}

	// The writer, at a steady pace until the time is up.
	var written []writtenEvent
	cms := inner.CoreV1().ConfigMaps(target)
	record := func(typ watch.EventType, cm *corev1.ConfigMap, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("writer: %s: %v", typ, err)
		}
		written = append(written, writtenEvent{typ: typ, name: cm.Name, rv: cm.ResourceVersion})
	}
	name := func(i int) string { return fmt.Sprintf("cm-%05d", i) }
	ticker := time.NewTicker(loadTick)
	defer ticker.Stop()
	duration := loadDuration
	if v := os.Getenv("SIM_LOAD_DURATION"); v != "" {
		if duration, err = time.ParseDuration(v); err != nil || duration < loadDuration {
			t.Fatalf("SIM_LOAD_DURATION=%q: want a Go duration of at least %v", v, loadDuration)
		}
	}
	deadline := time.Now().Add(duration)
	var during figures
	for i := 0; time.Now().Before(deadline); i++ {
		<-ticker.C
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name(i), Labels: map[string]string{"written-by": "load-test"}}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
		record(watch.Added, cm, err)
		if i >= 1 {
			cm, err := cms.Get(ctx, name(i-1), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cm.Data["v"] = "1"
			cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
			record(watch.Modified, cm, err)
		}
		if i >= 2 {
			// A delete returns no object: the event's resourceVersion is the
			// one the deletion wrote, which the watchers report.
			var deleted *corev1.ConfigMap
			err := cms.Delete(ctx, name(i-2), metav1.DeleteOptions{})
			if err == nil {
				deleted = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name(i - 2)}}
			}
			record(watch.Deleted, deleted, err)
		}
		if i == int(duration/loadTick)/2 {
			during = simAPIServerFigures(t)
			t.Logf("sim-apiserver with %d watchers: %s", loadWatchers, during)
		}
	}
	t.Logf("writer: %d changes in %v", len(written), duration)

	// Every watcher sees the last change, then they end.
	last := len(written)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		for _, w := range watchers {
			if w.seen() < last {
				return false, nil
			}
		}
		return true, nil
	})
	stopWatchers()
	wg.Wait()
	if err != nil {
		for i, w := range watchers {
			if n := w.seen(); n < last {
				t.Errorf("watcher %d saw %d of %d changes", i, n, last)
			}
		}
	}

	var watches, timedOut int
	var shortest, longest time.Duration
	for i, w := range watchers {
		for _, e := range w.failures {
			t.Errorf("watcher %d: %s", i, e)
		}
		for _, d := range w.ended {
			timedOut++
			if shortest == 0 || d < shortest {
				shortest = d
			}
			longest = max(longest, d)
		}
		watches += w.watches
		// Every change, once, in resourceVersion order. A delete answers
		// with no object, so the writer knows no resourceVersion of it:
		// there the order alone is checked.
		if len(w.events) != len(written) {
			t.Errorf("watcher %d saw %d events, want %d", i, len(w.events), len(written))
			continue
		}
		var prev int64
		for j, e := range w.events {
			want := written[j]
			rv, err := strconv.ParseInt(e.rv, 10, 64)
			if e.typ != want.typ || e.name != want.name || (want.rv != "" && e.rv != want.rv) || err != nil || rv <= prev {
				t.Errorf("watcher %d event %d: %s %s rv %s (previous %d), want %s %s rv %s", i, j, e.typ, e.name, e.rv, prev, want.typ, want.name, want.rv)
				break
			}
			prev = rv
		}
	}
	delivered := 0
	for _, w := range watchers {
		delivered += len(w.events)
	}
	t.Logf("%d watchers made %d watches; %d ended at their server timeout (%v to %v), none earlier; %d changes written, %d events delivered in all",
		loadWatchers, watches, timedOut, shortest.Round(time.Second), longest.Round(time.Second), last, delivered)

	// Once the watchers are gone, sim-apiserver is back near where it was.
	var after figures
	err = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(context.Context) (bool, error) {
		after = simAPIServerFigures(t)
		return after.goroutines <= before.goroutines+goroutineMargin && after.heap <= before.heap+heapMargin, nil
	})
	t.Logf("sim-apiserver after the watchers: %s", after)
	if err != nil {
		t.Errorf("sim-apiserver did not come back near its baseline: before %s, after %s (margins: %d goroutines, %d MiB heap)",
			before, after, goroutineMargin, heapMargin>>20)
	}
}

// proxyWatcher watches ConfigMaps of one namespace inside a simulator,
// resuming from the last resourceVersion it saw whenever a watch ends at
// the server's timeout.
type proxyWatcher struct {
	client    kubernetes.Interface
	namespace string
	selector  string
	timeout   *int64 // timeoutSeconds, nil for the server's default
	rv        string

	mu       sync.Mutex
	events   []writtenEvent
	ended    []time.Duration // watches that ended at their server timeout
	watches  int
	failures []string
}

func (w *proxyWatcher) seen() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.events)
}

func (w *proxyWatcher) fail(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failures = append(w.failures, fmt.Sprintf(format, args...))
}

func (w *proxyWatcher) run(ctx context.Context) {
	for ctx.Err() == nil {
		start := time.Now()
		wi, err := w.client.CoreV1().ConfigMaps(w.namespace).Watch(ctx, metav1.ListOptions{LabelSelector: w.selector, ResourceVersion: w.rv, TimeoutSeconds: w.timeout})
		if err != nil {
			if ctx.Err() == nil {
				w.fail("starting a watch from resourceVersion %s: %v", w.rv, err)
			}
			return
		}
		w.mu.Lock()
		w.watches++
		w.mu.Unlock()
		if !w.drain(ctx, wi) {
			return
		}
		lasted := time.Since(start)
		if ctx.Err() != nil {
			return
		}
		// The server ended the watch: only its timeout may do that.
		if w.timeout == nil || lasted < time.Duration(*w.timeout)*time.Second {
			w.fail("a watch ended after %v, before its server timeout (timeoutSeconds %v)", lasted.Round(time.Millisecond), ptr.Deref(w.timeout, 0))
			return
		}
		w.mu.Lock()
		w.ended = append(w.ended, lasted)
		w.mu.Unlock()
	}
}

// drain records the events of one watch until it ends; false means the
// watcher must stop (an error event, or ctx done).
func (w *proxyWatcher) drain(ctx context.Context, wi watch.Interface) bool {
	defer wi.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return true
			}
			cm, isCM := ev.Object.(*corev1.ConfigMap)
			if !isCM {
				w.fail("event %s with %T: %v", ev.Type, ev.Object, ev.Object)
				return false
			}
			w.mu.Lock()
			w.events = append(w.events, writtenEvent{typ: ev.Type, name: cm.Name, rv: cm.ResourceVersion})
			w.rv = cm.ResourceVersion
			w.mu.Unlock()
		}
	}
}

// figures are sim-apiserver's goroutines, live heap (after a GC) and RSS.
type figures struct {
	goroutines int
	heap       int64
	rss        int64
}

func (f figures) String() string {
	return fmt.Sprintf("%d goroutines, heap %d MiB, RSS %d MiB", f.goroutines, f.heap>>20, f.rss>>20)
}

// simAPIServerFigures reads sim-apiserver's figures: a heap profile with
// gc=1 runs a GC first, so the heap is what is live; /metrics then has the
// goroutines and the heap; /proc has the RSS.
func simAPIServerFigures(t testing.TB) figures {
	t.Helper()
	c := hostCluster(t)
	direct, err := kubernetes.NewForConfig(c.FrontProxyConfig("load-test", "system:masters"))
	if err != nil {
		t.Fatal(err)
	}
	client := direct.Discovery().RESTClient()
	ctx := t.Context()
	if err := client.Get().AbsPath("/debug/pprof/heap").Param("gc", "1").Do(ctx).Error(); err != nil {
		t.Fatalf("sim-apiserver's heap profile: %v", err)
	}
	body, err := client.Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatalf("sim-apiserver's /metrics: %v", err)
	}
	var f figures
	for _, line := range strings.Split(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			f.goroutines = int(v)
		case "go_memstats_heap_alloc_bytes":
			f.heap = int64(v)
		}
	}
	if f.goroutines == 0 || f.heap == 0 {
		t.Fatalf("sim-apiserver's /metrics lacks go_goroutines or go_memstats_heap_alloc_bytes")
	}
	pid, err := c.ProcessPID("sim-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	if f.rss, err = framework.ProcessRSS(pid); err != nil {
		t.Fatal(err)
	}
	return f
}

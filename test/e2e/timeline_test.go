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

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// startupTimeline is where the time from a simulator's create to Available
// goes: when its Pod was first seen created, bound to the node, with every
// container running and Ready (a host watch, on the test's clock, which the
// node shares), and when the simulator process started kube-apiserver and
// became ready (its log's timestamps). The watch's goroutine alone writes
// the times; report reads them once it has ended.
type startupTimeline struct {
	podCreated, bound, running, ready time.Time
	stop                              context.CancelFunc
	done                              chan struct{}
}

// watchStartup starts recording the Pods of simulator name in ns, before
// the simulator is created.
func watchStartup(tb testing.TB, ns, name string) *startupTimeline {
	tb.Helper()
	ctx, cancel := context.WithCancel(tb.Context())
	w, err := hostCluster(tb).Client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=" + name})
	if err != nil {
		cancel()
		tb.Fatalf("watching the Pods of simulator %s: %v", name, err)
	}
	t := &startupTimeline{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			t.observe(pod, time.Now())
		}
	}()
	return t
}

func (t *startupTimeline) observe(pod *corev1.Pod, now time.Time) {
	first := func(at *time.Time, cond bool) {
		if cond && at.IsZero() {
			*at = now
		}
	}
	first(&t.podCreated, true)
	first(&t.bound, pod.Spec.NodeName != "")
	running := len(pod.Status.ContainerStatuses) > 0
	for _, cs := range pod.Status.ContainerStatuses {
		running = running && cs.State.Running != nil
	}
	first(&t.running, running)
	for _, c := range pod.Status.Conditions {
		first(&t.ready, c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue)
	}
}

// milestone is a point of a simulator's start, as long after its create.
type milestone struct {
	// name is a metric's: pod-created, …, available.
	name  string
	after time.Duration
}

// report stops the watch and logs the timeline from start (the create)
// to available, with the simulator container's own milestones read from
// its log; it returns the milestones seen, in order.
func (t *startupTimeline) report(tb testing.TB, pod *corev1.Pod, start, available time.Time) []milestone {
	tb.Helper()
	t.stop()
	<-t.done
	// The simulator logs itself ready after a check of its own, which may
	// come just after the kubelet's probe found it ready; kwok may start
	// just after too (once kube-apiserver is ready, polled every 100 ms).
	var logged map[string]time.Time
	poll(tb, "the simulator of Pod "+pod.Name+" to log itself ready", time.Minute, func(context.Context) (bool, string) {
		logged = simulatorLogMilestones(tb, pod, start)
		_, ready := logged["ready"]
		_, kwok := logged["kwok started"]
		return ready && kwok, fmt.Sprintf("milestones %v", logged)
	})
	// Each child starts on a sign (app.go): kube-apiserver once etcd
	// listens, sim-scheduler once kube-apiserver serves and the scheduler
	// configuration is checked, kwok and kube-controller-manager once
	// kube-apiserver is ready.
	all := []struct {
		name, says string
		at         time.Time
	}{
		{"pod-created", "Pod created", t.podCreated},
		{"pod-bound", "bound", t.bound},
		{"containers-running", "containers running", t.running},
		{"kube-apiserver-started", "kube-apiserver started (etcd listens)", logged["kube-apiserver started"]},
		{"sim-scheduler-started", "sim-scheduler started (kube-apiserver serves)", logged["sim-scheduler started"]},
		{"kwok-started", "kwok started (kube-apiserver ready)", logged["kwok started"]},
		{"simulator-ready", "simulator ready", logged["ready"]},
		{"pod-ready", "Pod Ready", t.ready},
		{"available", "Available", available},
	}
	var seen []milestone
	var parts []string
	for _, m := range all {
		if m.at.IsZero() {
			parts = append(parts, m.says+" unseen")
			continue
		}
		seen = append(seen, milestone{m.name, m.at.Sub(start)})
		parts = append(parts, fmt.Sprintf("%s +%.2fs", m.says, m.at.Sub(start).Seconds()))
	}
	tb.Logf("%s: %s", pod.Name, strings.Join(parts, ", "))
	return seen
}

// reportMilestones reports the median of each milestone over runs, as
// start-NAME-median-s.
func reportMilestones(b *testing.B, runs [][]milestone) {
	b.Helper()
	byName := map[string][]time.Duration{}
	var order []string
	for _, run := range runs {
		for _, m := range run {
			if _, ok := byName[m.name]; !ok {
				order = append(order, m.name)
			}
			byName[m.name] = append(byName[m.name], m.after)
		}
	}
	for _, name := range order {
		d := byName[name]
		slices.Sort(d)
		b.ReportMetric(d[len(d)/2].Seconds(), "start-"+name+"-median-s")
	}
}

// simulatorLogMilestones reads, from the simulator container's log, when it
// first started each child or each component of its control plane's one
// process ("NAME started") and when it logged itself ready ("ready").
// klog's timestamps carry no year: they are placed on the day of ref.
func simulatorLogMilestones(tb testing.TB, pod *corev1.Pod, ref time.Time) map[string]time.Time {
	tb.Helper()
	out := map[string]time.Time{}
	scanner := bufio.NewScanner(strings.NewReader(podLog(tb, pod.Namespace, pod.Name, contract.SimulatorContainer)))
	scanner.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		var key string
		switch {
		case strings.Contains(line, `"Started child"`):
			// … "Started child" pid=123 path="/usr/local/bin/kube-apiserver"
			path, ok := logValue(line, "path")
			if !ok {
				continue
			}
			key = filepath.Base(path) + " started"
		case strings.Contains(line, `"Starting component"`):
			// … "Starting component" component="kube-apiserver": one of
			// the control plane's, in its one process (as shipped).
			name, ok := logValue(line, "component")
			if !ok {
				continue
			}
			key = name + " started"
		case strings.Contains(line, `"Simulator ready"`):
			key = "ready"
		default:
			continue
		}
		// I1130 23:01:51.248468   15054 app.go:200] "…", a child's line
		// after its name: [control-plane] I1130 …
		if strings.HasPrefix(line, "[") {
			_, line, _ = strings.Cut(line, "] ")
		}
		fields := strings.Fields(line)
		if len(fields) < 2 || len(fields[0]) != 5 {
			continue
		}
		at, err := time.Parse("0102 15:04:05.000000", fields[0][1:]+" "+fields[1])
		if err != nil {
			continue
		}
		ref := ref.UTC()
		at = time.Date(ref.Year(), at.Month(), at.Day(), at.Hour(), at.Minute(), at.Second(), at.Nanosecond(), time.UTC)
		if _, seen := out[key]; !seen {
			out[key] = at
		}
	}
	return out
}

// logValue is the quoted value of key in a klog line: … key="value".
func logValue(line, key string) (string, bool) {
	_, rest, ok := strings.Cut(line, " "+key+`="`)
	if !ok {
		return "", false
	}
	value, _, _ := strings.Cut(rest, `"`)
	return value, true
}

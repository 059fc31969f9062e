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
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// densityBatch is how many simulators start at once while the node fills:
// more would only queue on its two CPUs.
const densityBatch = 4

// densityCPUWindow is how long the idle simulators' CPU is read over.
const densityCPUWindow = 30 * time.Second

// BenchmarkDensity: SIM_BENCH_DENSITY (default 40) simulators on the one
// node, all Available, then idle SIM_BENCH_IDLE (default 60s): their
// summed CPU over the next 30 s (their containers' cgroups) and working
// set, in all and per simulator. Then, one per iteration, the last
// simulator deleted and created again: create → Available while the node
// holds the others (the first iteration's is when the node filled), and
// where the time went.
func BenchmarkDensity(b *testing.B) {
	c := hostCluster(b)
	n := framework.BenchCount(b, "SIM_BENCH_DENSITY", 40, 2)
	ns := newNamespace(b, "bench-density-")
	client := simClient(b).SimV1alpha1().Simulators(ns)
	waitNodeAtRest(b, c)

	create := func(name string) {
		b.Helper()
		if _, err := client.Create(b.Context(), &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	others := make([]string, n-1)
	for i := range others {
		others[i] = fmt.Sprintf("density-%02d", i)
	}
	made := 0
	for batch := range slices.Chunk(others, densityBatch) {
		batchStart := time.Now()
		for _, name := range batch {
			create(name)
		}
		for _, name := range batch {
			waitAvailable(b, ns, name)
		}
		made += len(batch)
		b.Logf("%d simulators Available (%d more in %v)", made, len(batch), time.Since(batchStart).Round(100*time.Millisecond))
	}
	b.Logf("%d simulators Available on node %s %v after the first create, %d at a time", n-1, c.NodeName, time.Since(start).Round(time.Second), densityBatch)

	last := fmt.Sprintf("density-%02d", n-1)
	var times []time.Duration
	var starts [][]milestone
	measured := false
	for b.Loop() {
		timeline := watchStartup(b, ns, last)
		start := time.Now()
		create(last)
		s := waitAvailable(b, ns, last)
		available := time.Now()
		times = append(times, available.Sub(start))
		starts = append(starts, timeline.report(b, simulatorPod(b, s), start, available))
		if !measured {
			measured = true
			b.StopTimer()
			reportDensity(b, ns, n)
			b.StartTimer()
		}
		if err := client.Delete(b.Context(), last, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		poll(b, "the Pod of "+last+" to be gone", 2*time.Minute, func(ctx context.Context) (bool, string) {
			pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=" + s.Name})
			if err != nil {
				return false, err.Error()
			}
			return len(pods.Items) == 0, fmt.Sprintf("%d Pods", len(pods.Items))
		})
	}
	slices.Sort(times)
	b.ReportMetric(times[len(times)/2].Seconds(), "create-to-available-median-s")
	b.ReportMetric(times[len(times)-1].Seconds(), "create-to-available-max-s")
	reportMilestones(b, starts)
}

// reportDensity waits SIM_BENCH_IDLE, then reports the idle CPU and
// working set of the n simulators of ns, all Available.
func reportDensity(b *testing.B, ns string, n int) {
	b.Helper()
	list, err := simClient(b).SimV1alpha1().Simulators(ns).List(b.Context(), metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var pods []*corev1.Pod
	for i := range list.Items {
		s := &list.Items[i]
		if s.Status.Phase != v1alpha1.SimulatorAvailable {
			b.Fatalf("simulator %s is %s, want all %d Available", s.Name, s.Status.Phase, n)
		}
		pods = append(pods, simulatorPod(b, s))
	}
	if len(pods) != n {
		b.Fatalf("%d simulators, want %d", len(pods), n)
	}
	time.Sleep(framework.BenchIdle(b, time.Minute))

	before, machineBefore, programsBefore := podsCPU(b, pods), machineCPU(b), programsCPU(b, pods)
	time.Sleep(densityCPUWindow)
	after, machineAfter, programsAfter := podsCPU(b, pods), machineCPU(b), programsCPU(b, pods)
	millicores := float64(after-before) / float64(densityCPUWindow) * 1000
	// Everything the machine ran: the simulators, and the kubelet's probes
	// of them, the host's control plane and sim-apiserver serving them.
	machine := float64(machineAfter-machineBefore) / float64(densityCPUWindow) * 1000
	var workingSet int64
	var most float64
	for _, pod := range pods {
		ws := podMemory(b, pod).cgroup.WorkingSet
		workingSet += ws
		most = max(most, framework.MiB(ws))
	}
	b.ReportMetric(float64(n), "simulators")
	b.ReportMetric(millicores, "idle-millicores-total")
	b.ReportMetric(millicores/float64(n), "idle-millicores-per-simulator")
	b.ReportMetric(machine, "machine-millicores-total")
	// By program: a process that started or ended inside the window is
	// left out (its CPU is in the cgroups' figure).
	programs := byProgram(programsBefore, programsAfter)
	var parts []string
	for _, program := range slices.Sorted(maps.Keys(programs)) {
		mc := float64(programs[program]) / float64(densityCPUWindow) * 1000 / float64(n)
		b.ReportMetric(mc, "idle-millicores-"+program+"-per-simulator")
		parts = append(parts, fmt.Sprintf("%s %.1f", program, mc))
	}
	b.Logf("idle millicores per simulator by program: %s", strings.Join(parts, ", "))
	b.ReportMetric(framework.MiB(workingSet), "working-set-total-MiB")
	b.ReportMetric(framework.MiB(workingSet)/float64(n), "working-set-per-simulator-MiB")
	b.ReportMetric(most, "working-set-largest-MiB")
	b.Logf("%d idle simulators: %.0f millicores over %v (%.1f each; the machine %.0f), working set %.0f MiB (%.0f each, largest %.0f)",
		n, millicores, densityCPUWindow, millicores/float64(n), machine, framework.MiB(workingSet), framework.MiB(workingSet)/float64(n), most)
}

// podsCPU is the CPU time the containers of pods have used.
func podsCPU(b *testing.B, pods []*corev1.Pod) time.Duration {
	b.Helper()
	var total time.Duration
	for _, pod := range pods {
		for _, cs := range pod.Status.ContainerStatuses {
			used, err := framework.ContainerCPU(cs.ContainerID)
			if err != nil {
				b.Fatalf("Pod %s, container %s: %v", pod.Name, cs.Name, err)
			}
			total += used
		}
	}
	return total
}

// programsCPU is the CPU time each process of pods has used, so that one
// that came or went between two reads can be left out (byProgram).
func programsCPU(b *testing.B, pods []*corev1.Pod) map[process]time.Duration {
	b.Helper()
	out := map[process]time.Duration{}
	for _, pod := range pods {
		for _, p := range podProcesses(b, pod) {
			used, err := framework.ProcessCPU(p.pid)
			if err != nil {
				continue // exited meanwhile
			}
			out[p] = used
		}
	}
	return out
}

// byProgram is the CPU time each program used between two reads of
// programsCPU, of the processes in both.
func byProgram(before, after map[process]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for p, used := range after {
		if start, ok := before[p]; ok {
			out[p.program] += used - start
		}
	}
	return out
}

// machineCPU is the CPU time the machine has spent busy.
func machineCPU(b *testing.B) time.Duration {
	b.Helper()
	busy, err := framework.MachineCPU()
	if err != nil {
		b.Fatal(err)
	}
	return busy
}

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

package scenario

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/resultstore"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// meter measures what the scheduler does during a run, from informers on
// Pods and Nodes started with it, and from the scheduler's stored results.
// What it keeps of a Pod is a few words (podState), and the informers'
// caches hold slimmed objects (slim): 10,000 Pods take a few MB.
//
// Its measures, as the report gives them:
//   - PodsScheduled: the Pods it saw pending, then bound (at least once;
//     a Pod bound, deleted and made again counts each time). Pods bound
//     before the informers started are the initial state, not counted.
//   - PodsUnschedulable: the Pods pending with PodScheduled=False at the
//     end, but those gated (SchedulingGated).
//   - PodsPreempted: the Pods deleted (or being deleted) after the
//     scheduler marked them its victims (DisruptionTarget,
//     PreemptionByScheduler).
//   - SchedulingAttempts: the results the scheduler stored during the run,
//     one per attempt (an attempt whose Pod is gone before its result is
//     written is not stored); without a results directory, the bindings
//     and the changes of PodScheduled=False the informer saw (fewer: a
//     repeated failure with the same message changes nothing).
//   - Bind latency: from the informer seeing a Pod pending to seeing it
//     bound.
//   - Samples, NodesUsed and CPU/memory: see sample.
type meter struct {
	clock      clock.Clock
	resultsDir string

	mu    sync.Mutex
	pods  map[string]*podState // by namespace/name
	nodes map[string]*nodeState
	// groups interns the placement groups: a ReplicaSet's Pods share one.
	groups map[string]string

	scheduled, preempted, attemptsSeen int64
	latencies                          []time.Duration
	samples                            []contract.ScenarioSample

	// The results stored since the run started: counted, and the latest
	// of each Pod, for the rejections of those left unschedulable.
	resultsMark resultstore.Mark
	attempts    int64
	latest      map[string]resultstore.Entry
	rejections  map[string]int64
}

type podState struct {
	uid  types.UID
	node string
	// group is the Pod's placement group (contract.PlacementGroup).
	group string
	// seen is when the Pod was first seen pending; zero if first seen
	// bound.
	seen time.Time
	// Requests: CPU in millicores, memory in bytes.
	cpu, mem int64
	// schedFalse: PodScheduled=False; gated when for SchedulingGated.
	schedFalse, gated bool
	// condHash tells a new PodScheduled=False from the one seen before.
	condHash           uint64
	victim, preempted  bool
	finished, deleting bool
}

type nodeState struct {
	labels        map[string]string
	cpu, mem      int64 // allocatable
	ready         bool
	unschedulable bool
	deleting      bool
}

func newMeter(clk clock.Clock, resultsDir string) *meter {
	return &meter{clock: clk, resultsDir: resultsDir, pods: map[string]*podState{}, nodes: map[string]*nodeState{},
		groups: map[string]string{}, latest: map[string]resultstore.Entry{}}
}

// start starts the informers and waits for their first list; they stop
// when ctx ends.
func (m *meter) start(ctx context.Context, client kubernetes.Interface) error {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(slim))
	pods := factory.Core().V1().Pods().Informer()
	nodes := factory.Core().V1().Nodes().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.observePod(obj.(*corev1.Pod)) },
		UpdateFunc: func(_, obj any) { m.observePod(obj.(*corev1.Pod)) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if p, ok := obj.(*corev1.Pod); ok {
				m.deletePod(p)
			}
		},
	}); err != nil {
		return fmt.Errorf("watching pods: %w", err)
	}
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { m.observeNode(obj.(*corev1.Node)) },
		UpdateFunc: func(_, obj any) { m.observeNode(obj.(*corev1.Node)) },
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				m.mu.Lock()
				delete(m.nodes, n.Name)
				m.mu.Unlock()
			}
		},
	}); err != nil {
		return fmt.Errorf("watching nodes: %w", err)
	}
	factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		factory.Shutdown()
	}()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("listing %v: %w", typ, context.Cause(ctx))
		}
	}
	return nil
}

// slim keeps of Pods and Nodes what the meter reads: the caches of 10,000
// Pods would otherwise hold their specs and the scheduler's annotations.
func slim(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		out := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, GenerateName: o.GenerateName, UID: o.UID,
				ResourceVersion: o.ResourceVersion, DeletionTimestamp: o.DeletionTimestamp},
			Spec:   corev1.PodSpec{NodeName: o.Spec.NodeName, Overhead: o.Spec.Overhead, Resources: o.Spec.Resources},
			Status: corev1.PodStatus{Phase: o.Status.Phase},
		}
		if ref := metav1.GetControllerOf(o); ref != nil {
			out.OwnerReferences = []metav1.OwnerReference{{Kind: ref.Kind, Name: ref.Name, UID: ref.UID, Controller: ref.Controller}}
		}
		for _, c := range o.Spec.Containers {
			out.Spec.Containers = append(out.Spec.Containers, corev1.Container{Resources: corev1.ResourceRequirements{Requests: c.Resources.Requests}})
		}
		for _, c := range o.Spec.InitContainers {
			out.Spec.InitContainers = append(out.Spec.InitContainers, corev1.Container{RestartPolicy: c.RestartPolicy,
				Resources: corev1.ResourceRequirements{Requests: c.Resources.Requests}})
		}
		for _, c := range o.Status.Conditions {
			if c.Type == corev1.PodScheduled || c.Type == corev1.DisruptionTarget {
				out.Status.Conditions = append(out.Status.Conditions, c)
			}
		}
		return out, nil
	case *corev1.Node:
		out := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: o.Name, Labels: o.Labels, UID: o.UID,
				ResourceVersion: o.ResourceVersion, DeletionTimestamp: o.DeletionTimestamp},
			Spec:   corev1.NodeSpec{Unschedulable: o.Spec.Unschedulable},
			Status: corev1.NodeStatus{Allocatable: o.Status.Allocatable},
		}
		for _, c := range o.Status.Conditions {
			if c.Type == corev1.NodeReady {
				out.Status.Conditions = append(out.Status.Conditions, c)
			}
		}
		return out, nil
	}
	return obj, nil
}

// podRequests is what the scheduler counts of a Pod: its containers and
// sidecars, or its largest init container if more, and its overhead; the
// Pod's own requests (spec.resources) when it has them.
func podRequests(p *corev1.Pod) (cpu, mem int64) {
	var initCPU, initMem, sideCPU, sideMem int64
	for _, c := range p.Spec.InitContainers {
		r := c.Resources.Requests
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sideCPU += r.Cpu().MilliValue()
			sideMem += r.Memory().Value()
			continue
		}
		initCPU = max(initCPU, sideCPU+r.Cpu().MilliValue())
		initMem = max(initMem, sideMem+r.Memory().Value())
	}
	for _, c := range p.Spec.Containers {
		cpu += c.Resources.Requests.Cpu().MilliValue()
		mem += c.Resources.Requests.Memory().Value()
	}
	cpu, mem = max(cpu+sideCPU, initCPU), max(mem+sideMem, initMem)
	if r := p.Spec.Resources; r != nil {
		if q, ok := r.Requests[corev1.ResourceCPU]; ok {
			cpu = q.MilliValue()
		}
		if q, ok := r.Requests[corev1.ResourceMemory]; ok {
			mem = q.Value()
		}
	}
	cpu += p.Spec.Overhead.Cpu().MilliValue()
	mem += p.Spec.Overhead.Memory().Value()
	return cpu, mem
}

func podKey(namespace, name string) string { return namespace + "/" + name }

func (m *meter) observePod(p *corev1.Pod) {
	now := m.clock.Now()
	key := podKey(p.Namespace, p.Name)
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.pods[key]
	if !ok || s.uid != p.UID {
		s = &podState{uid: p.UID}
		s.cpu, s.mem = podRequests(p)
		g := contract.PlacementGroup(p.Namespace, p.Name, p.GenerateName, metav1.GetControllerOf(p) != nil)
		if interned, ok := m.groups[g]; ok {
			g = interned
		} else {
			m.groups[g] = g
		}
		s.group = g
		if p.Spec.NodeName == "" {
			s.seen = now
		}
		m.pods[key] = s
	}
	if p.Spec.NodeName != "" && s.node == "" && !s.seen.IsZero() {
		m.scheduled++
		m.attemptsSeen++
		m.latencies = append(m.latencies, now.Sub(s.seen))
		// Counted once: a Pod is bound once.
		s.seen = time.Time{}
	}
	s.node = p.Spec.NodeName
	s.finished = p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	s.deleting = p.DeletionTimestamp != nil
	s.schedFalse, s.gated = false, false
	for _, c := range p.Status.Conditions {
		switch {
		case c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse:
			s.schedFalse = true
			s.gated = c.Reason == corev1.PodReasonSchedulingGated
			h := fnv.New64a()
			_, _ = fmt.Fprint(h, c.Reason, c.Message, c.LastTransitionTime.UnixNano(), c.LastProbeTime.UnixNano())
			if sum := h.Sum64(); sum != s.condHash {
				s.condHash = sum
				if !s.gated {
					m.attemptsSeen++
				}
			}
		case c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler:
			s.victim = true
		}
	}
	if s.victim && s.deleting && !s.preempted {
		s.preempted = true
		m.preempted++
	}
}

func (m *meter) deletePod(p *corev1.Pod) {
	key := podKey(p.Namespace, p.Name)
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.pods[key]
	if !ok || s.uid != p.UID {
		return
	}
	if !s.preempted {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler {
				s.victim = true
			}
		}
		if s.victim {
			m.preempted++
		}
	}
	delete(m.pods, key)
}

func (m *meter) observeNode(n *corev1.Node) {
	s := &nodeState{
		labels:        n.Labels,
		cpu:           n.Status.Allocatable.Cpu().MilliValue(),
		mem:           n.Status.Allocatable.Memory().Value(),
		unschedulable: n.Spec.Unschedulable,
		deleting:      n.DeletionTimestamp != nil,
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			s.ready = c.Status == corev1.ConditionTrue
		}
	}
	m.mu.Lock()
	m.nodes[n.Name] = s
	m.mu.Unlock()
}

// holds says whether a Pod holds resources on its Node.
func (s *podState) holds() bool { return s.node != "" && !s.finished }

// pending says whether a Pod waits for a Node.
func (s *podState) pending() bool { return s.node == "" && !s.finished && !s.deleting }

// sample takes a sample of the cluster at elapsed: Pods pending and bound,
// the Nodes holding at least one Pod, and the CPU and memory their Pods
// request over what those Nodes have allocatable.
func (m *meter) sample(elapsed time.Duration) contract.ScenarioSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := contract.ScenarioSample{ElapsedMilliseconds: elapsed.Milliseconds()}
	type use struct{ cpu, mem int64 }
	used := map[string]*use{}
	for _, p := range m.pods {
		switch {
		case p.pending():
			s.PodsPending++
		case p.holds():
			s.PodsBound++
			u := used[p.node]
			if u == nil {
				u = &use{}
				used[p.node] = u
			}
			u.cpu += p.cpu
			u.mem += p.mem
		}
	}
	var reqCPU, reqMem, allocCPU, allocMem int64
	for name, u := range used {
		reqCPU += u.cpu
		reqMem += u.mem
		if n := m.nodes[name]; n != nil {
			allocCPU += n.cpu
			allocMem += n.mem
		}
	}
	s.NodesUsed = int32(len(used))
	s.CPUPercent = percent(reqCPU, allocCPU)
	s.MemoryPercent = percent(reqMem, allocMem)
	m.samples = append(m.samples, s)
	return s
}

func percent(part, whole int64) int32 {
	if whole <= 0 {
		return 0
	}
	return int32(math.Round(100 * float64(part) / float64(whole)))
}

// podsSettled says whether every Pod is bound or was found no Node (or is
// gated, or going).
func (m *meter) podsSettled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.pods {
		if p.pending() && !p.schedFalse {
			return false
		}
	}
	return true
}

// nodesReady says whether every Node is Ready.
func (m *meter) nodesReady() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range m.nodes {
		if !n.ready && !n.deleting {
			return false
		}
	}
	return true
}

// nodesMatching counts the Nodes sel selects but those being deleted, and
// says whether all of them are Ready.
func (m *meter) nodesMatching(sel labels.Selector) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ready := 0, true
	for _, node := range m.nodes {
		if node.deleting || !sel.Matches(labels.Set(node.labels)) {
			continue
		}
		n++
		ready = ready && node.ready
	}
	return n, ready
}

// placements counts the Pods bound now (but those going) by group and
// Node.
func (m *meter) placements() map[string]map[string]int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]map[string]int32{}
	for _, p := range m.pods {
		if !p.holds() || p.deleting {
			continue
		}
		g := out[p.group]
		if g == nil {
			g = map[string]int32{}
			out[p.group] = g
		}
		g[p.node]++
	}
	return out
}

// markResults notes where the results store stands: the run's attempts
// are those stored after.
func (m *meter) markResults(ctx context.Context) {
	if m.resultsDir == "" {
		return
	}
	mark, err := resultstore.MarkOf(m.resultsDir)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Reading the scheduling results; attempts are counted from the Pods")
		return
	}
	m.mu.Lock()
	m.resultsMark = mark
	m.mu.Unlock()
}

// scanResults reads the results stored since the last scan (a few lines
// of index each time: it runs with every sample).
func (m *meter) scanResults(ctx context.Context) {
	m.mu.Lock()
	mark := m.resultsMark
	m.mu.Unlock()
	if mark == nil {
		return
	}
	var entries []resultstore.Entry
	next, err := resultstore.Since(m.resultsDir, mark, func(e resultstore.Entry) { entries = append(entries, e) })
	if err != nil {
		klog.FromContext(ctx).V(2).Info("Reading the scheduling results", "err", err)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.resultsMark = next
	m.attempts += int64(len(entries))
	for _, e := range entries {
		m.latest[podKey(e.Namespace, e.Name)] = e
	}
}

// countRejections counts, by plugin, the Nodes the filters rejected in the
// latest attempt of each Pod left unschedulable.
func (m *meter) countRejections(ctx context.Context) {
	m.mu.Lock()
	var entries []resultstore.Entry
	for key, p := range m.pods {
		if p.pending() && p.schedFalse && !p.gated {
			if e, ok := m.latest[key]; ok {
				entries = append(entries, e)
			}
		}
	}
	m.mu.Unlock()
	if m.resultsDir == "" {
		return
	}
	out := map[string]int64{}
	for _, e := range entries {
		d, err := resultstore.Read(m.resultsDir, e)
		if err != nil {
			klog.FromContext(ctx).V(2).Info("Reading a scheduling result", "pod", klog.KRef(e.Namespace, e.Name), "err", err)
			continue
		}
		t := &d.Filter
		for i := range t.Nodes {
			if i >= len(t.Of) || t.Of[i] < 0 || t.Of[i] >= len(t.Verdicts) {
				break
			}
			for _, r := range t.Verdicts[t.Of[i]] {
				if r.Result != passed {
					out[r.Plugin]++
				}
			}
		}
	}
	m.mu.Lock()
	m.rejections = out
	m.mu.Unlock()
}

// passed is a filter plugin's result on a Node it let through.
const passed = "passed"

// fill sets the measures of r.
func (m *meter) fill(r *contract.ScenarioReport) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r.PodsScheduled = m.scheduled
	r.PodsPreempted = m.preempted
	r.PodsUnschedulable = 0
	for _, p := range m.pods {
		if p.pending() && p.schedFalse && !p.gated {
			r.PodsUnschedulable++
		}
	}
	r.SchedulingAttempts = m.attemptsSeen
	if m.resultsMark != nil {
		r.SchedulingAttempts = m.attempts
	}
	if len(m.latencies) > 0 {
		l := slices.Clone(m.latencies)
		slices.Sort(l)
		r.BindP50Milliseconds = percentile(l, 50).Milliseconds()
		r.BindP99Milliseconds = percentile(l, 99).Milliseconds()
	}
	r.Samples = slices.Clone(m.samples)
	// The ratios are over the samples with a Node holding Pods: without
	// one, there is nothing to divide.
	var cpu, mem []int32
	r.NodesUsed = 0
	for _, s := range m.samples {
		r.NodesUsed = max(r.NodesUsed, s.NodesUsed)
		if s.NodesUsed > 0 {
			cpu = append(cpu, s.CPUPercent)
			mem = append(mem, s.MemoryPercent)
		}
	}
	r.CPUMeanPercent, r.CPUP90Percent = meanAndP90(cpu)
	r.MemoryMeanPercent, r.MemoryP90Percent = meanAndP90(mem)
	r.LargestFit = m.largestFitLocked()
	if m.rejections != nil {
		r.Rejections = m.rejections
	}
}

func meanAndP90(values []int32) (int32, int32) {
	if len(values) == 0 {
		return 0, 0
	}
	var sum int64
	for _, v := range values {
		sum += int64(v)
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return int32(math.Round(float64(sum) / float64(len(values)))), percentile(sorted, 90)
}

// largestFitLocked is the largest CPU and memory request one schedulable
// Node could still take: its allocatable less what its Pods request, the
// most over the Nodes (each resource on its own).
func (m *meter) largestFitLocked() map[string]string {
	type use struct{ cpu, mem int64 }
	used := map[string]*use{}
	for _, p := range m.pods {
		if p.holds() {
			u := used[p.node]
			if u == nil {
				u = &use{}
				used[p.node] = u
			}
			u.cpu += p.cpu
			u.mem += p.mem
		}
	}
	var cpu, mem int64
	found := false
	for name, n := range m.nodes {
		if !n.ready || n.unschedulable || n.deleting {
			continue
		}
		found = true
		u := used[name]
		if u == nil {
			u = &use{}
		}
		cpu = max(cpu, n.cpu-u.cpu)
		mem = max(mem, n.mem-u.mem)
	}
	if !found {
		return nil
	}
	return map[string]string{
		string(corev1.ResourceCPU):    resource.NewMilliQuantity(cpu, resource.DecimalSI).String(),
		string(corev1.ResourceMemory): resource.NewQuantity(mem, resource.BinarySI).String(),
	}
}

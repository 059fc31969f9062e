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
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// Annotations and Events of cmd/sim-scheduler (its own module, so not
// imported here).
const (
	resultPrefix      = "kube-scheduler-simulator.sigs.k8s.io/"
	summaryAnnotation = "sim.x-k8s.io/scheduling-result"
	resultEventReason = "SchedulingResult"
	scheduledReason   = "Scheduled"
	resultsPath       = "/api/v1/schedulingresults/"
)

type resultSummary struct {
	Outcome        string `json:"outcome"`
	SelectedNode   string `json:"selectedNode"`
	Nodes          int    `json:"nodes"`
	Evaluated      int    `json:"evaluated"`
	Feasible       int    `json:"feasible"`
	FilterFailures []struct {
		Plugin, Reason string
		Nodes          int
	} `json:"filterFailures"`
	TopScores []struct {
		Node  string
		Score int64
	} `json:"topScores"`
}

type fullResult struct {
	Name       string                       `json:"name"`
	Summary    resultSummary                `json:"summary"`
	Filter     map[string]map[string]string `json:"filter-result"`
	FinalScore map[string]map[string]string `json:"finalscore-result"`
}

func cpuPod(name, cpu string) *corev1.Pod {
	p := testPod("default", name)
	p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	return p
}

// waitResult waits for the Pod's compact result with the given outcome.
func waitResult(t *testing.T, c kubernetes.Interface, name, outcome string) (*corev1.Pod, resultSummary) {
	t.Helper()
	return waitResultWhere(t, c, name, func(s resultSummary) bool { return s.Outcome == outcome })
}

// waitResultWhere waits for a summary on the Pod for which done is true.
func waitResultWhere(t *testing.T, c kubernetes.Interface, name string, done func(resultSummary) bool) (*corev1.Pod, resultSummary) {
	t.Helper()
	ctx := framework.TimeoutContext(t, 2*time.Minute)
	var pod *corev1.Pod
	var s resultSummary
	framework.WaitUntil(t, 2*time.Minute, "pod "+name+"'s scheduling result", func() (bool, error) {
		var err error
		if pod, err = c.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		v, ok := pod.Annotations[summaryAnnotation]
		if !ok {
			return false, nil
		}
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			return false, err
		}
		return done(s), nil
	})
	return pod, s
}

func schedulingResult(t *testing.T, s *framework.StandaloneSimulator, name string) fullResult {
	t.Helper()
	status, body := s.Do(t, http.MethodGet, resultsPath+"default/"+name, "")
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d %s", resultsPath+"default/"+name, status, body)
	}
	var r fullResult
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// eventNote waits for an Event of the Pod with reason whose note starts
// with prefix, and returns its note.
func eventNote(t *testing.T, c kubernetes.Interface, pod *corev1.Pod, reason, prefix string) string {
	t.Helper()
	return eventMatching(t, c, pod, reason, prefix, func(note string) bool { return strings.HasPrefix(note, prefix) })
}

// eventMatching waits for an Event of the Pod with reason whose note
// matches, and returns its note.
func eventMatching(t *testing.T, c kubernetes.Interface, pod *corev1.Pod, reason, what string, match func(string) bool) string {
	t.Helper()
	var note string
	framework.WaitUntil(t, time.Minute, "the "+reason+" event of "+pod.Name+": "+what, func() (bool, error) {
		list, err := events(t, c, pod, reason)
		if err != nil {
			return false, nil
		}
		for _, e := range list {
			if match(e.Message) {
				note = e.Message
				return true, nil
			}
		}
		return false, nil
	})
	return note
}

// events lists the Pod's Events with reason.
func events(t *testing.T, c kubernetes.Interface, pod *corev1.Pod, reason string) ([]corev1.Event, error) {
	t.Helper()
	list, err := c.CoreV1().Events("default").List(framework.TimeoutContext(t, time.Minute), metav1.ListOptions{FieldSelector: fields.AndSelectors(
		fields.OneTermEqualSelector("involvedObject.uid", string(pod.UID)),
		fields.OneTermEqualSelector("reason", reason)).String()})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// createNodes creates n nodes named <prefix>-<i> with 32 workers. Nodes
// for kwok are waited for until Ready (kwok made them so): the tests' Pods
// then go to Nodes kwok already plays.
func createNodes(t testing.TB, c kubernetes.Interface, prefix string, n int, kwok bool) {
	t.Helper()
	ctx := framework.TimeoutContext(t, 5*time.Minute)
	work := make(chan int)
	errs := make(chan error, 32)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range work {
				node := fakeNode(fmt.Sprintf("%s-%d", prefix, i))
				if !kwok {
					// Nodes kwok leaves alone: the scheduler needs no heartbeat.
					delete(node.Annotations, "kwok.x-k8s.io/node")
				}
				if _, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range n {
		select {
		case work <- i:
		case err := <-errs:
			t.Fatalf("creating nodes: %v", err)
		}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatalf("creating nodes: %v", err)
	default:
	}
	if kwok {
		for i := range n {
			waitNodeReady(t, c, fmt.Sprintf("%s-%d", prefix, i))
		}
	}
}

// TestSchedulingResults checks that the simulator's scheduler explains its
// decisions: on the Pod (kube-scheduler-simulator's annotations and a
// compact summary), in an Event, and in full from the simulator's API.
func TestSchedulingResults(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/results/uid-1")
	sim.WaitReady(t, 2*time.Minute)
	c := sim.Client(t)
	ctx := framework.TimeoutContext(t, 10*time.Minute)
	createNodes(t, c, "small", 5, true)

	t.Run("a Pod that fits nowhere shows every node's filter reason", func(t *testing.T) {
		if _, err := c.CoreV1().Pods("default").Create(ctx, cpuPod("huge", "100"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod, s := waitResult(t, c, "huge", "Unschedulable")
		var filter map[string]map[string]string
		if err := json.Unmarshal([]byte(pod.Annotations[resultPrefix+"filter-result"]), &filter); err != nil {
			t.Fatalf("filter-result: %v", err)
		}
		if len(filter) != 5 {
			t.Errorf("filter-result has %d nodes, want 5: %v", len(filter), filter)
		}
		for node, plugins := range filter {
			if plugins["NodeResourcesFit"] != "Insufficient cpu" {
				t.Errorf("node %s: NodeResourcesFit %q, want Insufficient cpu (%v)", node, plugins["NodeResourcesFit"], plugins)
			}
		}
		if len(s.FilterFailures) != 1 || s.FilterFailures[0].Nodes != 5 {
			t.Errorf("summary filter failures %+v, want NodeResourcesFit on 5 nodes", s.FilterFailures)
		}
		note := eventNote(t, c, pod, resultEventReason, "0/5 nodes:")
		if want := "0/5 nodes: NodeResourcesFit: Insufficient cpu (5)"; note != want {
			t.Errorf("event %q, want %q", note, want)
		}
		if full := schedulingResult(t, sim, "huge"); len(full.Filter) != 5 || full.Summary.Outcome != "Unschedulable" {
			t.Errorf("full result: %d nodes in filter-result, outcome %q", len(full.Filter), full.Summary.Outcome)
		}
	})

	t.Run("a Pod that fits shows scores whose maximum is the selected node", func(t *testing.T) {
		w, err := c.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=web"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if _, err := c.CoreV1().Pods("default").Create(ctx, cpuPod("web", "500m"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod, s := waitResult(t, c, "web", "Bound")
		// The annotations ride on the Binding: the write that binds the
		// Pod is the one that annotates it, not a patch after it.
		for bound := false; !bound; {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					t.Fatal("watch of pod web ended before it was bound")
				}
				if p, ok := ev.Object.(*corev1.Pod); ok && p.Spec.NodeName != "" {
					bound = true
					if p.Annotations[summaryAnnotation] == "" || p.Annotations[resultPrefix+"selected-node"] != p.Spec.NodeName {
						t.Errorf("the update that bound pod web carries annotations %v: want its result (the Binding's)", p.Annotations)
					}
				}
			case <-ctx.Done():
				t.Fatal("no watch event of pod web bound")
			}
		}
		if pod.Spec.NodeName == "" {
			// The annotation patch may have raced the informer's view; read again.
			pod, _ = c.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
		}
		var final map[string]map[string]string
		if err := json.Unmarshal([]byte(pod.Annotations[resultPrefix+"finalscore-result"]), &final); err != nil {
			t.Fatalf("finalscore-result: %v", err)
		}
		if len(final) == 0 {
			t.Fatal("finalscore-result is empty")
		}
		best, bestNode := int64(-1), ""
		totals := map[string]int64{}
		for node, plugins := range final {
			for _, v := range plugins {
				var n int64
				if _, err := fmt.Sscan(v, &n); err != nil {
					t.Fatalf("score %q of %s: %v", v, node, err)
				}
				totals[node] += n
			}
			if totals[node] > best {
				best, bestNode = totals[node], node
			}
		}
		selected := pod.Annotations[resultPrefix+"selected-node"]
		if selected != pod.Spec.NodeName || s.SelectedNode != selected {
			t.Errorf("selected-node %q, summary %q, bound to %q", selected, s.SelectedNode, pod.Spec.NodeName)
		}
		// Ties are broken at random: the selected node has the best total.
		if totals[selected] != best {
			t.Errorf("selected %s scored %d, but %s scored %d (%v)", selected, totals[selected], bestNode, best, totals)
		}
		if len(s.TopScores) == 0 || s.TopScores[0].Node != selected || s.TopScores[0].Score != best {
			t.Errorf("top scores %+v, want the selected %s with the best %d first", s.TopScores, selected, best)
		}
		// Its result is in the scheduler's own Scheduled Event: a bound
		// Pod takes no SchedulingResult Event.
		note := eventNote(t, c, pod, scheduledReason, fmt.Sprintf("Successfully assigned default/%s to %s (%d/%d nodes evaluated, %d feasible): top scores %s %d",
			pod.Name, selected, s.Evaluated, s.Nodes, s.Feasible, selected, best))
		t.Logf("event: %s", note)
		if list, err := events(t, c, pod, resultEventReason); err != nil || len(list) != 0 {
			t.Errorf("%d %s Events of the bound Pod (%v), want none", len(list), resultEventReason, err)
		}
	})

	t.Run("preemption shows the nominated node and the victims", func(t *testing.T) {
		for name, value := range map[string]int32{"low": 10, "high": 1000} {
			pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
			if _, err := c.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// low takes most of small-4 without the scheduler; high needs
		// small-4 and room that only evicting low makes.
		low := cpuPod("low", "7")
		low.Spec.NodeName, low.Spec.PriorityClassName = "small-4", "low"
		createWithPriority(t, c, low)
		framework.WaitUntil(t, time.Minute, "pod low to run", func() (bool, error) {
			p, err := c.CoreV1().Pods("default").Get(ctx, "low", metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning, nil
		})
		high := cpuPod("high", "2")
		high.Spec.PriorityClassName = "high"
		high.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "small-4"}
		pod := createWithPriority(t, c, high)
		note := eventMatching(t, c, pod, resultEventReason, "a preemption", func(note string) bool { return strings.Contains(note, "for preemption") })
		if !strings.HasSuffix(note, "; nominated small-4 for preemption of default/low") {
			t.Errorf("event %q, want it to name small-4 and the victim default/low", note)
		}
		// The victim goes, and high is scheduled where it was nominated.
		if bound, s := waitResult(t, c, "high", "Bound"); s.SelectedNode != "small-4" {
			t.Errorf("high scheduled to %q (%s), want small-4", s.SelectedNode, bound.Spec.NodeName)
		}
		// The attempt that preempted stays in the Pod's history.
		pod, err := c.CoreV1().Pods("default").Get(ctx, "high", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var history []map[string]string
		if err := json.Unmarshal([]byte(pod.Annotations[resultPrefix+"result-history"]), &history); err != nil {
			t.Fatalf("result-history: %v", err)
		}
		found := false
		for _, h := range history {
			var s struct {
				NominatedNode string   `json:"nominatedNode"`
				Victims       []string `json:"victims"`
			}
			if json.Unmarshal([]byte(h[summaryAnnotation]), &s) == nil && s.NominatedNode == "small-4" && slices.Equal(s.Victims, []string{"default/low"}) {
				found = true
			}
		}
		if !found {
			t.Errorf("no attempt in result-history nominates small-4 with victim default/low: %v", history)
		}
	})

	t.Run("at 5,000 nodes the Pod stays under the annotation limit, the full result is retrievable", func(t *testing.T) {
		createNodes(t, c, "big", 5000, false)
		if _, err := c.CoreV1().Pods("default").Create(ctx, cpuPod("huge-5k", "100"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// The scheduler may try the Pod before its informer has every new
		// Node (createNodes waits on its own client); the Node additions
		// make it try again, and the attempt that sees them all counts.
		pod, s := waitResultWhere(t, c, "huge-5k", func(s resultSummary) bool { return s.Outcome == "Unschedulable" && s.Nodes == 5005 })
		size := 0
		for k, v := range pod.Annotations {
			size += len(k) + len(v)
		}
		t.Logf("annotations of a Pod unschedulable on 5,005 nodes: %d bytes", size)
		if s.Nodes != 5005 || len(s.FilterFailures) != 1 || s.FilterFailures[0].Nodes != 5005 {
			t.Errorf("summary: %d nodes, failures %+v; want NodeResourcesFit on 5005", s.Nodes, s.FilterFailures)
		}
		if _, ok := pod.Annotations[resultPrefix+"filter-result"]; ok {
			t.Errorf("filter-result on the Pod at 5,005 nodes (%d bytes)", len(pod.Annotations[resultPrefix+"filter-result"]))
		}
		full := schedulingResult(t, sim, "huge-5k")
		if len(full.Filter) != 5005 {
			t.Errorf("full result has %d nodes in filter-result, want 5005", len(full.Filter))
		}
		eventNote(t, c, pod, resultEventReason, "0/5005 nodes: NodeResourcesFit: Insufficient cpu (5005)")
	})

	t.Run("a reset removes the results with the Pods", func(t *testing.T) {
		schedulingResult(t, sim, "web")
		if status, body := sim.Do(t, http.MethodPut, "/api/v1/reset", ""); status != http.StatusOK {
			t.Fatalf("PUT /api/v1/reset = %d %s", status, body)
		}
		if status, body := sim.Do(t, http.MethodGet, resultsPath+"default/web", ""); status != http.StatusNotFound {
			t.Errorf("GET %sdefault/web after the reset = %d %s, want 404", resultsPath, status, body)
		}
	})
}

// createWithPriority creates pod once kube-apiserver's Priority admission,
// which reads PriorityClasses from its informer, has seen the class just
// created: until then the create is refused as naming no PriorityClass.
func createWithPriority(t testing.TB, c kubernetes.Interface, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	var created *corev1.Pod
	framework.WaitUntil(t, time.Minute, "PriorityClass "+pod.Spec.PriorityClassName+" to admit pod "+pod.Name, func() (bool, error) {
		var err error
		created, err = c.CoreV1().Pods(pod.Namespace).Create(t.Context(), pod, metav1.CreateOptions{})
		if apierrors.IsForbidden(err) && strings.Contains(err.Error(), "no PriorityClass with name") {
			return false, nil
		}
		return err == nil, err
	})
	return created
}

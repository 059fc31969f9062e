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
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// fixedMapper is a RESTMapper of a few kinds, which Reset leaves as is.
type fixedMapper struct{ meta.RESTMapper }

func (fixedMapper) Reset() {}

func newMapper() fixedMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace)
	return fixedMapper{m}
}

type fakes struct {
	client  *fake.Clientset
	dynamic *dynamicfake.FakeDynamicClient
}

// newRunner returns a Runner on fake clients, running until the test ends
// (or stop is called).
func newRunner(t *testing.T) (*Runner, fakes, context.CancelFunc) {
	t.Helper()
	f := fakes{client: fake.NewClientset(), dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme.Scheme, map[schema.GroupVersionResource]string{
		{Version: "v1", Resource: "configmaps"}: "ConfigMapList",
		{Version: "v1", Resource: "namespaces"}: "NamespaceList",
	})}
	r := New(Config{Client: f.client, Dynamic: f.dynamic, Mapper: newMapper(), SettleInterval: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return r, f, cancel
}

func raw(t *testing.T, obj any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func waitPhase(t *testing.T, r *Runner, phases ...string) contract.ScenarioReport {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rep, ok := r.Report()
		if ok {
			for _, p := range phases {
				if rep.Phase == p {
					return rep
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("report %+v, want phase %v", rep, phases)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRun runs a timeline and a trace on fake clients: objects are
// created and deleted, a wait times out and says so, traced Pods are
// created without their Node and deleted.
func TestRun(t *testing.T) {
	r, f, _ := newRunner(t)
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "settings"}}
	gone := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "gone", Namespace: "team"}}
	traced := pod("traced", "source-node", "1", "1Gi")
	traced.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	traced.ResourceVersion, traced.Status.Phase = "7", corev1.PodRunning
	other := traced.DeepCopy()
	other.Name = "other"
	spec := &contract.ScenarioRun{
		RunID: "run-1", StartTime: time.Now().Add(100 * time.Millisecond), DurationMilliseconds: 300, SampleMilliseconds: 50, Speed: 10,
		Steps: []contract.ScenarioRunStep{
			{AtMilliseconds: 0, Create: []json.RawMessage{raw(t, cm), raw(t, gone)}},
			{AtMilliseconds: 10, Delete: []json.RawMessage{raw(t, gone)}},
			// Traced Pods stay pending: no scheduler here.
			{AtMilliseconds: 20, Wait: &contract.ScenarioRunWait{For: contract.WaitForPodsSettled, TimeoutMilliseconds: 100}},
		},
		Trace: []contract.TraceEvent{
			{Time: t0, Type: "ADDED", Resource: "pods", Namespace: "default", Name: "traced", Object: raw(t, traced)},
			{Time: t0.Add(100 * time.Millisecond), Type: "ADDED", Resource: "pods", Namespace: "default", Name: "other", Object: raw(t, other)},
			// Its binding in the traced cluster is this scheduler's job here.
			{Time: t0.Add(200 * time.Millisecond), Type: "MODIFIED", Resource: "pods", Namespace: "default", Name: "traced", Object: raw(t, traced)},
			{Time: t0.Add(time.Second), Type: "DELETED", Resource: "pods", Namespace: "default", Name: "other"},
		},
	}
	rep, err := r.Start(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Phase != contract.ScenarioRunWaiting || rep.Generation != 1 || rep.RunID != "run-1" {
		t.Errorf("accepted as %+v", rep)
	}
	if _, err := r.Start(t.Context(), spec); !errors.Is(err, ErrBusy) {
		t.Errorf("a second start: %v, want ErrBusy", err)
	}
	rep = waitPhase(t, r, contract.ScenarioRunSucceeded, contract.ScenarioRunFailed)
	if rep.Phase != contract.ScenarioRunSucceeded {
		t.Fatalf("run ended %s: %s", rep.Phase, rep.Message)
	}
	if !strings.Contains(rep.Message, "step 2: wait PodsSettled timed out after 100ms") {
		t.Errorf("message %q does not say the wait timed out", rep.Message)
	}
	if rep.EventsApplied != 4 || rep.EventsFailed != 0 {
		t.Errorf("events applied %d, failed %d; want 4, 0", rep.EventsApplied, rep.EventsFailed)
	}
	if rep.ElapsedMilliseconds < 300 || len(rep.Samples) < 3 {
		t.Errorf("elapsed %d ms with %d samples; want ≥ 300 ms, ≥ 3", rep.ElapsedMilliseconds, len(rep.Samples))
	}
	if rep.Samples[len(rep.Samples)-1].PodsPending != 1 {
		t.Errorf("last sample %+v, want the traced Pod pending", rep.Samples[len(rep.Samples)-1])
	}

	cms := f.dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	if _, err := cms.Namespace("default").Get(t.Context(), "settings", metav1.GetOptions{}); err != nil {
		t.Errorf("the step's ConfigMap, in the default namespace: %v", err)
	}
	if _, err := cms.Namespace("team").Get(t.Context(), "gone", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the deleted ConfigMap: %v, want NotFound", err)
	}
	p, err := f.client.CoreV1().Pods("default").Get(t.Context(), "traced", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" || p.ResourceVersion == "7" || p.Status.Phase != "" {
		t.Errorf("traced pod kept its cluster's node %q, version %q or phase %q", p.Spec.NodeName, p.ResourceVersion, p.Status.Phase)
	}
	if _, err := f.client.CoreV1().Pods("default").Get(t.Context(), "other", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the traced pod deleted: %v, want NotFound", err)
	}
	// 3 steps and 4 events, each timed.
	if n := len(r.latest.lags.values); n != 7 {
		t.Errorf("%d lags, want 7", n)
	}
	if pl, ok := r.Placements(); !ok || pl.RunID != "run-1" || pl.Generation != 1 || len(pl.Groups) != 0 {
		t.Errorf("placements %+v, %v; want none bound", pl, ok)
	}

	// The next run is the next generation.
	next := &contract.ScenarioRun{RunID: "run-2", DurationMilliseconds: 10}
	if rep, err := r.Start(t.Context(), next); err != nil || rep.Generation != 2 {
		t.Fatalf("second run: %+v, %v", rep, err)
	}
	if rep := waitPhase(t, r, contract.ScenarioRunSucceeded); rep.RunID != "run-2" {
		t.Errorf("second run's report is %q's", rep.RunID)
	}
}

// TestRunFails: a step the cluster refuses fails the run, saying which.
func TestRunFails(t *testing.T) {
	r, _, _ := newRunner(t)
	unknown := json.RawMessage(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	if _, err := r.Start(t.Context(), &contract.ScenarioRun{RunID: "x", DurationMilliseconds: 60_000,
		Steps: []contract.ScenarioRunStep{{Create: []json.RawMessage{unknown}}}}); err != nil {
		t.Fatal(err)
	}
	rep := waitPhase(t, r, contract.ScenarioRunFailed, contract.ScenarioRunSucceeded)
	if rep.Phase != contract.ScenarioRunFailed || !strings.HasPrefix(rep.Message, "step 0: creating example.com/v1 Widget w:") {
		t.Errorf("run %s: %q; want Failed at step 0", rep.Phase, rep.Message)
	}
}

// TestStop: a run stopped, while it waits for its start or while it runs,
// fails as stopped; so does one under way when the simulator stops.
func TestStop(t *testing.T) {
	r, _, stopRunner := newRunner(t)
	long := func(start time.Time) *contract.ScenarioRun {
		return &contract.ScenarioRun{RunID: "long", StartTime: start, DurationMilliseconds: int64(time.Hour / time.Millisecond)}
	}
	for _, start := range []time.Time{time.Now().Add(time.Hour), time.Now()} {
		if _, err := r.Start(t.Context(), long(start)); err != nil {
			t.Fatal(err)
		}
		if start.Before(time.Now()) {
			waitPhase(t, r, contract.ScenarioRunRunning)
		}
		if rep, ok := r.Stop(t.Context()); !ok || rep.RunID != "long" {
			t.Fatalf("stop: %+v, %v", rep, ok)
		}
		rep := waitPhase(t, r, contract.ScenarioRunFailed)
		if rep.Message != "stopped" {
			t.Errorf("stopped run's message %q", rep.Message)
		}
	}
	if _, err := r.Start(t.Context(), long(time.Now())); err != nil {
		t.Fatal(err)
	}
	waitPhase(t, r, contract.ScenarioRunRunning)
	stopRunner()
	if rep := waitPhase(t, r, contract.ScenarioRunFailed); rep.Message != "stopped: the simulator is stopping" {
		t.Errorf("message %q", rep.Message)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		spec contract.ScenarioRun
		want string // "" valid
	}{
		{"empty is valid", contract.ScenarioRun{}, ""},
		{"negative duration", contract.ScenarioRun{DurationMilliseconds: -1}, "durationMilliseconds"},
		{"two actions", contract.ScenarioRun{Steps: []contract.ScenarioRunStep{{Scale: &contract.ScenarioRunScale{Kind: "Deployment", Name: "a"},
			Wait: &contract.ScenarioRunWait{For: contract.WaitForNodesReady}}}}, "steps[0]: 2 of"},
		{"steps out of order", contract.ScenarioRun{Steps: []contract.ScenarioRunStep{
			{AtMilliseconds: 10, Wait: &contract.ScenarioRunWait{For: contract.WaitForNodesReady}},
			{AtMilliseconds: 5, Wait: &contract.ScenarioRunWait{For: contract.WaitForNodesReady}}}}, "steps[1].atMilliseconds"},
		{"object without kind", contract.ScenarioRun{Steps: []contract.ScenarioRunStep{{Create: []json.RawMessage{json.RawMessage(`{"metadata":{"name":"a"}}`)}}}}, "steps[0].create[0]"},
		{"unknown scale kind", contract.ScenarioRun{Steps: []contract.ScenarioRunStep{{Scale: &contract.ScenarioRunScale{Kind: "DaemonSet", Name: "a"}}}}, "steps[0].scale.kind"},
		{"node pool without selector", contract.ScenarioRun{Steps: []contract.ScenarioRunStep{{Scale: &contract.ScenarioRunScale{Kind: "NodePool", Name: "a"}}}}, "nodeSelector"},
		{"unknown wait", contract.ScenarioRun{Steps: []contract.ScenarioRunStep{{Wait: &contract.ScenarioRunWait{For: "Forever"}}}}, "steps[0].wait.for"},
		{"event type", contract.ScenarioRun{Trace: []contract.TraceEvent{{Type: "BOOKMARK", Resource: "pods", Name: "a"}}}, "trace[0].type"},
		{"added without object", contract.ScenarioRun{Trace: []contract.TraceEvent{{Type: "ADDED", Resource: "pods", Name: "a"}}}, "trace[0].object"},
	}
	for _, tc := range tests {
		err := validate(&tc.spec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error about %s", tc.name, err, tc.want)
		}
	}
}

// TestRunRidesOutCutRequests: a step's create cut off after it was applied
// (the control plane restarting under it), and a trace event's refused, are
// tried again and count as applied; an answer that is not a cut is not.
func TestRunRidesOutCutRequests(t *testing.T) {
	r, f, _ := newRunner(t)
	configmaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	var cmCreates, podCreates int
	f.dynamic.PrependReactor("create", "configmaps", func(action clienttesting.Action) (bool, runtime.Object, error) {
		cmCreates++
		if cmCreates > 1 {
			return false, nil, nil
		}
		obj := action.(clienttesting.CreateAction).GetObject()
		if err := f.dynamic.Tracker().Create(configmaps, obj, action.GetNamespace()); err != nil {
			t.Error(err)
		}
		return true, nil, &url.Error{Op: "Post", URL: "https://127.0.0.1:3131/api/v1/namespaces/default/configmaps", Err: io.ErrUnexpectedEOF}
	})
	f.client.PrependReactor("create", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		podCreates++
		if podCreates > 2 {
			return false, nil, nil
		}
		return true, nil, &url.Error{Op: "Post", URL: "https://127.0.0.1:3131/api/v1/namespaces/default/pods", Err: syscall.ECONNREFUSED}
	})
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "settings"}}
	traced := pod("traced", "", "1", "1Gi")
	traced.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	if _, err := r.Start(t.Context(), &contract.ScenarioRun{RunID: "cut", DurationMilliseconds: 10,
		Steps: []contract.ScenarioRunStep{{Create: []json.RawMessage{raw(t, cm)}}},
		Trace: []contract.TraceEvent{{Time: t0, Type: "ADDED", Resource: "pods", Namespace: "default", Name: "traced", Object: raw(t, traced)}},
	}); err != nil {
		t.Fatal(err)
	}
	rep := waitPhase(t, r, contract.ScenarioRunSucceeded, contract.ScenarioRunFailed)
	if rep.Phase != contract.ScenarioRunSucceeded || rep.EventsApplied != 1 || rep.EventsFailed != 0 {
		t.Fatalf("run %s (%q), events applied %d, failed %d; want it Succeeded with the event applied", rep.Phase, rep.Message, rep.EventsApplied, rep.EventsFailed)
	}
	if cmCreates != 2 || podCreates != 3 {
		t.Errorf("creates: ConfigMap %d, Pod %d; want 2 (cut, then found there) and 3 (refused twice)", cmCreates, podCreates)
	}
	if _, err := f.client.CoreV1().Pods("default").Get(t.Context(), "traced", metav1.GetOptions{}); err != nil {
		t.Errorf("the traced Pod: %v", err)
	}

	// Found there on the first try, the object is another's: the step fails.
	if _, err := r.Start(t.Context(), &contract.ScenarioRun{RunID: "again", DurationMilliseconds: 10,
		Steps: []contract.ScenarioRunStep{{Create: []json.RawMessage{raw(t, cm)}}}}); err != nil {
		t.Fatal(err)
	}
	rep = waitPhase(t, r, contract.ScenarioRunSucceeded, contract.ScenarioRunFailed)
	if rep.Phase != contract.ScenarioRunFailed || !strings.Contains(rep.Message, "already exists") {
		t.Errorf("run %s (%q); want Failed: already exists", rep.Phase, rep.Message)
	}
}

// TestRideOut: only cut-off errors are tried again, until the timeout.
func TestRideOut(t *testing.T) {
	cut := &url.Error{Op: "Get", URL: "https://x", Err: io.EOF}
	calls := 0
	err := rideOut(t.Context(), clock.RealClock{}, 250*time.Millisecond, func(bool) error { calls++; return cut })
	if !errors.Is(err, io.EOF) || calls != 2 {
		t.Errorf("always cut: %v after %d calls; want EOF after 2 (at 0 and 100 ms; the next, at 300, is past 250)", err, calls)
	}
	calls = 0
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", errors.New("changed"))
	if err := rideOut(t.Context(), clock.RealClock{}, time.Minute, func(bool) error { calls++; return conflict }); err != conflict || calls != 1 {
		t.Errorf("an answer: %v after %d calls; want it at once", err, calls)
	}
}

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
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	simapply "sigs.k8s.io/simulator-apiserver/pkg/generated/applyconfiguration/sim/v1alpha1"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
)

// The host of these tests has no node: simulator Pods are created but never
// run. Tests that need a Pod to progress bind it and set its status by hand,
// as a scheduler and a kubelet would.

func simClient(t testing.TB) simclientset.Interface {
	t.Helper()
	return hostCluster(t).Sims
}

func newSimulator(name string) *v1alpha1.Simulator {
	return &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// eventually polls cond every 100ms for up to 30s.
func eventually(t testing.TB, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func simulatorPods(ctx context.Context, t testing.TB, ns, name string) []corev1.Pod {
	t.Helper()
	pods, err := hostCluster(t).Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

// waitForPod waits until the simulator has exactly one live Pod of generation gen.
func waitForPod(t testing.TB, ns, name string, gen int64) corev1.Pod {
	t.Helper()
	var pod corev1.Pod
	eventually(t, fmt.Sprintf("the Pod of %s/%s generation %d", ns, name, gen), func(ctx context.Context) (bool, error) {
		var live []corev1.Pod
		for _, p := range simulatorPods(ctx, t, ns, name) {
			if p.DeletionTimestamp == nil {
				live = append(live, p)
			}
		}
		if len(live) != 1 || live[0].Labels[sim.LabelGeneration] != fmt.Sprint(gen) {
			return false, nil
		}
		pod = live[0]
		return true, nil
	})
	return pod
}

// makeReady plays scheduler and kubelet: binds the Pod and marks it Ready.
func makeReady(t testing.TB, pod corev1.Pod) {
	t.Helper()
	ctx := t.Context()
	client := hostCluster(t).Client
	if err := client.CoreV1().Pods(pod.Namespace).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "fake-node"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("binding %s: %v", pod.Name, err)
	}
	setReady(t, pod.Namespace, pod.Name, corev1.ConditionTrue)
}

func setReady(t testing.TB, ns, name string, status corev1.ConditionStatus) {
	t.Helper()
	client := hostCluster(t).Client
	pod, err := client.CoreV1().Pods(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Now()},
	}
	if _, err := client.CoreV1().Pods(ns).UpdateStatus(t.Context(), pod, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting %s Ready=%s: %v", name, status, err)
	}
}

func waitForPhase(t testing.TB, c simclientset.Interface, ns, name string, phase v1alpha1.SimulatorPhase) *v1alpha1.Simulator {
	t.Helper()
	var s *v1alpha1.Simulator
	eventually(t, fmt.Sprintf("simulator %s/%s in phase %s", ns, name, phase), func(ctx context.Context) (bool, error) {
		var err error
		s, err = c.SimV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && s.Status.Phase == phase, nil
	})
	return s
}

// TestSimulatorLifecycle follows one simulator from creation to deletion:
// defaults, finalizer, host objects, status phases (seen by a watcher and by
// kubectl wait), a lost Pod, a spec change, and cleanup on delete.
func TestSimulatorLifecycle(t *testing.T) {
	c := simClient(t)
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "lifecycle")
	sims := c.SimV1alpha1().Simulators(ns)

	created, err := sims.Create(ctx, newSimulator("life"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if created.Spec.KubeAPIServerPort != 3131 || created.Spec.SimulatorServerPort != 1212 || created.Spec.Image == "" {
		t.Errorf("defaults not applied: %+v", created.Spec)
	}
	if created.Generation != 1 || !slices.Contains(created.Finalizers, sim.FinalizerCleanup) {
		t.Errorf("generation %d finalizers %v", created.Generation, created.Finalizers)
	}
	if created.Status.Phase != v1alpha1.SimulatorPending || created.Status.KubeAPIServerURL != "https://sim-life."+ns+".svc:3131" {
		t.Errorf("status on create = %+v", created.Status)
	}

	// A watcher from now on must see every phase the test goes through.
	w, err := sims.Watch(ctx, metav1.ListOptions{ResourceVersion: created.ResourceVersion, FieldSelector: "metadata.name=life"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	var seen []v1alpha1.SimulatorPhase
	watcherSaw := func(phase v1alpha1.SimulatorPhase) {
		t.Helper()
		eventually(t, "a watch event with phase "+string(phase), func(context.Context) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return len(seen) > 0 && seen[len(seen)-1] == phase, nil
		})
	}
	go func() {
		for ev := range w.ResultChan() {
			if s, ok := ev.Object.(*v1alpha1.Simulator); ok {
				mu.Lock()
				if len(seen) == 0 || seen[len(seen)-1] != s.Status.Phase {
					seen = append(seen, s.Status.Phase)
				}
				mu.Unlock()
			}
		}
	}()

	// The reconciler makes the Secret, the Service and the Pod.
	pod := waitForPod(t, ns, "life", 1)
	if _, err := host.Client.CoreV1().Services(ns).Get(ctx, "sim-life", metav1.GetOptions{}); err != nil {
		t.Errorf("service: %v", err)
	}
	secret, err := host.Client.CoreV1().Secrets(ns).Get(ctx, "sim-life-credentials", metav1.GetOptions{})
	if err != nil || len(secret.Data["admin.crt"]) == 0 {
		t.Errorf("credentials secret: %v", err)
	}

	// kubectl wait sees Available once the Pod is ready.
	waitDone := make(chan error, 1)
	go func() {
		_, err := kubectl(t, host.KubeconfigPath, "wait", "-n", ns, "simulator/life", "--for=jsonpath={.status.phase}=Available", "--timeout=60s")
		waitDone <- err
	}()
	waitForPhase(t, c, ns, "life", v1alpha1.SimulatorPending)
	makeReady(t, pod)
	available := waitForPhase(t, c, ns, "life", v1alpha1.SimulatorAvailable)
	if cond := meta.FindStatusCondition(available.Status.Conditions, v1alpha1.SimulatorConditionAvailable); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("conditions = %+v", available.Status.Conditions)
	}
	if err := <-waitDone; err != nil {
		t.Errorf("kubectl wait: %v", err)
	}
	if _, err := kubectl(t, host.KubeconfigPath, "wait", "-n", ns, "simulator/life", "--for=condition=Available", "--timeout=30s"); err != nil {
		t.Errorf("kubectl wait --for=condition: %v", err)
	}

	watcherSaw(v1alpha1.SimulatorAvailable)

	// Not ready any more: back to Creating.
	setReady(t, ns, pod.Name, corev1.ConditionFalse)
	waitForPhase(t, c, ns, "life", v1alpha1.SimulatorCreating)
	watcherSaw(v1alpha1.SimulatorCreating)

	// A lost Pod comes back. (The bound Pod would wait for a kubelet: force it.)
	if err := host.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	recreated := waitForPod(t, ns, "life", 1)
	if recreated.UID == pod.UID {
		t.Error("the Pod was not recreated")
	}

	// A spec change replaces the Pod with one of the new generation. (The
	// reconciler writes the record too, so a read-modify-write may conflict.)
	var updated *v1alpha1.Simulator
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := sims.Get(ctx, "life", metav1.GetOptions{})
		if err != nil {
			return err
		}
		current.Spec.Image = "example.com/simulator:v2"
		updated, err = sims.Update(ctx, current, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.Generation != 2 {
		t.Errorf("generation after a spec change = %d, want 2", updated.Generation)
	}
	replaced := waitForPod(t, ns, "life", 2)
	if img := backing.Container(&replaced.Spec, contract.SimulatorContainer).Image; img != "example.com/simulator:v2" {
		t.Errorf("new Pod image %q", img)
	}
	if s := waitForPhase(t, c, ns, "life", v1alpha1.SimulatorPending); s.Status.ObservedGeneration != 2 {
		t.Errorf("observedGeneration = %d", s.Status.ObservedGeneration)
	}

	// Delete: the finalizer removes the host objects, then the record goes.
	if err := sims.Delete(ctx, "life", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the simulator and its host objects to be gone", func(ctx context.Context) (bool, error) {
		_, err := sims.Get(ctx, "life", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, nil
		}
		_, svcErr := host.Client.CoreV1().Services(ns).Get(ctx, "sim-life", metav1.GetOptions{})
		_, secErr := host.Client.CoreV1().Secrets(ns).Get(ctx, "sim-life-credentials", metav1.GetOptions{})
		return apierrors.IsNotFound(svcErr) && apierrors.IsNotFound(secErr) && len(simulatorPods(ctx, t, ns, "life")) == 0, nil
	})
}

// TestSimulatorConcurrency checks optimistic concurrency and server-side apply.
func TestSimulatorConcurrency(t *testing.T) {
	c := simClient(t)
	ctx := t.Context()
	ns := createNamespace(t, "concurrency")
	sims := c.SimV1alpha1().Simulators(ns)
	apply := simapply.Simulator("cc", ns).WithSpec(simapply.SimulatorSpec().WithSimulatorServerPort(1313))
	s, err := sims.Apply(ctx, apply, metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatalf("apply by alice: %v", err)
	}

	stale := s.DeepCopy()
	s.Labels = map[string]string{"a": "1"}
	if _, err := sims.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale.Labels = map[string]string{"a": "2"}
	if _, err := sims.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("update with a stale resourceVersion: got %v, want 409 Conflict", err)
	}

	other := simapply.Simulator("cc", ns).WithSpec(simapply.SimulatorSpec().WithSimulatorServerPort(1414))
	_, err = sims.Apply(ctx, other, metav1.ApplyOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "simulatorServerPort") {
		t.Errorf("apply by bob of alice's field: got %v, want a conflict on spec.simulatorServerPort", err)
	}
	forced, err := sims.Apply(ctx, other, metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil || forced.Spec.SimulatorServerPort != 1414 {
		t.Errorf("forced apply: %v, port %d", err, forced.Spec.SimulatorServerPort)
	}
	// Status belongs to nobody: it is computed.
	if _, err := sims.Apply(ctx, simapply.Simulator("cc", ns).WithStatus(simapply.SimulatorStatus().WithPhase(v1alpha1.SimulatorAvailable)),
		metav1.ApplyOptions{FieldManager: "carol"}); err != nil {
		t.Fatalf("apply with status: %v", err)
	}
	if got, _ := sims.Get(ctx, "cc", metav1.GetOptions{}); got.Status.Phase == v1alpha1.SimulatorAvailable {
		t.Error("a client set status.phase")
	}
}

// TestSimulatorWatchSelectors checks that a label change moves an object in
// and out of a selective watch as ADDED and DELETED.
func TestSimulatorWatchSelectors(t *testing.T) {
	c := simClient(t)
	ctx := t.Context()
	ns := createNamespace(t, "selectors")
	sims := c.SimV1alpha1().Simulators(ns)
	s, err := sims.Create(ctx, newSimulator("sel"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := sims.Watch(ctx, metav1.ListOptions{LabelSelector: "tier=a", ResourceVersion: s.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, tier := range []string{"a", "b"} {
		patch := fmt.Sprintf(`{"metadata":{"labels":{"tier":%q}}}`, tier)
		if _, err := sims.Patch(ctx, "sel", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// tier=a enters the selection, tier=b leaves it. In between, the
	// reconciler's status touches may show as MODIFIED.
	var got []watch.EventType
	timeout := time.After(time.Minute)
	for len(got) == 0 || got[len(got)-1] != watch.Deleted {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended; events so far %v, want ADDED ... DELETED", got)
			}
			if ev.Type != watch.Bookmark {
				got = append(got, ev.Type)
			}
		case <-timeout:
			t.Fatalf("events so far %v, want ADDED ... DELETED", got)
		}
	}
	if got[0] != watch.Added {
		t.Errorf("events %v, want ADDED first", got)
	}

	list, err := sims.List(ctx, metav1.ListOptions{LabelSelector: "tier=b"})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("list tier=b: %v, %d items", err, len(list.Items))
	}
	if list, err := sims.List(ctx, metav1.ListOptions{LabelSelector: "tier=a"}); err != nil || len(list.Items) != 0 {
		t.Errorf("list tier=a: %v, %+v", err, list)
	}
	if list, err := sims.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=nope"}); err != nil || len(list.Items) != 0 {
		t.Errorf("list by another name: %v, %+v", err, list)
	}
}

// TestSimulatorInvalid checks that bad specs are 422s with field paths, and
// that nothing is left behind.
func TestSimulatorInvalid(t *testing.T) {
	c := simClient(t)
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "invalid")
	sims := c.SimV1alpha1().Simulators(ns)
	cases := []struct {
		name  string
		spec  v1alpha1.SimulatorSpec
		field string
	}{
		{"ports", v1alpha1.SimulatorSpec{KubeAPIServerPort: 1212}, "spec.simulatorServerPort"},
		{"etcd", v1alpha1.SimulatorSpec{EtcdURL: "ftp://x"}, "spec.etcdURL.scheme"},
		{"podtemplate", v1alpha1.SimulatorSpec{PodTemplate: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "sidecar"}},
		}}}, "spec.podTemplate.spec.containers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimulator("bad-" + tc.name)
			s.Spec = tc.spec
			_, err := sims.Create(ctx, s, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("got %v, want 422 Invalid", err)
			}
			status := err.(apierrors.APIStatus).Status()
			found := false
			for _, cause := range status.Details.Causes {
				found = found || strings.HasPrefix(cause.Field, tc.field)
			}
			if !found {
				t.Errorf("causes %+v name no field under %s", status.Details.Causes, tc.field)
			}
		})
	}
	// Updates are checked as well.
	s, err := sims.Create(ctx, newSimulator("good"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.PodTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "sidecar"}}}}
	if _, err := sims.Update(ctx, s, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("update with a broken podTemplate: got %v, want 422", err)
	}
	list, err := sims.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("only the good simulator exists: %v %d", err, len(list.Items))
	}
	pods, err := host.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if !strings.HasPrefix(p.Name, "sim-good-") {
			t.Errorf("pod %s left behind by an invalid simulator", p.Name)
		}
	}
}

// TestSimulatorEvents: kubectl describe simulator tells what the server
// did and saw: the Pod made, Available, and a spec change that replaced the
// Pod, saying the inner cluster starts empty.
func TestSimulatorEvents(t *testing.T) {
	c := simClient(t)
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "events")
	sims := c.SimV1alpha1().Simulators(ns)
	if _, err := sims.Create(ctx, newSimulator("ev"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	makeReady(t, waitForPod(t, ns, "ev", 1))
	first := waitForPhase(t, c, ns, "ev", v1alpha1.SimulatorAvailable)
	if preserved := meta.FindStatusCondition(first.Status.Conditions, v1alpha1.SimulatorConditionInnerStatePreserved); preserved == nil || preserved.Status != metav1.ConditionTrue {
		t.Errorf("InnerStatePreserved of a new simulator: %+v, want True", preserved)
	}
	if _, err := sims.Patch(ctx, "ev", types.MergePatchType, []byte(`{"spec":{"corsAllowedOriginList":["https://ui.example"]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	makeReady(t, waitForPod(t, ns, "ev", 2))
	second := waitForPhase(t, c, ns, "ev", v1alpha1.SimulatorAvailable)
	preserved := meta.FindStatusCondition(second.Status.Conditions, v1alpha1.SimulatorConditionInnerStatePreserved)
	if preserved == nil || preserved.Status != metav1.ConditionFalse || preserved.Reason != "PodReplaced" ||
		!strings.Contains(preserved.Message, "the inner cluster starts empty") {
		t.Errorf("InnerStatePreserved after a spec change replaced the Pod: %+v, want False, PodReplaced, saying the inner cluster starts empty", preserved)
	}

	want := map[string]string{
		"PodCreated":  "Created Pod sim-ev-g1",
		"PodReplaced": "The spec changed (generation 1 to 2): Pod sim-ev-g2 replaces sim-ev-g1; the inner cluster starts empty",
		"Available":   "Pod sim-ev-g2 serves the inner cluster",
	}
	eventually(t, "the simulator's Events", func(ctx context.Context) (bool, error) {
		events, err := host.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Simulator,involvedObject.name=ev"})
		if err != nil {
			return false, err
		}
		found := 0
		for reason, message := range want {
			for _, e := range events.Items {
				if e.Reason == reason && strings.HasPrefix(e.Message, message) && e.InvolvedObject.APIVersion == v1alpha1.SchemeGroupVersion.String() {
					found++
					break
				}
			}
		}
		return found == len(want), nil
	})
	out, err := kubectl(t, host.KubeconfigPath, "describe", "simulator", "-n", ns, "ev")
	if err != nil || !strings.Contains(out, "PodReplaced") {
		t.Errorf("kubectl describe simulator shows no PodReplaced Event (%v):\n%s", err, out)
	}
}

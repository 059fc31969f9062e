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

package simulator

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
)

const statusTestNamespace = "team-a"

// statusFixture is a host cache over a fake host holding the Pods of the
// simulators named, as a replica of the server reads them.
type statusFixture struct {
	client *fake.Clientset
	sites  *site.Resolver
}

func newStatusFixture(t *testing.T, simulators []string, pods ...*corev1.Pod) *statusFixture {
	t.Helper()
	client := fake.NewClientset()
	for _, p := range pods {
		if _, err := client.CoreV1().Pods(p.Namespace).Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	opts := hostcache.DefaultOptions()
	opts.Kinds = []schema.GroupVersionResource{corev1.SchemeGroupVersion.WithResource("pods")}
	cache, err := hostcache.New(client, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Follow(func(added, _ func(namespace, name string)) (func() bool, error) {
		for _, name := range simulators {
			added(statusTestNamespace, name)
		}
		return func() bool { return true }, nil
	}); err != nil {
		t.Fatal(err)
	}
	cache.Start(t.Context())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if !cache.WaitForNamespace(ctx, statusTestNamespace) {
		t.Fatal("the host cache did not sync")
	}
	return &statusFixture{client: client, sites: &site.Resolver{Client: client, Cache: cache}}
}

// statusSimulator is a simulator of the generation whose reconciler
// recorded status, computed from its Pod at podVersion ("": none said).
func statusSimulator(name string, generation int64, status sim.SimulatorStatus, podVersion string) *sim.Simulator {
	s := &sim.Simulator{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: statusTestNamespace, Name: name, UID: types.UID(name + "-uid"), Generation: generation,
			Annotations: map[string]string{sim.AnnotationObservedStatus: backing.Digest(status)},
		},
	}
	if podVersion != "" {
		s.Annotations[sim.AnnotationObservedPodVersion] = podVersion
	}
	return s
}

// simulatorPod is the running Pod of a generation of the simulator, ready
// or not, at a resourceVersion (the fake host keeps the one it is given).
func simulatorPod(name string, generation int64, ready bool, version string) *corev1.Pod {
	owner := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name + "-uid")}}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: statusTestNamespace, Name: sim.SimulatorPodName(name, generation), ResourceVersion: version,
			Labels:          map[string]string{sim.LabelSimulator: name, sim.LabelGeneration: strconv.FormatInt(generation, 10)},
			OwnerReferences: []metav1.OwnerReference{backing.OwnerReference(owner)},
		},
		Spec: corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.Now()},
		}},
	}
}

// statusFrom is the status the reconciler computed from pod.
func statusFrom(pod *corev1.Pod, generation int64) sim.SimulatorStatus {
	s := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Name: pod.Labels[sim.LabelSimulator], Generation: generation}}
	return backing.Status(s, pod, nil)
}

// TestStatusCatchesUpWithTheReconciler: a replica whose cache has the Pod
// older than the reconciler saw it, or not yet, reading a record the
// reconciler marked Available (another replica saw the Pod first), serves
// Available once its cache has caught up, not the status from before
// (which no later event would correct for a watcher).
func TestStatusCatchesUpWithTheReconciler(t *testing.T) {
	for _, tc := range []struct {
		name       string
		generation int64
		// then is the Pod the reconciler saw, which reaches the cache later.
		then *corev1.Pod
	}{
		{"the Pod older", 1, simulatorPod("example", 1, true, "6")},
		{"the Pod not yet", 2, simulatorPod("example", 2, true, "7")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newStatusFixture(t, []string{"example"}, simulatorPod("example", 1, false, "5"))
			r := &statusReader{sites: f.sites, timeout: 30 * time.Second, interval: catchUpInterval}
			s := statusSimulator("example", tc.generation, statusFrom(tc.then, tc.generation), tc.then.ResourceVersion)
			go func() {
				time.Sleep(200 * time.Millisecond)
				pods := f.client.CoreV1().Pods(statusTestNamespace)
				var err error
				if tc.then.Name == sim.SimulatorPodName("example", 1) {
					_, err = pods.UpdateStatus(context.Background(), tc.then, metav1.UpdateOptions{})
				} else {
					_, err = pods.Create(context.Background(), tc.then, metav1.CreateOptions{})
				}
				if err != nil {
					t.Error(err)
				}
			}()
			r.decorate(s)
			if s.Status.Phase != sim.SimulatorAvailable || s.Status.PodName != tc.then.Name {
				t.Errorf("phase %s of Pod %q (%s), want Available of %s: the reconciler saw it at version %s, and the cache caught up",
					s.Status.Phase, s.Status.PodName, s.Status.Message, tc.then.Name, tc.then.ResourceVersion)
			}
		})
	}
}

// TestStatusDoesNotWaitInVain: the status is served at once, as the cache
// has it, where the cache is not behind, the status agrees, or the Pod
// does not decide: the cache has the Pod as new as the reconciler saw it
// (the reconciler's own read of what it wrote, its cache since ahead), the
// status computed is the reconciler's, no version recorded, the Pod
// deleted since the cache saw it, a simulator being deleted (its record
// alone decides); and a list whose caches never catch up waits one timeout
// in all, not one per item.
func TestStatusDoesNotWaitInVain(t *testing.T) {
	f := newStatusFixture(t, []string{"a", "b"}, simulatorPod("a", 1, false, "5"), simulatorPod("b", 1, false, "5"))
	available := statusFrom(simulatorPod("a", 1, true, ""), 1)

	for _, tc := range []struct {
		name string
		s    *sim.Simulator
		want sim.SimulatorPhase
	}{
		{"cache has the Pod as new", statusSimulator("a", 1, available, "5"), sim.SimulatorCreating},
		{"status agrees", statusSimulator("a", 1, statusFrom(simulatorPod("a", 1, false, ""), 1), "9"), sim.SimulatorCreating},
		{"no version recorded", statusSimulator("a", 1, available, ""), sim.SimulatorCreating},
		// The reconciler saw the Pod of generation 2 at a version the cache
		// has seen past, and the cache has it not: it was deleted since.
		{"the Pod deleted since", statusSimulator("a", 2, statusFrom(simulatorPod("a", 2, true, ""), 2), f.version(t)), sim.SimulatorPending},
		{"being deleted", func() *sim.Simulator {
			s := statusSimulator("a", 1, available, "9")
			s.DeletionTimestamp = &metav1.Time{Time: time.Now()}
			return s
		}(), sim.SimulatorTerminating},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A timeout long enough that a wait could not pass unseen.
			r := &statusReader{sites: f.sites, timeout: time.Hour, interval: catchUpInterval}
			done := make(chan struct{})
			go func() {
				defer close(done)
				r.decorate(tc.s)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("still waiting after 30 s for a cache it had no reason to wait for")
			}
			if tc.s.Status.Phase != tc.want {
				t.Errorf("phase %s (%s), want %s", tc.s.Status.Phase, tc.s.Status.Message, tc.want)
			}
		})
	}

	t.Run("a list", func(t *testing.T) {
		const timeout = 2 * time.Second
		r := &statusReader{sites: f.sites, timeout: timeout, interval: catchUpInterval}
		list := &sim.SimulatorList{Items: []sim.Simulator{
			*statusSimulator("a", 1, available, "9"),
			*statusSimulator("b", 1, statusFrom(simulatorPod("b", 1, true, ""), 1), "9"),
		}}
		start := time.Now()
		r.decorate(list)
		// Neither cache ever catches up: each item would wait a timeout of its own.
		if took := time.Since(start); took >= 2*timeout {
			t.Errorf("a list of two whose caches never catch up took %s, want one timeout (%s) in all", took, timeout)
		}
		for _, s := range list.Items {
			if s.Status.Phase != sim.SimulatorCreating {
				t.Errorf("%s: phase %s, want Creating as its cache has it", s.Name, s.Status.Phase)
			}
		}
	})
}

// version is the resourceVersion the cache of Pods has seen every change up to.
func (f *statusFixture) version(t *testing.T) string {
	t.Helper()
	v := f.sites.Cache.PodsVersion(statusTestNamespace)
	if v == "" {
		t.Fatal("the cache of Pods has no version")
	}
	return v
}

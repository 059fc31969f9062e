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

package bootstrapseed_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/bootstrapseed"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// hookManager is the field manager of what kube-apiserver's bootstrap
// hooks write: their loopback client's user agent, which names the
// program, sim-control-plane as the simulator runs it.
const hookManager = "sim-control-plane"

// TestBootstrapObjectsSeeded: a new simulator's etcd gets the bootstrap RBAC
// policy and system PriorityClasses from the simulator (bootstrapseed), in
// the encoding kube-apiserver reads, complete enough that kube-apiserver's
// hooks write none of it, and all served once the simulator is ready,
// which then does not wait for the hooks; and a prefix that already holds
// some of it is not written to: the hooks create the rest, as without a
// seed, before the simulator is ready.
func TestBootstrapObjectsSeeded(t *testing.T) {
	etcdURL := framework.StartThrowawayEtcd(t)
	objs, err := bootstrapseed.Objects()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("an empty prefix is seeded", func(t *testing.T) {
		sim := framework.StartStandaloneSimulator(t, etcdURL, "/simulators/test/seeded/uid-1")
		defer sim.Stop(t, time.Minute)
		sim.WaitReady(t, 2*time.Minute)
		written := 0
		for _, obj := range objs {
			got := getBootstrapObject(t, sim.Client(t), obj)
			if !sameBootstrapObject(obj, got) {
				t.Errorf("%s: served %+v, want the policy's %+v", describe(obj), got, obj)
			}
			if managedBy(got, hookManager) {
				written++
			}
		}
		if written != 0 {
			t.Errorf("kube-apiserver's hook wrote %d of the %d seeded objects", written, len(objs))
		}
		// Seeded whole: readiness did not wait for the hooks.
		for _, hook := range bootstrapseed.Hooks {
			if ready := readyLine(t, sim); !strings.Contains(ready, hook) {
				t.Errorf("the simulator's readiness waited for %s after a complete seed: %s", hook, ready)
			}
		}
	})

	t.Run("a prefix with data is not seeded", func(t *testing.T) {
		const prefix = "/simulators/test/restarted/uid-2"
		// One object of each batch is there already, as after a restart
		// that lost the rest (no batch can be written).
		kvs, err := bootstrapseed.Encode(objs, prefix, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = etcd.Close() }()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		there := map[int]bool{}
		for i := 0; i < len(kvs); i += 8 {
			if _, err := etcd.Put(ctx, kvs[i].Key, string(kvs[i].Value)); err != nil {
				t.Fatal(err)
			}
			there[i] = true
		}

		sim := framework.StartStandaloneSimulator(t, etcdURL, prefix)
		defer sim.Stop(t, time.Minute)
		sim.WaitReady(t, 2*time.Minute)
		c := sim.Client(t)
		byHook := 0
		for i, obj := range objs {
			got := getBootstrapObject(t, c, obj)
			if !sameBootstrapObject(obj, got) {
				t.Errorf("%s: served %+v, want the policy's %+v", describe(obj), got, obj)
			}
			switch hook := managedBy(got, hookManager); {
			case there[i] && hook:
				t.Errorf("%s was there before the start and was written again", describe(obj))
			case !there[i] && !hook:
				t.Errorf("%s was not created by kube-apiserver's hook: seeded into a prefix that held data", describe(obj))
			case hook:
				byHook++
			}
		}
		t.Logf("the hook created %d objects, %d were there", byHook, len(there))
		if ready := readyLine(t, sim); strings.Contains(ready, "poststarthook/") {
			t.Errorf("the simulator's readiness left out kube-apiserver's hooks after a partial seed: %s", ready)
		}
	})
}

// readyLine is the simulator's log line that says it is ready, with the
// checks of kube-apiserver it left out (logged within 100 ms of its
// readiness, which the caller has seen).
func readyLine(t *testing.T, sim *framework.StandaloneSimulator) string {
	t.Helper()
	var data []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var err error
		if data, err = os.ReadFile(sim.LogPath()); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, `"Simulator ready"`) {
				return line
			}
		}
	}
	t.Fatalf("the simulator's log says nowhere that it is ready:\n%s", data)
	return ""
}

func describe(obj runtime.Object) string {
	m := obj.(metav1.Object)
	return obj.GetObjectKind().GroupVersionKind().Kind + " " + m.GetNamespace() + "/" + m.GetName()
}

func getBootstrapObject(t *testing.T, c kubernetes.Interface, obj runtime.Object) runtime.Object {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	m := obj.(metav1.Object)
	var got runtime.Object
	var err error
	switch obj.(type) {
	case *rbacv1.ClusterRole:
		got, err = c.RbacV1().ClusterRoles().Get(ctx, m.GetName(), metav1.GetOptions{})
	case *rbacv1.ClusterRoleBinding:
		got, err = c.RbacV1().ClusterRoleBindings().Get(ctx, m.GetName(), metav1.GetOptions{})
	case *rbacv1.Role:
		got, err = c.RbacV1().Roles(m.GetNamespace()).Get(ctx, m.GetName(), metav1.GetOptions{})
	case *rbacv1.RoleBinding:
		got, err = c.RbacV1().RoleBindings(m.GetNamespace()).Get(ctx, m.GetName(), metav1.GetOptions{})
	case *schedulingv1.PriorityClass:
		got, err = c.SchedulingV1().PriorityClasses().Get(ctx, m.GetName(), metav1.GetOptions{})
	default:
		t.Fatalf("%T in the bootstrap objects", obj)
	}
	if err != nil {
		t.Fatalf("%s: %v", describe(obj), err)
	}
	return got
}

// sameBootstrapObject: got grants, or ranks Pods, as want does. An
// aggregated ClusterRole's rules are kube-controller-manager's to fill:
// only its aggregation rule counts.
func sameBootstrapObject(want, got runtime.Object) bool {
	wm, gm := want.(metav1.Object), got.(metav1.Object)
	if !equality.Semantic.DeepEqual(wm.GetLabels(), gm.GetLabels()) || !equality.Semantic.DeepEqual(wm.GetAnnotations(), gm.GetAnnotations()) {
		return false
	}
	switch w := want.(type) {
	case *rbacv1.ClusterRole:
		g := got.(*rbacv1.ClusterRole)
		if w.AggregationRule != nil {
			return equality.Semantic.DeepEqual(w.AggregationRule, g.AggregationRule)
		}
		return equality.Semantic.DeepEqual(w.Rules, g.Rules)
	case *rbacv1.ClusterRoleBinding:
		g := got.(*rbacv1.ClusterRoleBinding)
		return equality.Semantic.DeepEqual(w.RoleRef, g.RoleRef) && equality.Semantic.DeepEqual(w.Subjects, g.Subjects)
	case *rbacv1.Role:
		return equality.Semantic.DeepEqual(w.Rules, got.(*rbacv1.Role).Rules)
	case *rbacv1.RoleBinding:
		g := got.(*rbacv1.RoleBinding)
		return equality.Semantic.DeepEqual(w.RoleRef, g.RoleRef) && equality.Semantic.DeepEqual(w.Subjects, g.Subjects)
	case *schedulingv1.PriorityClass:
		g := got.(*schedulingv1.PriorityClass)
		return w.Value == g.Value && w.GlobalDefault == g.GlobalDefault && w.Description == g.Description &&
			equality.Semantic.DeepEqual(w.PreemptionPolicy, g.PreemptionPolicy)
	}
	return false
}

func managedBy(obj runtime.Object, manager string) bool {
	for _, f := range obj.(metav1.Object).GetManagedFields() {
		if f.Manager == manager {
			return true
		}
	}
	return false
}

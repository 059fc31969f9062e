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
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// recordOf finds the host ConfigMap that holds a simulator.
func recordOf(t testing.TB, ns, name string) *corev1.ConfigMap {
	t.Helper()
	return recordOfResource(t, "simulators.sim.x-k8s.io", ns, name)
}

// recordOfResource finds the host ConfigMap that holds object ns/name of
// resource (e.g. nodepools.sim.x-k8s.io).
func recordOfResource(t testing.TB, resource, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cms, err := hostCluster(t).Client.CoreV1().ConfigMaps(framework.SimNamespace).List(t.Context(), metav1.ListOptions{
		LabelSelector: fmt.Sprintf("%s=%s,%s=%s,%s=%s", hoststore.LabelResource, resource, hoststore.LabelNamespace, ns, hoststore.LabelName, name),
	})
	if err != nil || len(cms.Items) != 1 {
		t.Fatalf("record of %s %s/%s: %v, %d found", resource, ns, name, err, len(cms.Items))
	}
	return &cms.Items[0]
}

// TestRecordsLiveInTheServersNamespace checks where and how objects are kept:
// one ConfigMap each, in sim-system, none in the user's namespace.
func TestRecordsLiveInTheServersNamespace(t *testing.T) {
	c := simClient(t)
	host := hostCluster(t)
	ns := createNamespace(t, "records")
	s := newSimulator("rec")
	s.Labels = map[string]string{"team": "a", hoststore.LabelNamespace: "forged"}
	if _, err := c.SimV1alpha1().Simulators(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := recordOf(t, ns, "rec")
	if cm.Labels["team"] != "a" || cm.Labels[hoststore.LabelNamespace] != ns {
		t.Errorf("record labels %v: the object's labels are copied, the reserved ones are not", cm.Labels)
	}
	if !regexp.MustCompile(`^rec-[0-9a-f]{32}$`).MatchString(cm.Name) {
		t.Errorf("record name %q should be a hash", cm.Name)
	}
	if strings.Contains(cm.Data["object"], `"status"`) && strings.Contains(cm.Data["object"], `"phase"`) {
		t.Errorf("the record holds a computed status: %s", cm.Data["object"])
	}
	cms, err := host.Client.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{LabelSelector: hoststore.LabelResource})
	if err != nil || len(cms.Items) != 0 {
		t.Errorf("records in the user's namespace: %v %d", err, len(cms.Items))
	}
}

// TestGarbageRecord checks that a record edited into garbage is told, not
// hidden: a get of it and a list of its namespace fail naming it, as etcd3's
// do on a corrupt object (a list that left it out would tell every
// informer, the host's garbage collector among them, that the object was
// deleted), its neighbours are still read, and kube's unsafe deletion
// removes it.
func TestGarbageRecord(t *testing.T) {
	c := simClient(t)
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "garbage")
	sims := c.SimV1alpha1().Simulators(ns)
	for _, n := range []string{"good", "broken"} {
		if _, err := sims.Create(ctx, newSimulator(n), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cm := recordOf(t, ns, "broken")
	cm.Data["object"] = "{not json"
	if _, err := host.Client.CoreV1().ConfigMaps(framework.SimNamespace).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := sims.List(ctx, metav1.ListOptions{})
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), cm.Name) {
		t.Errorf("list with a garbage record: %v, want an InternalError naming record %s", err, cm.Name)
	}
	_, err = sims.Get(ctx, "broken", metav1.GetOptions{})
	if err == nil || !strings.Contains(err.Error(), "cannot be decoded") {
		t.Errorf("get of the garbage record: %v, want an error saying it cannot be decoded", err)
	}
	if _, err := sims.Get(ctx, "good", metav1.GetOptions{}); err != nil {
		t.Errorf("get of a good record: %v", err)
	}
	// The way out: delete the corrupt object (kube's unsafe-delete option).
	err = sims.Delete(ctx, "broken", metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: ptr.To(true)})
	if err != nil {
		t.Fatalf("unsafe delete of the corrupt object: %v", err)
	}
	if _, err := sims.Get(ctx, "broken", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after unsafe delete: %v, want NotFound", err)
	}
	list, err := sims.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "good" {
		t.Errorf("list after the unsafe delete: %v %+v, want the good simulator", err, list)
	}
	if _, err := kubectl(t, host.KubeconfigPath, "get", "simulators", "-n", ns); err != nil {
		t.Errorf("kubectl get after the unsafe delete: %v", err)
	}
}

// TestListPagingAndDeleteCollection pages through simulators with limit and
// continue, then deletes them all at once; the finalizer cleans up each.
func TestListPagingAndDeleteCollection(t *testing.T) {
	c := simClient(t)
	ctx := t.Context()
	ns := createNamespace(t, "paging")
	sims := c.SimV1alpha1().Simulators(ns)
	for i := range 5 {
		if _, err := sims.Create(ctx, newSimulator(fmt.Sprintf("p%d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	opts := metav1.ListOptions{Limit: 2}
	pages := 0
	for {
		list, err := sims.List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(list.Items) > 2 {
			t.Errorf("page of %d items with limit 2", len(list.Items))
		}
		for _, s := range list.Items {
			names = append(names, s.Name)
		}
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}
	if len(names) != 5 || pages < 3 {
		t.Errorf("paging gave %v in %d pages", names, pages)
	}

	if err := sims.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every simulator and host object to be gone", func(ctx context.Context) (bool, error) {
		list, err := sims.List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 0 {
			return false, err
		}
		pods, err := hostCluster(t).Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator})
		return err == nil && len(pods.Items) == 0, err
	})
}

// TestOrphanSweep checks that host objects whose simulator does not exist
// are removed, and that a user's own objects of the same name or with the
// same labels, which no simulator controls, are not.
func TestOrphanSweep(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "orphans")
	labels := map[string]string{sim.LabelSimulator: "ghost"}
	// First, so that every sweep of the owned objects below sees it.
	usersPod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "users", Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}},
	}
	if _, err := host.Client.CoreV1().Pods(ns).Create(ctx, usersPod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	owners := []metav1.OwnerReference{{APIVersion: "sim.x-k8s.io/v1alpha1", Kind: "Simulator", Name: "ghost", UID: "0d5e6f1a-gone", Controller: ptr.To(true)}}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "sim-ghost", Labels: labels, OwnerReferences: owners},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if _, err := host.Client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "sim-ghost-g1", Labels: labels, OwnerReferences: owners},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}},
	}
	if _, err := host.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mine := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sim-ghost-credentials"}}
	if _, err := host.Client.CoreV1().Secrets(ns).Create(ctx, mine, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the orphans to be swept", func(ctx context.Context) (bool, error) {
		_, svcErr := host.Client.CoreV1().Services(ns).Get(ctx, "sim-ghost", metav1.GetOptions{})
		_, podErr := host.Client.CoreV1().Pods(ns).Get(ctx, "sim-ghost-g1", metav1.GetOptions{})
		return apierrors.IsNotFound(svcErr) && apierrors.IsNotFound(podErr), nil
	})
	if _, err := host.Client.CoreV1().Secrets(ns).Get(ctx, "sim-ghost-credentials", metav1.GetOptions{}); err != nil {
		t.Errorf("an unlabelled Secret of the user was touched: %v", err)
	}
	if _, err := host.Client.CoreV1().Pods(ns).Get(ctx, "users", metav1.GetOptions{}); err != nil {
		t.Errorf("a labelled Pod of the user, which no simulator controls, was touched: %v", err)
	}
}

// TestNamespaceDeletion checks that deleting a namespace deletes its
// simulators through our API, cleanly, and the namespace goes away.
func TestNamespaceDeletion(t *testing.T) {
	c := simClient(t)
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "nsdelete")
	if _, err := c.SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("doomed"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPod(t, ns, "doomed", 1)
	if err := host.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the namespace to be gone", func(ctx context.Context) (bool, error) {
		_, err := host.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	cms, err := host.Client.CoreV1().ConfigMaps(framework.SimNamespace).List(ctx, metav1.ListOptions{
		LabelSelector: hoststore.LabelNamespace + "=" + ns,
	})
	if err != nil || len(cms.Items) != 0 {
		t.Errorf("records left of the deleted namespace: %v %d", err, len(cms.Items))
	}
}

// TestNodePoolSubresources checks scale and status of nodepools.
func TestNodePoolSubresources(t *testing.T) {
	c := simClient(t)
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "nodepools")
	pools := c.SimV1alpha1().NodePools(ns)
	np := &v1alpha1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "workers"}, Spec: v1alpha1.NodePoolSpec{SimulatorName: "example"}}
	created, err := pools.Create(ctx, np, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *created.Spec.Replicas != 1 || created.Spec.Template.Status.Capacity.Cpu().String() != "32" {
		t.Errorf("defaults: %+v", created.Spec)
	}
	if _, err := kubectl(t, host.KubeconfigPath, "scale", "-n", ns, "nodepool/workers", "--replicas=7"); err != nil {
		t.Fatal(err)
	}
	scale, err := pools.GetScale(ctx, "workers", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 7 || scale.Status.Selector != sim.LabelNodePool+"=workers" {
		t.Errorf("scale: %v %+v", err, scale)
	}
	if _, err := kubectl(t, host.KubeconfigPath, "scale", "-n", ns, "nodepool/workers", "--replicas=-1"); err == nil {
		t.Error("scaling to -1 must fail")
	}
	got, err := pools.Get(ctx, "workers", metav1.GetOptions{})
	if err != nil || *got.Spec.Replicas != 7 || got.Generation != 2 {
		t.Errorf("after scale: %v replicas %d generation %d", err, *got.Spec.Replicas, got.Generation)
	}
	// The reconciler writes status too (this pool waits for its simulator).
	var updated *v1alpha1.NodePool
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := pools.Get(ctx, "workers", metav1.GetOptions{})
		if err != nil {
			return err
		}
		got.Status.Replicas, got.Status.ReadyReplicas = 7, 5
		got.Spec.SimulatorName = "ignored-on-status"
		updated, err = pools.UpdateStatus(ctx, got, metav1.UpdateOptions{})
		return err
	})
	if err != nil || updated.Status.ReadyReplicas != 5 || updated.Spec.SimulatorName != "example" {
		t.Errorf("status update: %v %+v", err, updated)
	}
	updated.Spec.SimulatorName = "other"
	updated.ResourceVersion = "" // unconditional: validation is what this checks
	if _, err := pools.Update(ctx, updated, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("changing simulatorName: %v, want 422", err)
	}
	if list, err := pools.List(ctx, metav1.ListOptions{FieldSelector: "spec.simulatorName=example"}); err != nil || len(list.Items) != 1 {
		t.Errorf("field selector on spec.simulatorName: %v %+v", err, list)
	}
}

// TestGarbageCollection checks that the host's garbage collector works on
// our resources: a nodepool owned by a simulator goes with it, and a
// foreground deletion completes.
func TestGarbageCollection(t *testing.T) {
	c := simClient(t)
	ctx := t.Context()
	ns := createNamespace(t, "gc")
	owner, err := c.SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("owner"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	np := &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "owned", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Simulator", Name: owner.Name, UID: owner.UID,
		}}},
		Spec: v1alpha1.NodePoolSpec{SimulatorName: owner.Name},
	}
	if _, err := c.SimV1alpha1().NodePools(ns).Create(ctx, np, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	foreground := metav1.DeletePropagationForeground
	if err := c.SimV1alpha1().Simulators(ns).Delete(ctx, owner.Name, metav1.DeleteOptions{PropagationPolicy: &foreground}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the owner and its nodepool to be gone", func(ctx context.Context) (bool, error) {
		_, simErr := c.SimV1alpha1().Simulators(ns).Get(ctx, owner.Name, metav1.GetOptions{})
		_, npErr := c.SimV1alpha1().NodePools(ns).Get(ctx, "owned", metav1.GetOptions{})
		return apierrors.IsNotFound(simErr) && apierrors.IsNotFound(npErr), nil
	})
}

// TestListInKeyOrder checks that simulators list in name order, as every
// kube resource does (by key: namespace, then name), whole and page by page.
func TestListInKeyOrder(t *testing.T) {
	c := simClient(t)
	host := hostCluster(t)
	ns := createNamespace(t, "order")
	for _, n := range []string{"mid", "zeta", "omega", "beta", "alpha"} {
		if _, err := c.SimV1alpha1().Simulators(ns).Create(t.Context(), newSimulator(n), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := "alpha beta mid omega zeta"
	for _, chunk := range []string{"--chunk-size=0", "--chunk-size=2"} {
		out, err := kubectl(t, host.KubeconfigPath, "get", "simulators", "-n", ns, chunk, "-o", "custom-columns=NAME:.metadata.name", "--no-headers")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(out), " "); got != want {
			t.Errorf("kubectl get simulators %s: %q, want %q", chunk, got, want)
		}
	}
}

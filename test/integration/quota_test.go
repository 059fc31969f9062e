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
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

const countNodePools corev1.ResourceName = "count/nodepools.sim.x-k8s.io"

// quotaPool is a NodePool of a simulator that need not exist: it waits for
// it, and counts all the same.
func quotaPool(name string, replicas int32) *v1alpha1.NodePool {
	return &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.NodePoolSpec{SimulatorName: "absent", Replicas: ptr.To(replicas)},
	}
}

// forbidden fails unless err is a 403 whose message holds every part.
func forbidden(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Fatalf("%s: want 403 Forbidden, got %v", what, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: the refusal %q does not say %q", what, err, p)
		}
	}
}

// deletePool deletes a pool and waits until it is gone (the reconciler
// lets a pool without a simulator go at once).
func deletePool(t *testing.T, client simclientset.Interface, ns, name string) {
	t.Helper()
	if err := client.SimV1alpha1().NodePools(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting nodepool %s: %v", name, err)
	}
	eventually(t, "nodepool "+name+" to be gone", func(ctx context.Context) (bool, error) {
		_, err := client.SimV1alpha1().NodePools(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// createFreed creates a pool in the room a deletion freed, once the
// server's caches show the deletion (milliseconds after the host).
func createFreed(t *testing.T, client simclientset.Interface, ns string, np *v1alpha1.NodePool) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = client.SimV1alpha1().NodePools(ns).Create(ctx, np, metav1.CreateOptions{})
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("a nodepool in the room a deletion freed: %v", last)
	}
}

// TestQuotaCountsNodePools: a host ResourceQuota of
// count/nodepools.sim.x-k8s.io binds a tenant of the shipped roles. The
// server's ResourceQuota admission refuses the pool past it with the
// quota's message and charges the quota's status.used; the host's quota
// controller gives a deleted pool's room back.
func TestQuotaCountsNodePools(t *testing.T) {
	c := hostCluster(t)
	ns := createNamespace(t, "quota")
	simOnlyUser(t, ns, "tenant")
	tenant := simclientset.NewForConfigOrDie(mustUserConfig(t, "tenant"))
	quotas := c.Client.CoreV1().ResourceQuotas(ns)

	// The host's quota controller fills in status, which quota admission
	// needs. It counts nodepools once discovery has shown them to it (every
	// 30 s); a quota made before that has its usage only at the next full
	// resync (5 min), so it is made anew until it has.
	q := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "simulation"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{countNodePools: resource.MustParse("2")}},
	}
	err := wait.PollUntilContextTimeout(t.Context(), time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := quotas.Get(ctx, q.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = quotas.Create(ctx, q, metav1.CreateOptions{})
			return false, err
		}
		if err != nil {
			return false, err
		}
		if _, ok := got.Status.Used[countNodePools]; ok {
			return true, nil
		}
		if time.Since(got.CreationTimestamp.Time) > 20*time.Second {
			return false, quotas.Delete(ctx, q.Name, metav1.DeleteOptions{})
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("waiting for the host's quota controller to count nodepools: %v", err)
	}

	for _, name := range []string{"a", "b"} {
		if _, err := tenant.SimV1alpha1().NodePools(ns).Create(t.Context(), quotaPool(name, 1), metav1.CreateOptions{}); err != nil {
			t.Fatalf("nodepool %s within the quota: %v", name, err)
		}
	}
	_, err = tenant.SimV1alpha1().NodePools(ns).Create(t.Context(), quotaPool("c", 1), metav1.CreateOptions{})
	forbidden(t, "the third nodepool", err, `nodepools.sim.x-k8s.io "c" is forbidden`,
		"exceeded quota: simulation, requested: count/nodepools.sim.x-k8s.io=1, used: count/nodepools.sim.x-k8s.io=2, limited: count/nodepools.sim.x-k8s.io=2")
	// A dry run is refused alike.
	_, err = tenant.SimV1alpha1().NodePools(ns).Create(t.Context(), quotaPool("c", 1), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	forbidden(t, "the third nodepool, dry run", err, "exceeded quota: simulation")

	got, err := quotas.Get(t.Context(), q.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if used := got.Status.Used[countNodePools]; used.Value() != 2 {
		t.Errorf("status.used %s = %s, want 2", countNodePools, used.String())
	}

	// A deletion frees the room.
	deletePool(t, tenant, ns, "a")
	eventually(t, "the quota to count the deletion", func(ctx context.Context) (bool, error) {
		got, err := quotas.Get(ctx, q.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		used := got.Status.Used[countNodePools]
		return used.Value() == 1, nil
	})
	createFreed(t, tenant, ns, quotaPool("c", 1))
}

// TestQuotaServerDefaults: where no ResourceQuota counts nodepools, the
// server's own limit does, and the sum of the namespace's nodepool replicas
// has a cap, on create, update and nodepools/scale alike. A replica started
// with low limits serves the tenant directly, as the aggregator would.
func TestQuotaServerDefaults(t *testing.T) {
	c := hostCluster(t)
	replica, err := c.StartSimAPIServerReplica(t.Context(), "sim-apiserver-limits",
		"--max-nodepools-per-namespace=2", "--max-nodepool-replicas-per-namespace=10")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(replica.Stop)
	ns := createNamespace(t, "limits")
	simOnlyUser(t, ns, "tenant")
	tenant := simclientset.NewForConfigOrDie(replica.FrontProxyConfig("tenant"))
	pools := tenant.SimV1alpha1().NodePools(ns)

	for _, name := range []string{"a", "b"} {
		if _, err := pools.Create(t.Context(), quotaPool(name, 4), metav1.CreateOptions{}); err != nil {
			t.Fatalf("nodepool %s within the limits: %v", name, err)
		}
	}
	_, err = pools.Create(t.Context(), quotaPool("c", 1), metav1.CreateOptions{})
	forbidden(t, "the third nodepool", err, `nodepools.sim.x-k8s.io "c" is forbidden`,
		"exceeded the server's limit of 2 nodepools per namespace (--max-nodepools-per-namespace)",
		"no ResourceQuota limits count/nodepools.sim.x-k8s.io", "the namespace has 2")

	// The replicas: 4 + 4 of 10. The pool's reconciler writes it too: a
	// conflict is retried, so that the answer is admission's.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b, err := pools.Get(t.Context(), "b", metav1.GetOptions{})
		if err != nil {
			return err
		}
		b.Spec.Replicas = ptr.To[int32](7)
		_, err = pools.Update(t.Context(), b, metav1.UpdateOptions{})
		return err
	})
	forbidden(t, "an update past the replicas cap", err, "exceeded the server's limit of 10 nodepool replicas per namespace",
		"--max-nodepool-replicas-per-namespace", "requested 7, the namespace's other nodepools have 4")
	scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}, Spec: autoscalingv1.ScaleSpec{Replicas: 7}}
	_, err = pools.UpdateScale(t.Context(), "b", scale, metav1.UpdateOptions{})
	forbidden(t, "a scale past the replicas cap", err, "limit of 10 nodepool replicas per namespace", "requested 7")
	scale.Spec.Replicas = 6
	if _, err := pools.UpdateScale(t.Context(), "b", scale, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("a scale up to the cap: %v", err)
	}

	// A deletion frees both.
	deletePool(t, tenant, ns, "a")
	createFreed(t, tenant, ns, quotaPool("c", 4))
	_, err = pools.Create(t.Context(), quotaPool("d", 0), metav1.CreateOptions{})
	forbidden(t, "a third nodepool again", err, "limit of 2 nodepools per namespace")

	// The shared server, with its defaults, takes what the replica refused.
	other := simclientset.NewForConfigOrDie(mustUserConfig(t, "tenant")).SimV1alpha1().NodePools(ns)
	if _, err := other.Create(t.Context(), quotaPool("d", 0), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("the default limits refuse a third nodepool: %v", err)
	}
}

// TestQuotaServerRBAC: the server's account, as artifacts/deploy binds it,
// reads every namespace's ResourceQuotas and may charge their status, which
// its quota admission does, and may not change what a quota allows.
func TestQuotaServerRBAC(t *testing.T) {
	host := hostCluster(t)
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, "artifacts/deploy/rbac-server.yaml")); err != nil {
		t.Fatal(err)
	}
	const server = "system:serviceaccount:sim-system:sim-apiserver"
	ns := createNamespace(t, "quota-rbac")
	framework.WaitForAccess(t, host, ns, server, authorizationv1.ResourceAttributes{Verb: "update", Resource: "resourcequotas", Subresource: "status"})
	canI := func(args ...string) string {
		out, _ := kubectl(t, host.KubeconfigPath, append([]string{"auth", "can-i", "--as=" + server}, args...)...)
		return strings.TrimSpace(out)
	}
	for _, check := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "resourcequotas", "--all-namespaces"}, "yes"},
		{[]string{"watch", "resourcequotas", "--all-namespaces"}, "yes"},
		{[]string{"update", "resourcequotas", "--subresource=status", "-n", ns}, "yes"},
		{[]string{"update", "resourcequotas", "-n", ns}, "no"},
		{[]string{"create", "resourcequotas", "-n", ns}, "no"},
		{[]string{"delete", "resourcequotas", "-n", ns}, "no"},
	} {
		if got := canI(check.args...); got != check.want {
			t.Errorf("can the server %s? %q, want %s", strings.Join(check.args, " "), got, check.want)
		}
	}
}

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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/nodepool"
)

// innerClient is an admin client of a running simulator's inner apiserver
// (the ?mode=direct kubeconfig).
func innerClient(t testing.TB, ns, name string) kubernetes.Interface {
	t.Helper()
	cfg := restClient(t, fetchKubeconfig(t, ns, name, "?mode=direct"))
	cfg.QPS, cfg.Burst = -1, 0
	return kubernetes.NewForConfigOrDie(cfg)
}

// poolNodes lists the Nodes inside that carry pool's label, by name.
func poolNodes(ctx context.Context, t testing.TB, inner kubernetes.Interface, pool string) map[string]corev1.Node {
	t.Helper()
	list, err := inner.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sim.LabelNodePool + "=" + pool})
	if err != nil {
		t.Fatal(err)
	}
	nodes := make(map[string]corev1.Node, len(list.Items))
	for _, n := range list.Items {
		nodes[n.Name] = n
	}
	return nodes
}

func nodeNames(pool string, n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = sim.NodeName(pool, i)
	}
	return names
}

// waitForPool waits until the pool reports Ready for its current generation
// and its simulator holds exactly the Nodes <pool>-0 … <pool>-(replicas-1).
func waitForPool(t testing.TB, inner kubernetes.Interface, ns, pool string) *v1alpha1.NodePool {
	t.Helper()
	var np *v1alpha1.NodePool
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		np, err = simClient(t).SimV1alpha1().NodePools(ns).Get(ctx, pool, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		want := int(*np.Spec.Replicas)
		cond := meta.FindStatusCondition(np.Status.Conditions, v1alpha1.NodePoolConditionReady)
		last = fmt.Sprintf("status %+v", np.Status)
		if np.Status.ObservedGeneration != np.Generation || cond == nil || cond.Status != metav1.ConditionTrue ||
			int(np.Status.Replicas) != want || int(np.Status.ReadyReplicas) != want {
			return false, nil
		}
		nodes := poolNodes(ctx, t, inner, pool)
		got := slices.Sorted(func(yield func(string) bool) {
			for n := range nodes {
				if !yield(n) {
					return
				}
			}
		})
		wantNames := nodeNames(pool, want)
		slices.Sort(wantNames)
		last = fmt.Sprintf("%d Nodes inside, want %d", len(got), want)
		return slices.Equal(got, wantNames), nil
	})
	if err != nil {
		t.Fatalf("waiting for nodepool %s/%s to converge: %v; last: %s", ns, pool, err, last)
	}
	return np
}

// nodeReady: the Node is Ready.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// TestNodePool drives pools in one running simulator: 1,000 Nodes from a
// template with per-index values, kubectl scale both ways, a template
// change, Nodes deleted and edited inside, a second pool left alone, and
// deletion.
func TestNodePool(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "nodepool")
	runningSimulator(t, ns, "sim")
	inner := innerClient(t, ns, "sim")
	pools := simClient(t).SimV1alpha1().NodePools(ns)

	manifest := fmt.Sprintf(`apiVersion: sim.x-k8s.io/v1alpha1
kind: NodePool
metadata:
  name: workers
  namespace: %s
spec:
  simulatorName: sim
  replicas: 1000
  template:
    metadata:
      labels:
        topology.kubernetes.io/zone: 'zone-{{ mod .Index 3 }}'
        tier: old
      annotations:
        example.com/index: '{{ .Index }}'
    spec:
      taints:
      - {key: example.com/dedicated, value: gpu, effect: NoSchedule}
      podCIDR: '{{ AddCIDR "10.128.0.0/24" .Index }}'
      providerID: 'sim://{{ .Name }}'
    status:
      capacity: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/gpu: "8"}
      allocatable: {cpu: "15", memory: 60Gi, pods: "110", nvidia.com/gpu: "8"}
      nodeInfo: {kernelVersion: 6.1.0-sim, architecture: arm64}
`, ns)
	path := filepath.Join(t.TempDir(), "workers.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", path); err != nil {
		t.Fatal(err)
	}
	if out, err := kubectl(t, host.KubeconfigPath, "wait", "-n", ns, "--for=condition=Ready", "nodepool/workers", "--timeout=180s"); err != nil {
		t.Fatalf("kubectl wait: %v\n%s", err, out)
	}
	np := waitForPool(t, inner, ns, "workers")
	if np.Status.Selector != sim.LabelNodePool+"=workers" {
		t.Errorf("selector %q", np.Status.Selector)
	}
	if !slices.ContainsFunc(np.OwnerReferences, func(r metav1.OwnerReference) bool { return r.Kind == "Simulator" && r.Name == "sim" }) {
		t.Errorf("the pool is not owned by its simulator: %+v", np.OwnerReferences)
	}
	out, err := kubectl(t, host.KubeconfigPath, "get", "-n", ns, "np", "workers", "--no-headers")
	if f := strings.Fields(out); err != nil || len(f) < 5 || !slices.Equal(f[:5], []string{"workers", "sim", "1000", "1000", "1000"}) {
		t.Errorf("kubectl get np: %v %q, want workers sim 1000 1000 1000 …", err, out)
	}

	nodes := poolNodes(ctx, t, inner, "workers")
	n7 := nodes["workers-7"]
	if !nodeReady(&n7) {
		t.Errorf("workers-7 is not Ready: %+v", n7.Status.Conditions)
	}
	// Born Ready, and nothing writes it again: kwok holds no Lease (nothing
	// heartbeats a fake Node) and has nothing to change on a Ready Node.
	var managers []string
	for _, m := range n7.ManagedFields {
		managers = append(managers, m.Manager)
	}
	if !slices.Equal(managers, []string{nodepool.FieldManager}) {
		t.Errorf("workers-7 was written by %v, want %s alone", managers, nodepool.FieldManager)
	}
	if leases, err := inner.CoordinationV1().Leases(corev1.NamespaceNodeLease).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("listing Node Leases: %v", err)
	} else if len(leases.Items) != 0 {
		t.Errorf("%d Node Leases, want none", len(leases.Items))
	}
	for k, want := range map[string]string{
		"topology.kubernetes.io/zone": "zone-1", "tier": "old", "type": "kwok", sim.LabelNodePool: "workers",
		corev1.LabelHostname: "workers-7", corev1.LabelArchStable: "arm64",
	} {
		if got := n7.Labels[k]; got != want {
			t.Errorf("workers-7 label %s=%q, want %q", k, got, want)
		}
	}
	if n7.Annotations["kwok.x-k8s.io/node"] != "fake" || n7.Annotations["example.com/index"] != "7" {
		t.Errorf("workers-7 annotations %v", n7.Annotations)
	}
	if n7.Spec.PodCIDR != "10.128.7.0/24" || n7.Spec.ProviderID != "sim://workers-7" {
		t.Errorf("workers-7 podCIDR %q providerID %q", n7.Spec.PodCIDR, n7.Spec.ProviderID)
	}
	wantTaints := []corev1.Taint{{Key: "example.com/dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	if d := cmp.Diff(wantTaints, n7.Spec.Taints); d != "" {
		t.Errorf("workers-7 taints (-want +got):\n%s", d)
	}
	gpu := n7.Status.Allocatable["nvidia.com/gpu"]
	cpu := n7.Status.Allocatable[corev1.ResourceCPU]
	if gpu.Value() != 8 || cpu.Value() != 15 {
		t.Errorf("workers-7 allocatable %v", n7.Status.Allocatable)
	}
	if n7.Status.NodeInfo.KernelVersion != "6.1.0-sim" || n7.Status.NodeInfo.Architecture != "arm64" {
		t.Errorf("workers-7 nodeInfo %+v", n7.Status.NodeInfo)
	}
	if n := nodes["workers-999"]; n.Spec.PodCIDR != "10.131.231.0/24" || n.Labels["topology.kubernetes.io/zone"] != "zone-0" {
		t.Errorf("workers-999 podCIDR %q zone %q", n.Spec.PodCIDR, n.Labels["topology.kubernetes.io/zone"])
	}

	t.Run("scale", func(t *testing.T) {
		for _, replicas := range []int{10, 0, 25} {
			if _, err := kubectl(t, host.KubeconfigPath, "scale", "-n", ns, "nodepool/workers", fmt.Sprintf("--replicas=%d", replicas)); err != nil {
				t.Fatal(err)
			}
			waitForPool(t, inner, ns, "workers")
		}
	})

	// A second pool in the same simulator: the first pool's changes never touch it.
	others := &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "others"},
		Spec:       v1alpha1.NodePoolSpec{SimulatorName: "sim", Replicas: ptr.To[int32](5)},
	}
	if _, err := pools.Create(ctx, others, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPool(t, inner, ns, "others")
	othersBefore := poolNodes(ctx, t, inner, "others")

	t.Run("template change reaches existing Nodes", func(t *testing.T) {
		before := poolNodes(ctx, t, inner, "workers")
		np, err := pools.Get(ctx, "workers", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		delete(np.Spec.Template.Metadata.Labels, "tier")
		np.Spec.Template.Metadata.Labels["pool-version"] = "v2-{{ .Index }}"
		np.Spec.Template.Spec.Unschedulable = true
		np.Spec.Template.Status.Capacity["nvidia.com/gpu"] = resource.MustParse("4")
		np.Spec.Template.Status.Allocatable["nvidia.com/gpu"] = resource.MustParse("4")
		if _, err := pools.Update(ctx, np, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitForPool(t, inner, ns, "workers")
		err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			for name, n := range poolNodes(ctx, t, inner, "workers") {
				gpu := n.Status.Allocatable["nvidia.com/gpu"]
				if _, tier := n.Labels["tier"]; tier || n.Labels["pool-version"] != "v2-"+strings.TrimPrefix(name, "workers-") ||
					!n.Spec.Unschedulable || gpu.Value() != 4 {
					return false, nil
				}
				if n.UID != before[name].UID {
					return false, fmt.Errorf("node %s was made anew, want patched", name)
				}
			}
			return true, nil
		})
		if err != nil {
			t.Fatalf("the template change did not reach the Nodes: %v", err)
		}
	})

	t.Run("Nodes deleted or edited inside are put back", func(t *testing.T) {
		if err := inner.CoreV1().Nodes().Delete(ctx, "workers-3", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		patch := `{"metadata":{"labels":{"topology.kubernetes.io/zone":"elsewhere"}},"spec":{"unschedulable":false}}`
		if _, err := inner.CoreV1().Nodes().Patch(ctx, "workers-4", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			n3, err3 := inner.CoreV1().Nodes().Get(ctx, "workers-3", metav1.GetOptions{})
			n4, err4 := inner.CoreV1().Nodes().Get(ctx, "workers-4", metav1.GetOptions{})
			return err3 == nil && err4 == nil && nodeReady(n3) && n4.Labels["topology.kubernetes.io/zone"] == "zone-1" && n4.Spec.Unschedulable, nil
		})
		if err != nil {
			t.Fatalf("workers-3 and workers-4 were not put back: %v", err)
		}
		waitForPool(t, inner, ns, "workers")
	})

	if d := cmp.Diff(uids(othersBefore), uids(poolNodes(ctx, t, inner, "others"))); d != "" {
		t.Errorf("changes to pool workers touched pool others (-before +after):\n%s", d)
	}

	t.Run("pods run on pool Nodes", func(t *testing.T) {
		runOnPool(t, inner, "web", "others", 100)
	})

	// kwok (v0.8.0) skips a Pod bound to a Node it has not seen yet and
	// lists the Node's Pods once it sees it: Pods bound while a pool's Nodes
	// are made run too. (With Node Leases, it checked a Pod's Node against
	// its cache of Leases instead, which lagged: 9 of 1,000 Pods stayed
	// Pending here.)
	t.Run("pods bound while the pool's Nodes are made run", func(t *testing.T) {
		const n = 1000
		fresh := &v1alpha1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Name: "fresh"},
			Spec:       v1alpha1.NodePoolSpec{SimulatorName: "sim", Replicas: ptr.To[int32](n)},
		}
		if _, err := pools.Create(ctx, fresh, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		runOnPool(t, inner, "early", "fresh", n)
		if err := pools.Delete(ctx, "fresh", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("deleting a pool removes its Nodes only", func(t *testing.T) {
		if err := pools.Delete(ctx, "others", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "pool others and its Nodes to be gone", func(ctx context.Context) (bool, error) {
			_, err := pools.Get(ctx, "others", metav1.GetOptions{})
			return apierrors.IsNotFound(err) && len(poolNodes(ctx, t, inner, "others")) == 0, nil
		})
		if got := len(poolNodes(ctx, t, inner, "workers")); got != 25 {
			t.Errorf("pool workers has %d Nodes after pool others went, want 25", got)
		}
	})
}

// runOnPool runs a Deployment of n Pods on pool inside the simulator,
// waits until every one is Running there, and deletes it.
func runOnPool(t *testing.T, inner kubernetes.Interface, name, pool string, n int32) {
	t.Helper()
	ctx := t.Context()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(n),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{sim.LabelNodePool: pool},
					Containers:   []corev1.Container{{Name: "web", Image: "web"}},
				},
			},
		},
	}
	if _, err := inner.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := inner.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil {
			return false, err
		}
		bound, running := 0, 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				bound++
			}
			if p.Status.Phase == corev1.PodRunning && strings.HasPrefix(p.Spec.NodeName, pool+"-") {
				running++
			}
		}
		last = fmt.Sprintf("%d Pods, %d bound, %d Running on the pool", len(pods.Items), bound, running)
		return running == int(n), nil
	})
	if err != nil {
		t.Fatalf("%d Pods Running on pool %s: %v; last %s", n, pool, err, last)
	}
	if err := inner.AppsV1().Deployments("default").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

func uids(nodes map[string]corev1.Node) map[string]types.UID {
	out := map[string]types.UID{}
	for name, n := range nodes {
		out[name] = n.UID
	}
	return out
}

// TestNodePoolWaitsForSimulator checks that a pool whose simulator does not
// exist, or is not Available, says so and makes nothing.
func TestNodePoolWaitsForSimulator(t *testing.T) {
	ctx := t.Context()
	ns := createNamespace(t, "npwait")
	pools := simClient(t).SimV1alpha1().NodePools(ns)
	np := &v1alpha1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "early"}, Spec: v1alpha1.NodePoolSpec{SimulatorName: "later"}}
	if _, err := pools.Create(ctx, np, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReason := func(reason string) {
		t.Helper()
		eventually(t, "Ready condition with reason "+reason, func(ctx context.Context) (bool, error) {
			got, err := pools.Get(ctx, "early", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.NodePoolConditionReady)
			return c != nil && c.Status == metav1.ConditionFalse && c.Reason == reason && strings.Contains(c.Message, `"later"`), nil
		})
	}
	waitForReason("SimulatorNotFound")
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("later"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForReason("SimulatorNotAvailable")
	// Deleting a pool that never made a Node needs no simulator.
	if err := pools.Delete(ctx, "early", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the pool to be gone", func(ctx context.Context) (bool, error) {
		_, err := pools.Get(ctx, "early", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// TestNodePoolInvalidTemplate checks that invalid templates are refused with
// 422 and the path of each bad field.
func TestNodePoolInvalidTemplate(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "npinvalid")
	manifest := fmt.Sprintf(`apiVersion: sim.x-k8s.io/v1alpha1
kind: NodePool
metadata:
  name: bad
  namespace: %s
spec:
  simulatorName: sim
  replicas: 3
  template:
    metadata:
      labels:
        zone: '{{ .Nope }}'
    spec:
      podCIDR: 'not-a-cidr'
      providerID: '{{ unclosed'
      taints:
      - {key: a, effect: Sometimes}
    status:
      capacity: {cpu: "-1"}
`, ns)
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := kubectl(t, host.KubeconfigPath, "apply", "-f", path)
	if err == nil {
		t.Fatalf("kubectl apply of an invalid pool succeeded: %s", out)
	}
	msg := err.Error()
	for _, want := range []string{"is invalid", "spec.template.metadata.labels[zone]", "spec.template.spec.podCIDR",
		"spec.template.spec.providerID", "spec.template.spec.taints[0].effect", "spec.template.status.capacity[cpu]"} {
		if !strings.Contains(msg, want) {
			t.Errorf("kubectl apply error lacks %q:\n%s", want, msg)
		}
	}
	np := &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Spec: v1alpha1.NodePoolSpec{SimulatorName: "sim", Template: v1alpha1.NodeTemplate{
			Spec: v1alpha1.NodeTemplateSpec{PodCIDR: "{{ AddCIDR \"10.0.0.0/8\" -1 }}"},
		}},
	}
	_, err = simClient(t).SimV1alpha1().NodePools(ns).Create(t.Context(), np, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("create: %v, want 422", err)
	}
	status := err.(apierrors.APIStatus).Status()
	if status.Details == nil || len(status.Details.Causes) != 1 || status.Details.Causes[0].Field != "spec.template.spec.podCIDR" {
		t.Errorf("causes %+v, want one at spec.template.spec.podCIDR", status.Details)
	}
}

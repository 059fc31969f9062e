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

package mirror

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// sourceMeta is what a source's object carries that is its cluster's.
func sourceMeta(namespace, name string) metav1.ObjectMeta {
	now := metav1.Now()
	return metav1.ObjectMeta{
		Namespace: namespace, Name: name,
		UID: "source-uid", ResourceVersion: "42", Generation: 3, CreationTimestamp: now,
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		Finalizers:    []string{"example.com/keep"},
		Labels:        map[string]string{"app": "web"},
		Annotations:   map[string]string{"team": "a"},
	}
}

// copiedMeta is what is left of sourceMeta.
func copiedMeta(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: namespace, Name: name,
		Labels:      map[string]string{"app": "web"},
		Annotations: map[string]string{"team": "a"},
	}
}

func withOwners(m metav1.ObjectMeta, refs ...metav1.OwnerReference) metav1.ObjectMeta {
	m.OwnerReferences = refs
	return m
}

func owner(kind, name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: ptr.To(true)}
}

func TestTransform(t *testing.T) {
	cpu := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}
	deleting := sourceMeta("team", "p")
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	withResults := sourceMeta("team", "p")
	withResults.Annotations = map[string]string{
		"team":                           "a",
		"sim.x-k8s.io/scheduling-result": "{}",
		"kube-scheduler-simulator.sigs.k8s.io/filter-result": "{}",
		"kube-scheduler-simulator.sigs.k8s.io/selected-node": "n1",
		"sim.x-k8s.io/shadow-node":                           "n2",
	}
	rsOwned := withOwners(sourceMeta("team", "p"), owner("ReplicaSet", "web-1", "source-rs"), owner("Node", "n1", "source-node"))
	ownerUIDs := func(kind, namespace, name string) (types.UID, bool) {
		if kind == "ReplicaSet" && namespace == "team" && name == "web-1" {
			return "inner-rs", true
		}
		return "", false
	}
	tests := []struct {
		name     string
		resource string
		in       Object
		opts     *Options
		want     Object // nil: not copied
	}{
		{
			name:     "bound pod keeps its node, loses its cluster's fields",
			resource: "pods",
			in: &corev1.Pod{ObjectMeta: withOwners(sourceMeta("team", "p"), owner("ReplicaSet", "web-1", "source-rs")),
				Spec: corev1.PodSpec{NodeName: "n1", Priority: ptr.To[int32](1000), PriorityClassName: "high",
					PreemptionPolicy: ptr.To(corev1.PreemptNever), RuntimeClassName: ptr.To("gvisor"), Overhead: cpu,
					EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug"}}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1"}},
			want: &corev1.Pod{ObjectMeta: copiedMeta("team", "p"),
				Spec: corev1.PodSpec{NodeName: "n1", PriorityClassName: "high", RuntimeClassName: ptr.To("gvisor")}},
		},
		{
			name:     "pending pod stays pending",
			resource: "pods",
			in:       &corev1.Pod{ObjectMeta: sourceMeta("team", "p"), Status: corev1.PodStatus{Phase: corev1.PodPending}},
			want:     &corev1.Pod{ObjectMeta: copiedMeta("team", "p")},
		},
		{
			name:     "a scheduler's results go, the user's annotations stay",
			resource: "pods",
			in:       &corev1.Pod{ObjectMeta: withResults},
			want:     &corev1.Pod{ObjectMeta: copiedMeta("team", "p")},
		},
		{
			name:     "succeeded pod is not copied",
			resource: "pods",
			in:       &corev1.Pod{ObjectMeta: sourceMeta("team", "p"), Spec: corev1.PodSpec{NodeName: "n1"}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}},
		},
		{
			name:     "failed pod is not copied",
			resource: "pods",
			in:       &corev1.Pod{ObjectMeta: sourceMeta("team", "p"), Status: corev1.PodStatus{Phase: corev1.PodFailed}},
		},
		{
			name:     "pod being deleted is not copied",
			resource: "pods",
			in:       &corev1.Pod{ObjectMeta: deleting, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		},
		{
			name:     "with workloads, a pod keeps the owner copied already, with its UID inside",
			resource: "pods",
			in:       &corev1.Pod{ObjectMeta: rsOwned},
			opts:     &Options{Workloads: true, OwnerUID: ownerUIDs},
			want:     &corev1.Pod{ObjectMeta: withOwners(copiedMeta("team", "p"), owner("ReplicaSet", "web-1", "inner-rs"))},
		},
		{
			name:     "with workloads, an owner not copied yet goes: it adopts the pod",
			resource: "pods",
			in:       &corev1.Pod{ObjectMeta: withOwners(sourceMeta("team", "p"), owner("ReplicaSet", "web-2", "source-rs"))},
			opts:     &Options{Workloads: true, OwnerUID: ownerUIDs},
			want:     &corev1.Pod{ObjectMeta: copiedMeta("team", "p")},
		},
		{
			name:     "node becomes a kwok node with its status",
			resource: "nodes",
			in: &corev1.Node{ObjectMeta: sourceMeta("", "n1"),
				Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}},
				Status: corev1.NodeStatus{Capacity: cpu, Allocatable: cpu,
					Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
					DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}}}},
			want: &corev1.Node{ObjectMeta: func() metav1.ObjectMeta {
				m := copiedMeta("", "n1")
				m.Annotations["kwok.x-k8s.io/node"] = "fake"
				return m
			}(),
				Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}},
				Status: corev1.NodeStatus{Capacity: cpu, Allocatable: cpu,
					Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}},
		},
		{
			name:     "system namespace is not copied",
			resource: "namespaces",
			in:       &corev1.Namespace{ObjectMeta: sourceMeta("", "kube-system")},
		},
		{
			name:     "namespace loses its finalizers and phase",
			resource: "namespaces",
			in: &corev1.Namespace{ObjectMeta: sourceMeta("", "team"), Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}},
				Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
			want: &corev1.Namespace{ObjectMeta: copiedMeta("", "team")},
		},
		{
			name:     "system priority class is not copied",
			resource: "priorityclasses",
			in:       &schedulingv1.PriorityClass{ObjectMeta: sourceMeta("", "system-node-critical"), Value: 2000001000},
		},
		{
			name:     "priority class is copied",
			resource: "priorityclasses",
			in:       &schedulingv1.PriorityClass{ObjectMeta: sourceMeta("", "high"), Value: 1000},
			want:     &schedulingv1.PriorityClass{ObjectMeta: copiedMeta("", "high"), Value: 1000},
		},
		{
			name:     "volume keeps its claim by name",
			resource: "persistentvolumes",
			in: &corev1.PersistentVolume{ObjectMeta: sourceMeta("", "pv"),
				Spec:   corev1.PersistentVolumeSpec{ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "team", Name: "data", UID: "source-pvc", ResourceVersion: "7"}},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}},
			want: &corev1.PersistentVolume{ObjectMeta: copiedMeta("", "pv"),
				Spec: corev1.PersistentVolumeSpec{ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "team", Name: "data"}}},
		},
		{
			name:     "claim keeps its allocation, not its reservations",
			resource: "resourceclaims",
			in: &resourcev1.ResourceClaim{ObjectMeta: sourceMeta("team", "gpu"),
				Status: resourcev1.ResourceClaimStatus{Allocation: &resourcev1.AllocationResult{},
					ReservedFor: []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "p", UID: "source-pod"}}}},
			want: &resourcev1.ResourceClaim{ObjectMeta: copiedMeta("team", "gpu"),
				Status: resourcev1.ResourceClaimStatus{Allocation: &resourcev1.AllocationResult{}}},
		},
		{
			name:     "replica set keeps its spec, and its deployment if copied",
			resource: "replicasets",
			in: &appsv1.ReplicaSet{ObjectMeta: withOwners(sourceMeta("team", "web-1"), owner("Deployment", "web", "source-deploy")),
				Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](3)}, Status: appsv1.ReplicaSetStatus{Replicas: 3}},
			opts: &Options{Workloads: true, OwnerUID: func(kind, _, _ string) (types.UID, bool) { return "inner-deploy", kind == "Deployment" }},
			want: &appsv1.ReplicaSet{ObjectMeta: withOwners(copiedMeta("team", "web-1"), owner("Deployment", "web", "inner-deploy")),
				Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](3)}},
		},
		{
			name:     "finished job is not copied",
			resource: "jobs",
			in: &batchv1.Job{ObjectMeta: sourceMeta("team", "once"),
				Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}}},
		},
		{
			name:     "running job keeps its selector, as a manual one",
			resource: "jobs",
			in: &batchv1.Job{ObjectMeta: sourceMeta("team", "run"),
				Spec:   batchv1.JobSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "source-uid"}}},
				Status: batchv1.JobStatus{Active: 1}},
			want: &batchv1.Job{ObjectMeta: copiedMeta("team", "run"),
				Spec: batchv1.JobSpec{ManualSelector: ptr.To(true),
					Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "source-uid"}}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := KindOf(tc.resource)
			before := tc.in.DeepCopyObject()
			got, ok := k.Transform(tc.in, tc.opts)
			if d := cmp.Diff(before, tc.in); d != "" {
				t.Errorf("Transform changed its input (-before +after):\n%s", d)
			}
			if tc.want == nil {
				if ok {
					t.Errorf("copied %+v, want it left out", got)
				}
				return
			}
			if !ok {
				t.Fatal("left out, want it copied")
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("copy (-want +got):\n%s", d)
			}
		})
	}
}

func TestKindsInTierOrder(t *testing.T) {
	for i := 1; i < len(Kinds); i++ {
		if Kinds[i].Tier < Kinds[i-1].Tier {
			t.Errorf("%s (tier %d) after %s (tier %d)", Kinds[i].Resource, Kinds[i].Tier, Kinds[i-1].Resource, Kinds[i-1].Tier)
		}
	}
	pods := KindOf("pods")
	for _, tc := range []struct {
		node string
		want int
	}{{"n1", TierPods}, {"", TierPendingPods}} {
		if got := pods.TierOf(&corev1.Pod{Spec: corev1.PodSpec{NodeName: tc.node}}); got != tc.want {
			t.Errorf("tier of a pod on %q = %d, want %d", tc.node, got, tc.want)
		}
	}
	// Pods before their owners, which adopt them; classes and nodes before
	// the Pods that name them.
	for _, before := range []string{"namespaces", "priorityclasses", "runtimeclasses", "nodes", "persistentvolumeclaims"} {
		if KindOf(before).Tier >= TierPods {
			t.Errorf("%s is not written before the pods", before)
		}
	}
	for _, after := range []string{"replicasets", "statefulsets", "daemonsets", "jobs", "deployments"} {
		if KindOf(after).Tier <= TierPendingPods {
			t.Errorf("%s is not written after the pods", after)
		}
	}
}

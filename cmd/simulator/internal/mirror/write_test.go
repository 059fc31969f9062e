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
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

func pod(name, node string, labels, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, Labels: labels, Annotations: annotations},
		Spec: corev1.PodSpec{NodeName: node}}
}

// TestApply: a copy is created, or makes what exists match it; a Pod
// keeps the simulator's annotations, and moves to the source's node.
func TestApply(t *testing.T) {
	result := map[string]string{"sim.x-k8s.io/scheduling-result": "{}", "kube-scheduler-simulator.sigs.k8s.io/selected-node": "n2"}
	team := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}
	cpu := func(v string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v)}
	}
	tests := []struct {
		name     string
		resource string
		existing []runtime.Object
		in       Object
		// want is what the cluster holds after, read back.
		want Object
	}{
		{
			name:     "created",
			resource: "pods",
			existing: []runtime.Object{team},
			in:       pod("p", "n1", map[string]string{"app": "web"}, nil),
			want:     pod("p", "n1", map[string]string{"app": "web"}, nil),
		},
		{
			name:     "created in its namespace, made if missing",
			resource: "pods",
			in:       pod("p", "", nil, nil),
			want:     pod("p", "", nil, nil),
		},
		{
			name:     "existing pod's labels follow, the simulator's result stays, its node too while the source has none",
			resource: "pods",
			existing: []runtime.Object{team, pod("p", "n2", map[string]string{"app": "old"}, result)},
			in:       pod("p", "", map[string]string{"app": "web"}, map[string]string{"team": "a"}),
			want: pod("p", "n2", map[string]string{"app": "web"}, map[string]string{"team": "a",
				"sim.x-k8s.io/scheduling-result": "{}", "kube-scheduler-simulator.sigs.k8s.io/selected-node": "n2"}),
		},
		{
			name:     "existing pod on another node moves to the source's, with its result",
			resource: "pods",
			existing: []runtime.Object{team, pod("p", "n2", nil, result)},
			in:       pod("p", "n1", nil, nil),
			want:     pod("p", "n1", nil, result),
		},
		{
			name:     "existing node's status follows",
			resource: "nodes",
			existing: []runtime.Object{&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{Allocatable: cpu("2")}}},
			in:       &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}}, Status: corev1.NodeStatus{Allocatable: cpu("4")}},
			want:     &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}}, Status: corev1.NodeStatus{Allocatable: cpu("4")}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := fake.NewClientset(tc.existing...)
			// As admission does: no object in a namespace that is not.
			c.PrependReactor("create", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
				ns := action.GetNamespace()
				if ns == "" {
					return false, nil, nil
				}
				if _, err := c.Tracker().Get(corev1.SchemeGroupVersion.WithResource("namespaces"), "", ns); err != nil {
					return true, nil, apierrors.NewNotFound(corev1.Resource("namespaces"), ns)
				}
				return false, nil, nil
			})
			w := &Writer{Client: c}
			k := KindOf(tc.resource)
			if _, err := w.Apply(ctx, k, tc.in); err != nil {
				t.Fatal(err)
			}
			got, err := k.ops.get(ctx, c, tc.in.GetNamespace(), tc.in.GetName())
			if err != nil {
				t.Fatal(err)
			}
			got.SetResourceVersion("")
			got.SetUID("")
			got.SetManagedFields(nil)
			got.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("object after Apply (-want +got):\n%s", d)
			}
		})
	}
}

func TestRecreatePodAnnotates(t *testing.T) {
	ctx := context.Background()
	existing := pod("p", "n2", nil, map[string]string{"sim.x-k8s.io/scheduling-result": "{}", "team": "old"})
	want := map[string]string{"team": "a", "sim.x-k8s.io/scheduling-result": "{}", "sim.x-k8s.io/shadow-node": "n2"}
	for _, tc := range []struct {
		name     string
		existing *corev1.Pod
	}{
		{name: "existing replaced", existing: existing},
		// A retry after the delete: the Pod is made with what was decided.
		{name: "gone already", existing: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientset()
			if tc.existing != nil {
				c = fake.NewClientset(tc.existing)
			}
			w := &Writer{Client: c}
			annotations := SimulatorAnnotations(existing)
			annotations["sim.x-k8s.io/shadow-node"] = "n2"
			out, err := w.RecreatePod(ctx, tc.existing, pod("p", "n1", nil, map[string]string{"team": "a"}), annotations)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, out.Annotations); d != "" || out.Spec.NodeName != "n1" {
				t.Errorf("recreated pod on %q, annotations (-want +got):\n%s", out.Spec.NodeName, d)
			}
		})
	}
}

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

package etcdstore

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

func TestKey(t *testing.T) {
	for _, tc := range []struct{ resource, namespace, name, want string }{
		{"pods", "default", "web-1", "/registry/pods/default/web-1"},
		{"nodes", "", "node-1", "/registry/minions/node-1"},
		{"services", "default", "web", "/registry/services/specs/default/web"},
		{"clusterroles", "", "admin", "/registry/clusterroles/admin"},
	} {
		if got := Key("/registry", tc.resource, tc.namespace, tc.name); got != tc.want {
			t.Errorf("Key(%s, %s, %s) = %s, want %s", tc.resource, tc.namespace, tc.name, got, tc.want)
		}
	}
}

// TestEncode: a Pod and a Node, with or without their kind, are stored as
// kube's protobuf ("k8s\x00" and the kind) and decode to themselves; an
// object with a resourceVersion is refused.
func TestEncode(t *testing.T) {
	now := metav1.Unix(1796000000, 0)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "default", UID: "u1", CreationTimestamp: now, Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "i", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")},
		}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "u2", CreationTimestamp: now},
		Status:     corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}},
	}
	decoder := protobuf.NewSerializer(scheme, scheme)
	for _, obj := range []runtime.Object{pod, node} {
		value, err := Encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(value, []byte("k8s\x00")) {
			t.Errorf("%T: not kube's protobuf encoding", obj)
		}
		got, gvk, err := decoder.Decode(value, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if gvk.GroupVersion() != corev1.SchemeGroupVersion {
			t.Errorf("%T stored as %s", obj, gvk)
		}
		want := obj.DeepCopyObject()
		gvks, _, _ := scheme.ObjectKinds(want)
		want.GetObjectKind().SetGroupVersionKind(gvks[0])
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%T decoded differs (-want +got):\n%s", obj, diff)
		}
	}
	if pod.Kind != "" {
		t.Errorf("Encode set the caller's kind")
	}
	pod.ResourceVersion = "7"
	if _, err := Encode(pod); err == nil {
		t.Errorf("a Pod with a resourceVersion was encoded")
	}
}

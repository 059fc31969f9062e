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

package nodepool

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// poolTemplate renders Nodes with template labels and annotations, as a
// user's pool does.
func poolTemplate(t *testing.T) *NodeBuilder {
	t.Helper()
	capacity := corev1.ResourceList{"cpu": resource.MustParse("4"), "nvidia.com/gpu": resource.MustParse("2")}
	n, err := NewNodeBuilder("pool", &v1alpha1.NodeTemplate{
		Metadata: v1alpha1.NodeTemplateMetadata{
			Labels:      map[string]string{"zone": "z-{{ mod .Index 3 }}", "kubernetes.io/os": "plan9"},
			Annotations: map[string]string{"note": "{{ .Pool }}/{{ .Name }}"},
		},
		Spec: v1alpha1.NodeTemplateSpec{
			Taints:     []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}},
			PodCIDR:    `{{ AddCIDR "10.0.0.0/24" .Index }}`,
			ProviderID: "sim://{{ .Name }}",
		},
		Status: v1alpha1.NodeTemplateStatus{Capacity: capacity, Allocatable: capacity, NodeInfo: corev1.NodeSystemInfo{Architecture: "arm64"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// live is a pool's Node as the inner apiserver holds it: as made, then
// with what kwok, the apiserver and users add.
func live(t *testing.T, b *NodeBuilder, index int) *corev1.Node {
	t.Helper()
	n, err := b.Render(index)
	if err != nil {
		t.Fatal(err)
	}
	bornReady(n, metav1.Now())
	n.UID, n.ResourceVersion = "uid-1", "42"
	n.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: FieldManager, Operation: metav1.ManagedFieldsOperationUpdate}}
	n.Labels["users-label"] = "x"
	n.Annotations["users-annotation"] = strings.Repeat("a", 200<<10)
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}}
	n.Status.Images = []corev1.ContainerImage{{Names: []string{strings.Repeat("i", 1<<10)}, SizeBytes: 1}}
	return n
}

func TestComparedKeepsWhatTheReconcilerReads(t *testing.T) {
	b := poolTemplate(t)
	n := live(t, b, 4)
	obj, err := compared(n)
	if err != nil {
		t.Fatal(err)
	}
	kept := obj.(*corev1.Node)
	if size := kept.Size(); size > 2<<10 {
		t.Errorf("a pool Node kept in the cache takes %d bytes, want at most 2 KiB (as received: %d)", size, n.Size())
	}
	if _, ok := kept.Annotations["users-annotation"]; ok || kept.Labels["users-label"] != "" || kept.ManagedFields != nil || kept.Status.Images != nil || kept.Status.Addresses != nil {
		t.Errorf("the kept Node has what no one reads: %+v", kept.ObjectMeta)
	}
	if kept.Name != n.Name || kept.UID != n.UID || kept.ResourceVersion != n.ResourceVersion || !ready(kept) {
		t.Errorf("the kept Node lost its identity or readiness: %+v", kept)
	}
	// Every key Render writes is kept: a Node as its template makes it
	// needs no write, so the reconciler does not patch it at each sync.
	want, err := b.Render(4)
	if err != nil {
		t.Fatal(err)
	}
	if c := diff(kept, want); !c.none() {
		t.Errorf("a Node as its template makes it, once cached, differs from it: meta %s status %s recreate %v", c.meta, c.status, c.recreate)
	}
}

// TestComparedHidesNoDrift: every drift the reconciler repairs is seen as
// well on the cached Node as on the whole one.
func TestComparedHidesNoDrift(t *testing.T) {
	b := poolTemplate(t)
	for name, edit := range map[string]func(n *corev1.Node){
		"template label edited":      func(n *corev1.Node) { n.Labels["zone"] = "elsewhere" },
		"template label removed":     func(n *corev1.Node) { delete(n.Labels, "zone") },
		"hostname label edited":      func(n *corev1.Node) { n.Labels["kubernetes.io/hostname"] = "other" },
		"pool mark removed":          func(n *corev1.Node) { delete(n.Labels, LabelType) },
		"kwok mark removed":          func(n *corev1.Node) { delete(n.Annotations, AnnotationKwokNode) },
		"template annotation edited": func(n *corev1.Node) { n.Annotations["note"] = "edited" },
		"key list edited":            func(n *corev1.Node) { n.Annotations[AnnotationTemplateLabels] = "zone" },
		"a key the template dropped": func(n *corev1.Node) { n.Labels["gone"] = "x"; n.Annotations[AnnotationTemplateLabels] += ",gone" },
		"an annotation the template had": func(n *corev1.Node) {
			n.Annotations["old"] = "x"
			n.Annotations[AnnotationTemplateAnnotations] += ",old"
		},
		"taints":        func(n *corev1.Node) { n.Spec.Taints = nil },
		"unschedulable": func(n *corev1.Node) { n.Spec.Unschedulable = true },
		"capacity":      func(n *corev1.Node) { n.Status.Capacity["example.com/extra"] = resource.MustParse("1") },
		"allocatable":   func(n *corev1.Node) { n.Status.Allocatable["cpu"] = resource.MustParse("1") },
		"nodeInfo":      func(n *corev1.Node) { n.Status.NodeInfo.Architecture = "amd64" },
		"podCIDR":       func(n *corev1.Node) { n.Spec.PodCIDR = "10.9.9.0/24" },
		"providerID":    func(n *corev1.Node) { n.Spec.ProviderID = "other://" },
		"not ready": func(n *corev1.Node) {
			n.Status.Conditions[0].Status = corev1.ConditionFalse
		},
	} {
		t.Run(name, func(t *testing.T) {
			n := live(t, b, 4)
			edit(n)
			want, err := b.Render(4)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := compared(n)
			if err != nil {
				t.Fatal(err)
			}
			kept := obj.(*corev1.Node)
			whole, cached := diff(n, want), diff(kept, want)
			if string(whole.meta) != string(cached.meta) || string(whole.status) != string(cached.status) || whole.recreate != cached.recreate {
				t.Errorf("diff of the whole Node: meta %s status %s recreate %v; of the cached one: meta %s status %s recreate %v",
					whole.meta, whole.status, whole.recreate, cached.meta, cached.status, cached.recreate)
			}
			if ready(n) != ready(kept) {
				t.Errorf("ready: %v whole, %v cached", ready(n), ready(kept))
			}
		})
	}
}

// TestNodeCacheIsTransformed: the cache a simulator's Nodes are watched
// with holds them as compared keeps them.
func TestNodeCacheIsTransformed(t *testing.T) {
	n := live(t, poolTemplate(t), 0)
	client := kubefake.NewClientset(n)
	factory, inf, err := nodeInformer(client)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the Node cache did not sync")
	}
	objs, err := inf.GetIndexer().ByIndex(byPool, "pool")
	if err != nil || len(objs) != 1 {
		t.Fatalf("the pool's Nodes in the cache: %d, %v; want 1", len(objs), err)
	}
	if got := objs[0].(*corev1.Node); got.Annotations["users-annotation"] != "" || got.ManagedFields != nil {
		t.Errorf("the cache holds a pool Node whole (%d bytes)", got.Size())
	}
}

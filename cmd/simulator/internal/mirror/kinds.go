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

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Object is a Kubernetes object of a known kind.
type Object interface {
	runtime.Object
	metav1.Object
}

// Kind is one kind the mirror copies: how to read it (a typed REST client,
// so it travels as protobuf), transform it, and write it.
type Kind struct {
	// Resource is the plural resource, as in SourceStatus.Objects.
	Resource string
	// Kind is its kind, as owner references name it.
	Kind         string
	GroupVersion schema.GroupVersion
	Namespaced   bool
	// Tier orders the first copy: a kind is written after every kind of a
	// lower tier, so that what it refers to (its namespace, class, node,
	// owner) exists, or, for workloads, so that their Pods exist first.
	Tier int
	// Workload kinds are copied only with Options.Workloads.
	Workload bool
	// RESTClient reads the kind in a cluster.
	RESTClient func(kubernetes.Interface) rest.Interface
	// New returns an empty object of the kind.
	New func() Object

	transform func(Object, *Options) bool
	ops       ops
}

// ops writes a kind into a cluster.
type ops struct {
	create func(context.Context, kubernetes.Interface, Object) (Object, error)
	update func(context.Context, kubernetes.Interface, Object) (Object, error)
	get    func(context.Context, kubernetes.Interface, string, string) (Object, error)
	delete func(context.Context, kubernetes.Interface, string, string, metav1.DeleteOptions) error
	// updateStatus is set for the kinds whose status the copy keeps and
	// their main resource ignores.
	updateStatus func(context.Context, kubernetes.Interface, Object) (Object, error)
}

// Transform returns the copy of obj to write inside, and false if obj is
// not copied. obj is not changed.
func (k *Kind) Transform(obj Object, o *Options) (Object, bool) {
	out := obj.DeepCopyObject().(Object)
	if !k.transform(out, o) {
		return nil, false
	}
	return out, true
}

// client is what the typed clients of client-go have in common.
type client[PT Object] interface {
	Create(context.Context, PT, metav1.CreateOptions) (PT, error)
	Update(context.Context, PT, metav1.UpdateOptions) (PT, error)
	Get(context.Context, string, metav1.GetOptions) (PT, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}

type statusClient[PT Object] interface {
	UpdateStatus(context.Context, PT, metav1.UpdateOptions) (PT, error)
}

// define makes a Kind of a typed client: c returns it for a namespace
// (ignored for cluster-scoped kinds).
func define[T any, PT interface {
	*T
	Object
}](k Kind, c func(kubernetes.Interface, string) client[PT], transform func(PT, *Options) bool) Kind {
	k.New = func() Object { return PT(new(T)) }
	k.transform = func(o Object, opts *Options) bool { return transform(o.(PT), opts) }
	k.ops = ops{
		create: func(ctx context.Context, cs kubernetes.Interface, o Object) (Object, error) {
			return c(cs, o.GetNamespace()).Create(ctx, o.(PT), metav1.CreateOptions{})
		},
		update: func(ctx context.Context, cs kubernetes.Interface, o Object) (Object, error) {
			return c(cs, o.GetNamespace()).Update(ctx, o.(PT), metav1.UpdateOptions{})
		},
		get: func(ctx context.Context, cs kubernetes.Interface, namespace, name string) (Object, error) {
			return c(cs, namespace).Get(ctx, name, metav1.GetOptions{})
		},
		delete: func(ctx context.Context, cs kubernetes.Interface, namespace, name string, opts metav1.DeleteOptions) error {
			return c(cs, namespace).Delete(ctx, name, opts)
		},
	}
	return k
}

// withStatus makes the copy's status written too, by the status
// subresource, when the main resource ignores it.
func withStatus[PT Object](k Kind, c func(kubernetes.Interface, string) statusClient[PT]) Kind {
	k.ops.updateStatus = func(ctx context.Context, cs kubernetes.Interface, o Object) (Object, error) {
		return c(cs, o.GetNamespace()).UpdateStatus(ctx, o.(PT), metav1.UpdateOptions{})
	}
	return k
}

var (
	coreV1       = func(c kubernetes.Interface) rest.Interface { return c.CoreV1().RESTClient() }
	storageV1    = func(c kubernetes.Interface) rest.Interface { return c.StorageV1().RESTClient() }
	schedulingV1 = func(c kubernetes.Interface) rest.Interface { return c.SchedulingV1().RESTClient() }
	policyV1     = func(c kubernetes.Interface) rest.Interface { return c.PolicyV1().RESTClient() }
	nodeV1       = func(c kubernetes.Interface) rest.Interface { return c.NodeV1().RESTClient() }
	resourceV1   = func(c kubernetes.Interface) rest.Interface { return c.ResourceV1().RESTClient() }
	appsV1       = func(c kubernetes.Interface) rest.Interface { return c.AppsV1().RESTClient() }
	batchV1      = func(c kubernetes.Interface) rest.Interface { return c.BatchV1().RESTClient() }
)

// Tiers of the first copy.
const (
	// Classes and namespaces: what admission looks up when a Pod or a
	// claim is created.
	TierClasses = iota
	// Nodes and volumes.
	TierNodes
	// What refers to nodes and classes.
	TierNodeObjects
	// Pods: bound ones first, pending ones last (see PodTier), so that the
	// scheduler places those in the whole cluster.
	TierPods
	TierPendingPods
	// Workload controllers after their Pods, which they adopt rather than
	// make again; Deployments after their ReplicaSets.
	TierControllers
	TierDeployments
)

// Kinds are the kinds the mirror copies, in tier order.
var Kinds = []Kind{
	define(Kind{Resource: "namespaces", Kind: "Namespace", GroupVersion: corev1.SchemeGroupVersion, Tier: TierClasses, RESTClient: coreV1},
		func(c kubernetes.Interface, _ string) client[*corev1.Namespace] { return c.CoreV1().Namespaces() }, Namespace),
	define(Kind{Resource: "priorityclasses", Kind: "PriorityClass", GroupVersion: schedulingv1.SchemeGroupVersion, Tier: TierClasses, RESTClient: schedulingV1},
		func(c kubernetes.Interface, _ string) client[*schedulingv1.PriorityClass] {
			return c.SchedulingV1().PriorityClasses()
		}, PriorityClass),
	define(Kind{Resource: "storageclasses", Kind: "StorageClass", GroupVersion: storagev1.SchemeGroupVersion, Tier: TierClasses, RESTClient: storageV1},
		func(c kubernetes.Interface, _ string) client[*storagev1.StorageClass] {
			return c.StorageV1().StorageClasses()
		}, StorageClass),
	define(Kind{Resource: "runtimeclasses", Kind: "RuntimeClass", GroupVersion: nodev1.SchemeGroupVersion, Tier: TierClasses, RESTClient: nodeV1},
		func(c kubernetes.Interface, _ string) client[*nodev1.RuntimeClass] {
			return c.NodeV1().RuntimeClasses()
		}, RuntimeClass),
	define(Kind{Resource: "deviceclasses", Kind: "DeviceClass", GroupVersion: resourcev1.SchemeGroupVersion, Tier: TierClasses, RESTClient: resourceV1},
		func(c kubernetes.Interface, _ string) client[*resourcev1.DeviceClass] {
			return c.ResourceV1().DeviceClasses()
		}, DeviceClass),

	withStatus(define(Kind{Resource: "nodes", Kind: "Node", GroupVersion: corev1.SchemeGroupVersion, Tier: TierNodes, RESTClient: coreV1},
		func(c kubernetes.Interface, _ string) client[*corev1.Node] { return c.CoreV1().Nodes() }, Node),
		func(c kubernetes.Interface, _ string) statusClient[*corev1.Node] { return c.CoreV1().Nodes() }),
	define(Kind{Resource: "persistentvolumes", Kind: "PersistentVolume", GroupVersion: corev1.SchemeGroupVersion, Tier: TierNodes, RESTClient: coreV1},
		func(c kubernetes.Interface, _ string) client[*corev1.PersistentVolume] {
			return c.CoreV1().PersistentVolumes()
		}, PersistentVolume),

	define(Kind{Resource: "csinodes", Kind: "CSINode", GroupVersion: storagev1.SchemeGroupVersion, Tier: TierNodeObjects, RESTClient: storageV1},
		func(c kubernetes.Interface, _ string) client[*storagev1.CSINode] { return c.StorageV1().CSINodes() }, CSINode),
	define(Kind{Resource: "resourceslices", Kind: "ResourceSlice", GroupVersion: resourcev1.SchemeGroupVersion, Tier: TierNodeObjects, RESTClient: resourceV1},
		func(c kubernetes.Interface, _ string) client[*resourcev1.ResourceSlice] {
			return c.ResourceV1().ResourceSlices()
		}, ResourceSlice),
	define(Kind{Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", GroupVersion: corev1.SchemeGroupVersion, Namespaced: true, Tier: TierNodeObjects, RESTClient: coreV1},
		func(c kubernetes.Interface, ns string) client[*corev1.PersistentVolumeClaim] {
			return c.CoreV1().PersistentVolumeClaims(ns)
		}, PersistentVolumeClaim),
	withStatus(define(Kind{Resource: "resourceclaims", Kind: "ResourceClaim", GroupVersion: resourcev1.SchemeGroupVersion, Namespaced: true, Tier: TierNodeObjects, RESTClient: resourceV1},
		func(c kubernetes.Interface, ns string) client[*resourcev1.ResourceClaim] {
			return c.ResourceV1().ResourceClaims(ns)
		}, ResourceClaim),
		func(c kubernetes.Interface, ns string) statusClient[*resourcev1.ResourceClaim] {
			return c.ResourceV1().ResourceClaims(ns)
		}),
	define(Kind{Resource: "poddisruptionbudgets", Kind: "PodDisruptionBudget", GroupVersion: policyv1.SchemeGroupVersion, Namespaced: true, Tier: TierNodeObjects, RESTClient: policyV1},
		func(c kubernetes.Interface, ns string) client[*policyv1.PodDisruptionBudget] {
			return c.PolicyV1().PodDisruptionBudgets(ns)
		}, PodDisruptionBudget),

	define(Kind{Resource: "pods", Kind: "Pod", GroupVersion: corev1.SchemeGroupVersion, Namespaced: true, Tier: TierPods, RESTClient: coreV1},
		func(c kubernetes.Interface, ns string) client[*corev1.Pod] { return c.CoreV1().Pods(ns) }, Pod),

	define(Kind{Resource: "replicasets", Kind: "ReplicaSet", GroupVersion: appsv1.SchemeGroupVersion, Namespaced: true, Tier: TierControllers, Workload: true, RESTClient: appsV1},
		func(c kubernetes.Interface, ns string) client[*appsv1.ReplicaSet] { return c.AppsV1().ReplicaSets(ns) }, ReplicaSet),
	define(Kind{Resource: "statefulsets", Kind: "StatefulSet", GroupVersion: appsv1.SchemeGroupVersion, Namespaced: true, Tier: TierControllers, Workload: true, RESTClient: appsV1},
		func(c kubernetes.Interface, ns string) client[*appsv1.StatefulSet] {
			return c.AppsV1().StatefulSets(ns)
		}, StatefulSet),
	define(Kind{Resource: "daemonsets", Kind: "DaemonSet", GroupVersion: appsv1.SchemeGroupVersion, Namespaced: true, Tier: TierControllers, Workload: true, RESTClient: appsV1},
		func(c kubernetes.Interface, ns string) client[*appsv1.DaemonSet] { return c.AppsV1().DaemonSets(ns) }, DaemonSet),
	define(Kind{Resource: "jobs", Kind: "Job", GroupVersion: batchv1.SchemeGroupVersion, Namespaced: true, Tier: TierControllers, Workload: true, RESTClient: batchV1},
		func(c kubernetes.Interface, ns string) client[*batchv1.Job] { return c.BatchV1().Jobs(ns) }, Job),
	define(Kind{Resource: "deployments", Kind: "Deployment", GroupVersion: appsv1.SchemeGroupVersion, Namespaced: true, Tier: TierDeployments, Workload: true, RESTClient: appsV1},
		func(c kubernetes.Interface, ns string) client[*appsv1.Deployment] { return c.AppsV1().Deployments(ns) }, Deployment),
}

// KindOf returns the Kind of a resource, nil if the mirror does not copy it.
func KindOf(resource string) *Kind {
	for i := range Kinds {
		if Kinds[i].Resource == resource {
			return &Kinds[i]
		}
	}
	return nil
}

// Tier is the tier obj is written in by the first copy: that of its kind,
// but for pending Pods.
func (k *Kind) TierOf(obj Object) int {
	if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName == "" {
		return TierPendingPods
	}
	return k.Tier
}

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

// Package mirror copies objects of another cluster into the simulator's:
// one transform per kind (what of an object belongs to its cluster and must
// go, what the simulator must add), and the writes that make the inner
// cluster hold it, idempotently. A source (spec.source) and a snapshot
// import both copy objects in.
package mirror

import (
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/controlplane"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/reset"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// Options are what a transform needs to know beyond the object.
type Options struct {
	// Workloads: the workload controllers are copied too, so the owner
	// references that name one of them are kept (with the copy's UID);
	// other owner references always go.
	Workloads bool
	// OwnerUID returns the UID, in the inner cluster, of the copy of the
	// object of the given kind, namespace and name, if it exists yet.
	OwnerUID func(kind, namespace, name string) (types.UID, bool)
}

// workloadKinds are the owners whose references a copied object keeps
// when the workloads are copied too.
var workloadKinds = map[string]bool{"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true, "Job": true}

// cleanMeta clears what belongs to the cluster the object comes from: its
// identity, versions and timestamps, the fields its apiserver and
// controllers manage, finalizers (nothing inside would remove them), and
// owner references (their UIDs mean nothing inside) but those Options keeps.
func cleanMeta(m *metav1.ObjectMeta, o *Options) {
	owners := m.OwnerReferences
	*m = metav1.ObjectMeta{
		Name: m.Name, GenerateName: m.GenerateName, Namespace: m.Namespace,
		Labels: m.Labels, Annotations: m.Annotations,
	}
	if o == nil || !o.Workloads || o.OwnerUID == nil {
		return
	}
	for _, ref := range owners {
		if !workloadKinds[ref.Kind] {
			continue
		}
		// An owner not copied yet adopts the object when it is: its
		// controller claims the orphans its selector matches.
		if uid, ok := o.OwnerUID(ref.Kind, m.Namespace, ref.Name); ok {
			ref.UID = uid
			m.OwnerReferences = append(m.OwnerReferences, ref)
		}
	}
}

// IsSimulatorAnnotation says whether an annotation is the simulator's own
// on a Pod: its scheduler's result and the shadow comparison. A copy drops
// those of the source (another simulator's, or stale); a Pod the mirror
// recreates keeps those of the simulator.
func IsSimulatorAnnotation(key string) bool {
	return schedulingresult.IsAnnotation(key) || key == contract.AnnotationShadowNode || key == contract.AnnotationShadowAgreement
}

func dropSimulatorAnnotations(m *metav1.ObjectMeta) {
	for k := range m.Annotations {
		if IsSimulatorAnnotation(k) {
			delete(m.Annotations, k)
		}
	}
	if len(m.Annotations) == 0 {
		m.Annotations = nil
	}
}

// Namespace copies a namespace, but those every cluster makes itself.
func Namespace(ns *corev1.Namespace, o *Options) bool {
	if reset.SystemNamespaces[ns.Name] {
		return false
	}
	cleanMeta(&ns.ObjectMeta, o)
	ns.Spec, ns.Status = corev1.NamespaceSpec{}, corev1.NamespaceStatus{}
	return true
}

// Node becomes a kwok Node: it keeps its labels, taints, capacity,
// allocatable, conditions and images (all that the scheduler reads); kwok
// then plays its Pods. Status is kept: a Node takes it on create.
func Node(n *corev1.Node, o *Options) bool {
	cleanMeta(&n.ObjectMeta, o)
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Annotations[controlplane.FakeNodeAnnotation] = "fake"
	// The source's kubelet, not kwok, filled these: kwok fills its own.
	n.Status.Config = nil
	n.Status.DaemonEndpoints = corev1.NodeDaemonEndpoints{}
	return true
}

// Pod copies a Pod that still runs or waits: a finished one, or one being
// deleted, holds nothing a scheduler counts. A bound Pod keeps its node; a
// pending one is scheduled inside. Its priority and overhead go, so that
// admission computes them again from the classes copied in (it refuses a
// Pod whose figures are not the ones it would compute); the scheduling
// results of the source's simulator, if it was one, go too.
func Pod(p *corev1.Pod, o *Options) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	cleanMeta(&p.ObjectMeta, o)
	dropSimulatorAnnotations(&p.ObjectMeta)
	p.Spec.Priority = nil
	p.Spec.PreemptionPolicy = nil
	if p.Spec.RuntimeClassName != nil {
		p.Spec.Overhead = nil
	}
	// Only the ephemeral containers subresource may add them.
	p.Spec.EphemeralContainers = nil
	p.Status = corev1.PodStatus{}
	return true
}

// PersistentVolume keeps its claim by name: the claim's UID is new inside,
// and the binder binds them again.
func PersistentVolume(pv *corev1.PersistentVolume, o *Options) bool {
	cleanMeta(&pv.ObjectMeta, o)
	if ref := pv.Spec.ClaimRef; ref != nil {
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: ref.Kind, APIVersion: ref.APIVersion, Namespace: ref.Namespace, Name: ref.Name}
	}
	pv.Status = corev1.PersistentVolumeStatus{}
	return true
}

// PersistentVolumeClaim keeps its volume by name; the binder sets its status.
func PersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim, o *Options) bool {
	if pvc.DeletionTimestamp != nil {
		return false
	}
	cleanMeta(&pvc.ObjectMeta, o)
	pvc.Status = corev1.PersistentVolumeClaimStatus{}
	return true
}

// StorageClass is copied as it is.
func StorageClass(sc *storagev1.StorageClass, o *Options) bool {
	cleanMeta(&sc.ObjectMeta, o)
	return true
}

// CSINode is copied as it is (its owner, the Node, goes).
func CSINode(n *storagev1.CSINode, o *Options) bool {
	cleanMeta(&n.ObjectMeta, o)
	return true
}

// PriorityClass is copied, but the system-* ones every apiserver makes.
func PriorityClass(pc *schedulingv1.PriorityClass, o *Options) bool {
	if strings.HasPrefix(pc.Name, "system-") {
		return false
	}
	cleanMeta(&pc.ObjectMeta, o)
	return true
}

// PodDisruptionBudget is copied; the disruption controller computes its
// status again, from the Pods inside.
func PodDisruptionBudget(pdb *policyv1.PodDisruptionBudget, o *Options) bool {
	cleanMeta(&pdb.ObjectMeta, o)
	pdb.Status = policyv1.PodDisruptionBudgetStatus{}
	return true
}

// RuntimeClass is copied as it is.
func RuntimeClass(rc *nodev1.RuntimeClass, o *Options) bool {
	cleanMeta(&rc.ObjectMeta, o)
	return true
}

// ResourceSlice is copied as it is (its owner, the Node or the driver,
// goes).
func ResourceSlice(s *resourcev1.ResourceSlice, o *Options) bool {
	cleanMeta(&s.ObjectMeta, o)
	return true
}

// DeviceClass is copied as it is.
func DeviceClass(c *resourcev1.DeviceClass, o *Options) bool {
	cleanMeta(&c.ObjectMeta, o)
	return true
}

// ResourceClaim keeps its allocation, so that the devices it holds count
// as taken inside; its reservations name the source's Pod UIDs, and go.
func ResourceClaim(c *resourcev1.ResourceClaim, o *Options) bool {
	if c.DeletionTimestamp != nil {
		return false
	}
	cleanMeta(&c.ObjectMeta, o)
	c.Status.ReservedFor = nil
	c.Status.Devices = nil
	return true
}

// Deployment is copied without its status, which its controller computes.
func Deployment(d *appsv1.Deployment, o *Options) bool {
	cleanMeta(&d.ObjectMeta, o)
	d.Status = appsv1.DeploymentStatus{}
	return true
}

// ReplicaSet is copied without its status.
func ReplicaSet(rs *appsv1.ReplicaSet, o *Options) bool {
	cleanMeta(&rs.ObjectMeta, o)
	rs.Status = appsv1.ReplicaSetStatus{}
	return true
}

// StatefulSet is copied without its status.
func StatefulSet(s *appsv1.StatefulSet, o *Options) bool {
	cleanMeta(&s.ObjectMeta, o)
	s.Status = appsv1.StatefulSetStatus{}
	return true
}

// DaemonSet is copied without its status.
func DaemonSet(ds *appsv1.DaemonSet, o *Options) bool {
	cleanMeta(&ds.ObjectMeta, o)
	ds.Status = appsv1.DaemonSetStatus{}
	return true
}

// Job is copied while it runs: a finished one holds no Pod, and without
// its status the controller inside would run it again. Its selector is the
// source's (the generated one names the source's UID, as its Pods' labels
// do), kept as a manual one.
func Job(j *batchv1.Job, o *Options) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return false
		}
	}
	cleanMeta(&j.ObjectMeta, o)
	if j.Spec.Selector != nil {
		j.Spec.ManualSelector = ptr.To(true)
	}
	j.Status = batchv1.JobStatus{}
	return true
}

// Stored returns c, a copy from Transform of src, as kube-apiserver would
// store it had it been created through its API, for a write straight into
// its etcd (see etcdstore), with uid and created as its identity; false
// for a kind not written so. What admission and the create strategy would
// have set comes from src, which an apiserver filled the same way: a Pod
// keeps its priority, preemption policy and overhead (computed there from
// the classes copied in), and a bound Pod its status, so that kwok does
// not play its start again; a pending Pod starts Pending, as a create
// leaves it. A Node has its status already.
func Stored(src, c Object, uid types.UID, created time.Time) (Object, bool) {
	var out Object
	switch c := c.(type) {
	case *corev1.Node:
		out = c.DeepCopy()
	case *corev1.Pod:
		s := src.(*corev1.Pod)
		p := c.DeepCopy()
		p.Spec.Priority, p.Spec.PreemptionPolicy = s.Spec.Priority, s.Spec.PreemptionPolicy
		p.Spec.Overhead = s.Spec.Overhead
		p.Generation = 1
		if p.Spec.NodeName != "" {
			p.Status = *s.Status.DeepCopy()
		} else {
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: s.Status.QOSClass}
			if len(p.Spec.SchedulingGates) > 0 {
				p.Status.Conditions = []corev1.PodCondition{{
					Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated,
					Message: "Scheduling is blocked due to non-empty scheduling gates",
				}}
			}
		}
		out = p
	default:
		return nil, false
	}
	out.SetUID(uid)
	out.SetCreationTimestamp(metav1.NewTime(created))
	return out, true
}

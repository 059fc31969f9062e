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

// Package snapshot exports a simulator's scenario (the objects that decide
// scheduling, and the scheduler configuration) and imports it into
// another, in kube-scheduler-simulator's shape, so that a scenario can be
// saved, shared and replayed.
package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/reset"
)

// Snapshot is kube-scheduler-simulator's export shape.
type Snapshot struct {
	Pods            []corev1.Pod                   `json:"pods"`
	Nodes           []corev1.Node                  `json:"nodes"`
	PVs             []corev1.PersistentVolume      `json:"pvs"`
	PVCs            []corev1.PersistentVolumeClaim `json:"pvcs"`
	StorageClasses  []storagev1.StorageClass       `json:"storageClasses"`
	PriorityClasses []schedulingv1.PriorityClass   `json:"priorityClasses"`
	Namespaces      []corev1.Namespace             `json:"namespaces"`
	// SchedulerConfig is the KubeSchedulerConfiguration in effect.
	SchedulerConfig json.RawMessage `json:"schedulerConfig,omitempty"`
}

// Result counts what an import created, and what already existed.
type Result struct {
	Created  map[string]int `json:"created"`
	Existing map[string]int `json:"existing,omitempty"`
}

// Export reads the scenario of the cluster c serves.
func Export(ctx context.Context, c kubernetes.Interface) (*Snapshot, error) {
	s := &Snapshot{}
	all := metav1.ListOptions{}
	var errs []error
	collect := func(kind string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("listing %s: %w", kind, err))
		}
	}
	pods, err := c.CoreV1().Pods("").List(ctx, all)
	collect("pods", err)
	nodes, err := c.CoreV1().Nodes().List(ctx, all)
	collect("nodes", err)
	pvs, err := c.CoreV1().PersistentVolumes().List(ctx, all)
	collect("persistentvolumes", err)
	pvcs, err := c.CoreV1().PersistentVolumeClaims("").List(ctx, all)
	collect("persistentvolumeclaims", err)
	scs, err := c.StorageV1().StorageClasses().List(ctx, all)
	collect("storageclasses", err)
	pcs, err := c.SchedulingV1().PriorityClasses().List(ctx, all)
	collect("priorityclasses", err)
	nss, err := c.CoreV1().Namespaces().List(ctx, all)
	collect("namespaces", err)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.Pods, s.Nodes, s.PVs, s.PVCs = pods.Items, nodes.Items, pvs.Items, pvcs.Items
	s.StorageClasses, s.Namespaces = scs.Items, nss.Items
	for _, pc := range pcs.Items {
		// The apiserver makes system-* itself, in every cluster.
		if !strings.HasPrefix(pc.Name, "system-") {
			s.PriorityClasses = append(s.PriorityClasses, pc)
		}
	}
	return s, nil
}

// fresh clears what belongs to the exporting cluster: identity, versions,
// owners (their UIDs mean nothing here), and the fields the apiserver sets.
func fresh(m *metav1.ObjectMeta) {
	*m = metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, Labels: m.Labels, Annotations: m.Annotations,
		Finalizers: m.Finalizers,
	}
}

// Import creates the scenario's objects in the cluster c serves, in
// dependency order. Objects are recreated without their UIDs and resource
// versions; Pods keep spec.nodeName, so bound Pods stay bound. Objects
// that exist are left as they are.
func Import(ctx context.Context, c kubernetes.Interface, s *Snapshot) (Result, error) {
	res := Result{Created: map[string]int{}, Existing: map[string]int{}}
	var errs []error
	create := func(kind string, err error) {
		switch {
		case err == nil:
			res.Created[kind]++
		case apierrors.IsAlreadyExists(err):
			res.Existing[kind]++
		default:
			errs = append(errs, fmt.Errorf("%s: %w", kind, err))
		}
	}
	opts := metav1.CreateOptions{}
	for _, o := range s.Namespaces {
		if reset.SystemNamespaces[o.Name] {
			continue
		}
		fresh(&o.ObjectMeta)
		o.Spec, o.Status = corev1.NamespaceSpec{}, corev1.NamespaceStatus{}
		_, err := c.CoreV1().Namespaces().Create(ctx, &o, opts)
		create("namespaces", err)
	}
	for _, o := range s.PriorityClasses {
		fresh(&o.ObjectMeta)
		_, err := c.SchedulingV1().PriorityClasses().Create(ctx, &o, opts)
		create("priorityClasses", err)
	}
	for _, o := range s.StorageClasses {
		fresh(&o.ObjectMeta)
		_, err := c.StorageV1().StorageClasses().Create(ctx, &o, opts)
		create("storageClasses", err)
	}
	for _, o := range s.PVs {
		fresh(&o.ObjectMeta)
		o.Spec.ClaimRef = unboundClaimRef(o.Spec.ClaimRef)
		o.Status = corev1.PersistentVolumeStatus{}
		_, err := c.CoreV1().PersistentVolumes().Create(ctx, &o, opts)
		create("pvs", err)
	}
	for _, o := range s.Nodes {
		status := o.Status
		fresh(&o.ObjectMeta)
		_, err := c.CoreV1().Nodes().Create(ctx, &o, opts)
		create("nodes", err)
		if err == nil {
			// Capacity and conditions are status: set it as exported. A
			// patch, as kwok may be writing the new node's status already.
			patch, err := json.Marshal(map[string]any{"status": status})
			if err == nil {
				_, err = c.CoreV1().Nodes().Patch(ctx, o.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("nodes: status of %s: %w", o.Name, err))
			}
		}
	}
	for _, o := range s.PVCs {
		fresh(&o.ObjectMeta)
		o.Status = corev1.PersistentVolumeClaimStatus{}
		_, err := c.CoreV1().PersistentVolumeClaims(o.Namespace).Create(ctx, &o, opts)
		create("pvcs", err)
	}
	for _, o := range s.Pods {
		fresh(&o.ObjectMeta)
		o.Status = corev1.PodStatus{}
		_, err := c.CoreV1().Pods(o.Namespace).Create(ctx, &o, opts)
		create("pods", err)
	}
	return res, errors.Join(errs...)
}

// unboundClaimRef keeps a PV's claim by name only: the claim's UID changes.
func unboundClaimRef(ref *corev1.ObjectReference) *corev1.ObjectReference {
	if ref == nil {
		return nil
	}
	return &corev1.ObjectReference{Kind: ref.Kind, APIVersion: ref.APIVersion, Namespace: ref.Namespace, Name: ref.Name}
}

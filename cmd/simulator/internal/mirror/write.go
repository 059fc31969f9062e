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
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Writer writes copies into a cluster.
type Writer struct {
	Client kubernetes.Interface
}

// Apply makes the cluster hold obj, a copy from Kind.Transform: it creates
// it or, when it exists (a copy resumed, a change), updates it to match.
// It returns the object as the cluster holds it.
func (w *Writer) Apply(ctx context.Context, k *Kind, obj Object) (Object, error) {
	out, err := w.create(ctx, k, obj)
	if !apierrors.IsAlreadyExists(err) {
		return out, err
	}
	return w.Update(ctx, k, obj)
}

// Update makes the cluster's copy of obj match it, creating it if it is
// gone: for an object written before, it spares Apply's create, which the
// apiserver admits and validates before it fails.
func (w *Writer) Update(ctx context.Context, k *Kind, obj Object) (Object, error) {
	existing, err := k.ops.get(ctx, w.Client, obj.GetNamespace(), obj.GetName())
	if apierrors.IsNotFound(err) {
		return w.create(ctx, k, obj)
	}
	if err != nil {
		return nil, fmt.Errorf("getting %s %s: %w", k.Resource, key(obj), err)
	}
	if p, ok := obj.(*corev1.Pod); ok {
		return w.updatePod(ctx, k, existing.(*corev1.Pod), p)
	}
	return w.update(ctx, k, existing, obj)
}

// Create creates obj, a copy from Kind.Transform, and its namespace first
// if the cluster lacks it; it returns the object as the cluster holds it.
// Unlike Apply it leaves an object that exists as it is: the error is then
// an AlreadyExists (apierrors.IsAlreadyExists), so that an import done
// twice changes nothing the second time.
func (w *Writer) Create(ctx context.Context, k *Kind, obj Object) (Object, error) {
	return w.create(ctx, k, obj)
}

// create creates obj, and its namespace first if the cluster lacks it (its
// Namespace object may be filtered out, or not readable).
func (w *Writer) create(ctx context.Context, k *Kind, obj Object) (Object, error) {
	out, err := k.ops.create(ctx, w.Client, obj)
	if k.Namespaced && apierrors.IsNotFound(err) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: obj.GetNamespace()}}
		if _, nerr := w.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); nerr != nil && !apierrors.IsAlreadyExists(nerr) {
			return nil, fmt.Errorf("creating namespace %s: %w", ns.Name, nerr)
		}
		out, err = k.ops.create(ctx, w.Client, obj)
	}
	if err != nil {
		return nil, fmt.Errorf("creating %s %s: %w", k.Resource, key(obj), err)
	}
	if k.ops.updateStatus != nil && k.Resource != "nodes" { // a Node takes its status on create
		return w.writeStatus(ctx, k, out, obj)
	}
	return out, nil
}

// update makes existing match obj. A change its kind refuses (an immutable
// field) replaces it.
func (w *Writer) update(ctx context.Context, k *Kind, existing, obj Object) (Object, error) {
	desired := obj.DeepCopyObject().(Object)
	desired.SetResourceVersion(existing.GetResourceVersion())
	out, err := k.ops.update(ctx, w.Client, desired)
	if apierrors.IsInvalid(err) {
		return w.replace(ctx, k, existing, obj)
	}
	if err != nil {
		return nil, fmt.Errorf("updating %s %s: %w", k.Resource, key(obj), err)
	}
	if k.ops.updateStatus != nil {
		return w.writeStatus(ctx, k, out, obj)
	}
	return out, nil
}

// writeStatus gives written the status of obj.
func (w *Writer) writeStatus(ctx context.Context, k *Kind, written, obj Object) (Object, error) {
	desired := obj.DeepCopyObject().(Object)
	desired.SetResourceVersion(written.GetResourceVersion())
	desired.SetUID(written.GetUID())
	out, err := k.ops.updateStatus(ctx, w.Client, desired)
	if err != nil {
		return nil, fmt.Errorf("updating the status of %s %s: %w", k.Resource, key(obj), err)
	}
	return out, nil
}

// replace deletes existing and creates obj.
func (w *Writer) replace(ctx context.Context, k *Kind, existing, obj Object) (Object, error) {
	if err := w.delete(ctx, k, existing.GetNamespace(), existing.GetName(), existing.GetUID()); err != nil {
		return nil, err
	}
	return w.create(ctx, k, obj)
}

// updatePod makes existing match pod. A Pod's spec cannot change, but for
// its node: the source's binding wins, and a Pod on another node is made
// again on the source's (RecreatePod). Otherwise only its labels and
// annotations follow, beside the simulator's own annotations (its
// scheduler's result); a Pod pending in the source stays where the
// simulator's scheduler put it.
func (w *Writer) updatePod(ctx context.Context, k *Kind, existing, pod *corev1.Pod) (Object, error) {
	if pod.Spec.NodeName != "" && existing.Spec.NodeName != pod.Spec.NodeName {
		return w.RecreatePod(ctx, existing, pod, SimulatorAnnotations(existing))
	}
	desired := existing.DeepCopy()
	desired.Labels = pod.Labels
	desired.Annotations = withAnnotations(pod.Annotations, SimulatorAnnotations(existing))
	if maps.Equal(desired.Labels, existing.Labels) && maps.Equal(desired.Annotations, existing.Annotations) {
		return existing, nil
	}
	out, err := k.ops.update(ctx, w.Client, desired)
	if err != nil {
		return nil, fmt.Errorf("updating %s %s: %w", k.Resource, key(pod), err)
	}
	return out, nil
}

// RecreatePod replaces existing (nil: gone already) by pod, bound where
// pod is, with annotations over pod's own: the simulator's (its
// scheduler's result, SimulatorAnnotations of existing; the full result,
// kept by namespace and name, stays too) and its shadow comparison.
func (w *Writer) RecreatePod(ctx context.Context, existing, pod *corev1.Pod, annotations map[string]string) (*corev1.Pod, error) {
	k := KindOf("pods")
	if existing != nil {
		if err := w.delete(ctx, k, existing.Namespace, existing.Name, existing.UID); err != nil {
			return nil, err
		}
	}
	desired := pod.DeepCopy()
	desired.Annotations = withAnnotations(pod.Annotations, annotations)
	out, err := w.create(ctx, k, desired)
	if err != nil {
		return nil, err
	}
	return out.(*corev1.Pod), nil
}

// AnnotatePod sets annotations on pod, as read inside, and returns it as
// written.
func (w *Writer) AnnotatePod(ctx context.Context, pod *corev1.Pod, annotations map[string]string) (*corev1.Pod, error) {
	desired := pod.DeepCopy()
	desired.Annotations = withAnnotations(desired.Annotations, annotations)
	out, err := w.Client.CoreV1().Pods(pod.Namespace).Update(ctx, desired, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("annotating pod %s: %w", key(pod), err)
	}
	return out, nil
}

// SimulatorAnnotations are the simulator's own annotations of pod
// (IsSimulatorAnnotation); never nil.
func SimulatorAnnotations(pod *corev1.Pod) map[string]string {
	out := map[string]string{}
	for k, v := range pod.Annotations {
		if IsSimulatorAnnotation(k) {
			out[k] = v
		}
	}
	return out
}

// withAnnotations is own with extra over it.
func withAnnotations(own, extra map[string]string) map[string]string {
	out := maps.Clone(own)
	for k, v := range extra {
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// Delete deletes the copy of namespace/name; gone already is done.
func (w *Writer) Delete(ctx context.Context, k *Kind, namespace, name string) error {
	return w.delete(ctx, k, namespace, name, "")
}

// delete deletes namespace/name if its UID is uid (any, if empty), at once:
// a Pod on a kwok Node would otherwise wait for kwok to end it.
func (w *Writer) delete(ctx context.Context, k *Kind, namespace, name string, uid types.UID) error {
	opts := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	if uid != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	err := k.ops.delete(ctx, w.Client, namespace, name, opts)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s %s: %w", k.Resource, klogKey(namespace, name), err)
	}
	return nil
}

func key(o Object) string { return klogKey(o.GetNamespace(), o.GetName()) }

func klogKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// RelabelPod makes the labels and annotations of the Pod inside pod's,
// where the copy last written had wasLabels and wasAnnotations: one merge
// patch that sets pod's and removes what it no longer has, without a read
// (a Pod's spec cannot change but for its node, and the copy holds no
// status). The simulator's own annotations, never in a copy, stay. A Pod
// gone inside is made again (Update). It returns the Pod as written, or
// pod when there was nothing to write.
func (w *Writer) RelabelPod(ctx context.Context, pod *corev1.Pod, wasLabels, wasAnnotations map[string]string) (*corev1.Pod, error) {
	labels, annotations := mergeMap(wasLabels, pod.Labels), mergeMap(wasAnnotations, pod.Annotations)
	if labels == nil && annotations == nil {
		return pod, nil
	}
	meta := map[string]any{}
	if labels != nil {
		meta["labels"] = labels
	}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	patch, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return nil, err
	}
	out, err := w.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		o, err := w.Update(ctx, KindOf("pods"), pod)
		if err != nil {
			return nil, err
		}
		return o.(*corev1.Pod), nil
	}
	if err != nil {
		return nil, fmt.Errorf("relabelling pod %s: %w", key(pod), err)
	}
	return out, nil
}

// mergeMap is the merge patch from was to now (a removed key is null), nil
// if they are equal.
func mergeMap(was, now map[string]string) map[string]any {
	if maps.Equal(was, now) {
		return nil
	}
	out := make(map[string]any, len(now))
	for k := range was {
		if _, ok := now[k]; !ok {
			out[k] = nil
		}
	}
	for k, v := range now {
		if old, ok := was[k]; !ok || old != v {
			out[k] = v
		}
	}
	return out
}

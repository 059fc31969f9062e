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

package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

// objects creates and deletes objects of any kind the inner cluster
// serves, as the steps name them.
type objects struct {
	dynamic dynamic.Interface
	mapper  meta.ResettableRESTMapper
}

// decodeObject reads a step's object: it must name its kind and itself.
func decodeObject(raw json.RawMessage) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	if u.GetAPIVersion() == "" || u.GetKind() == "" {
		return nil, errors.New("an object needs an apiVersion and a kind")
	}
	if u.GetName() == "" && u.GetGenerateName() == "" {
		return nil, fmt.Errorf("%s: no name", u.GetKind())
	}
	return u, nil
}

// describe names an object in messages: apps/v1 Deployment team/web.
func describe(u *unstructured.Unstructured) string {
	name := u.GetName()
	if name == "" {
		name = u.GetGenerateName() + "*"
	}
	if ns := u.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return u.GetAPIVersion() + " " + u.GetKind() + " " + name
}

// mapping finds where gvk is served; discovery is read again once when it
// does not know it (a CustomResourceDefinition created by an earlier step).
func (o *objects) mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := o.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		o.mapper.Reset()
		m, err = o.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	return m, err
}

// resource returns the client of u's resource, and u's namespace
// ("default" when a namespaced object names none).
func (o *objects) resource(u *unstructured.Unstructured) (dynamic.ResourceInterface, string, error) {
	m, err := o.mapping(u.GroupVersionKind())
	if err != nil {
		return nil, "", err
	}
	if m.Scope.Name() != meta.RESTScopeNameNamespace {
		return o.dynamic.Resource(m.Resource), "", nil
	}
	ns := u.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	return o.dynamic.Resource(m.Resource).Namespace(ns), ns, nil
}

// create creates raw's object, and its namespace first if missing. When
// retried, the object found there is taken as this create's, cut short
// after it was applied.
func (o *objects) create(ctx context.Context, raw json.RawMessage, retried bool) error {
	u, err := decodeObject(raw)
	if err != nil {
		return err
	}
	ri, ns, err := o.resource(u)
	if err != nil {
		return fmt.Errorf("creating %s: %w", describe(u), err)
	}
	if ns != "" {
		u.SetNamespace(ns)
	}
	_, err = ri.Create(ctx, u, metav1.CreateOptions{})
	if ns != "" && apierrors.IsNotFound(err) {
		if err := o.createNamespace(ctx, ns); err != nil {
			return err
		}
		_, err = ri.Create(ctx, u, metav1.CreateOptions{})
	}
	if retried && apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating %s: %w", describe(u), err)
	}
	return nil
}

var namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

func (o *objects) createNamespace(ctx context.Context, name string) error {
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(name)
	if _, err := o.dynamic.Resource(namespaces).Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

// delete deletes raw's object by kind, namespace and name; gone already is
// done. Pods go at once (a kwok Node's Pod would wait for kwok to end it),
// the dependents of workloads in the background.
func (o *objects) delete(ctx context.Context, raw json.RawMessage) error {
	u, err := decodeObject(raw)
	if err != nil {
		return err
	}
	ri, _, err := o.resource(u)
	if err != nil {
		return fmt.Errorf("deleting %s: %w", describe(u), err)
	}
	opts := metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
	if isPodGK(u.GroupVersionKind().GroupKind()) {
		opts.GracePeriodSeconds = ptr.To[int64](0)
	}
	if err := ri.Delete(ctx, u.GetName(), opts); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s: %w", describe(u), err)
	}
	return nil
}

// workloads are the kinds a step scales through their scale subresource.
var workloads = map[string]schema.GroupVersionResource{
	"Deployment":  {Group: "apps", Version: "v1", Resource: "deployments"},
	"ReplicaSet":  {Group: "apps", Version: "v1", Resource: "replicasets"},
	"StatefulSet": {Group: "apps", Version: "v1", Resource: "statefulsets"},
}

// scale sets a workload's replicas through its scale subresource, as
// kubectl scale does.
func (o *objects) scale(ctx context.Context, kind, namespace, name string, replicas int32) error {
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	if _, err := o.dynamic.Resource(workloads[kind]).Namespace(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, "scale"); err != nil {
		return fmt.Errorf("scaling %s %s/%s to %d: %w", kind, namespace, name, replicas, err)
	}
	return nil
}

// traceResource finds a trace event's resource, of a kind the mirror does
// not copy: by the object's kind, or by the plural alone for a deletion.
func (o *objects) traceResource(resource string, u *unstructured.Unstructured) (schema.GroupVersionResource, bool, error) {
	if u != nil && u.GetKind() != "" {
		m, err := o.mapping(u.GroupVersionKind())
		if err != nil {
			return schema.GroupVersionResource{}, false, err
		}
		return m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
	}
	gvr, err := o.mapper.ResourceFor(schema.GroupVersionResource{Resource: resource})
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	gvk, err := o.mapper.KindFor(gvr)
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	m, err := o.mapping(gvk)
	if err != nil {
		return schema.GroupVersionResource{}, false, err
	}
	return gvr, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// cleanForCopy clears what belongs to the cluster a traced object came
// from, as mirror's transforms do for the kinds they know.
func cleanForCopy(u *unstructured.Unstructured) {
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
		"deletionGracePeriodSeconds", "generation", "managedFields", "ownerReferences", "finalizers", "selfLink"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
}

// isPodGK says whether gk is core's Pod.
func isPodGK(gk schema.GroupKind) bool {
	return gk == corev1.SchemeGroupVersion.WithKind("Pod").GroupKind()
}

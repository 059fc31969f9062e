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

// Package nodepool holds the REST storage of nodepools and their subresources.
package nodepool

import (
	"context"
	"fmt"
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
)

// strategy holds the rules of spec writes: status is kept from the stored object.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	opts validation.Options
}

// NewStrategy returns the create/update/delete strategy of nodepools.
func NewStrategy(typer runtime.ObjectTyper, opts validation.Options) strategy {
	return strategy{typer, names.SimpleNameGenerator, opts}
}

func (strategy) NamespaceScoped() bool { return true }

func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"sim.x-k8s.io/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	np := obj.(*sim.NodePool)
	np.Status = sim.NodePoolStatus{}
	np.Generation = 1
	// Set at birth: the reconciler removes the pool's Nodes before letting it go.
	if !slices.Contains(np.Finalizers, sim.FinalizerCleanup) {
		np.Finalizers = append(np.Finalizers, sim.FinalizerCleanup)
	}
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	newNP, oldNP := obj.(*sim.NodePool), old.(*sim.NodePool)
	newNP.Status = oldNP.Status
	if !apiequality.Semantic.DeepEqual(newNP.Spec, oldNP.Spec) {
		newNP.Generation = oldNP.Generation + 1
	}
}

func (s strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateNodePool(obj.(*sim.NodePool), s.opts)
}

func (s strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateNodePoolUpdate(obj.(*sim.NodePool), old.(*sim.NodePool), s.opts)
}

func (strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
func (strategy) AllowCreateOnUpdate(context.Context) bool      { return false }
func (strategy) AllowUnconditionalUpdate(context.Context) bool { return true }
func (strategy) Canonicalize(runtime.Object)                   {}

// statusStrategy holds the rules of status writes (by the nodepool reconciler):
// spec and metadata other than labels and annotations are kept from the stored object.
type statusStrategy struct {
	strategy
}

// NewStatusStrategy returns the strategy of the nodepools/status subresource.
func NewStatusStrategy(s strategy) statusStrategy { return statusStrategy{s} }

func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"sim.x-k8s.io/v1alpha1": fieldpath.NewSet(
			fieldpath.MakePathOrDie("spec"),
			fieldpath.MakePathOrDie("metadata", "labels"),
			fieldpath.MakePathOrDie("metadata", "annotations"),
		),
	}
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	newNP, oldNP := obj.(*sim.NodePool), old.(*sim.NodePool)
	newNP.Spec = oldNP.Spec
	newNP.Labels, newNP.Annotations = oldNP.Labels, oldNP.Annotations
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateNodePoolStatusUpdate(obj.(*sim.NodePool), old.(*sim.NodePool))
}

// GetAttrs returns the labels and selectable fields of a nodepool.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	np, ok := obj.(*sim.NodePool)
	if !ok {
		return nil, nil, fmt.Errorf("not a NodePool: %T", obj)
	}
	return np.Labels, SelectableFields(np), nil
}

// SelectableFields are the fields a field selector may name; they match the
// field label conversions registered in v1alpha1.
func SelectableFields(np *sim.NodePool) fields.Set {
	return generic.AddObjectMetaFieldsSet(fields.Set{"spec.simulatorName": np.Spec.SimulatorName}, &np.ObjectMeta, true)
}

// Match is the selection predicate of list and watch.
func Match(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs}
}

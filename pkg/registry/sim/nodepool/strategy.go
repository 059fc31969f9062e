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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		// A copy: the stored object's conditions are not ours to change.
		newNP.Status = *oldNP.Status.DeepCopy()
		unobservedNotReady(newNP)
	}
}

// unobservedNotReady lowers a Ready condition that speaks for an older
// generation to False: the stored status counted the Nodes of an older
// spec, and a client that reads the condition alone (without comparing
// generations, as kubectl wait does) must not take them for the new
// spec's. The condition keeps the observedGeneration it was counted for;
// the reconciler writes the new generation's own once it acts on it.
func unobservedNotReady(np *sim.NodePool) {
	c := meta.FindStatusCondition(np.Status.Conditions, sim.NodePoolConditionReady)
	if c == nil || c.Status == metav1.ConditionFalse || (np.Status.ObservedGeneration >= np.Generation && c.ObservedGeneration >= np.Generation) {
		return
	}
	meta.SetStatusCondition(&np.Status.Conditions, metav1.Condition{
		Type:               sim.NodePoolConditionReady,
		Status:             metav1.ConditionFalse,
		Reason:             sim.NodePoolReasonScaling,
		ObservedGeneration: c.ObservedGeneration,
		Message: fmt.Sprintf("generation %d is not observed yet: %d Nodes exist, %d Ready, counted for generation %d",
			np.Generation, np.Status.Replicas, np.Status.ReadyReplicas, c.ObservedGeneration),
	})
}

// validateReadyGeneration refuses a status that says Ready=True for a
// generation other than the pool's own: Ready is True only for the
// generation whose Nodes were all counted.
func validateReadyGeneration(np *sim.NodePool) field.ErrorList {
	for i, c := range np.Status.Conditions {
		if c.Type != sim.NodePoolConditionReady || c.Status != metav1.ConditionTrue {
			continue
		}
		var allErrs field.ErrorList
		if c.ObservedGeneration != np.Generation {
			allErrs = append(allErrs, field.Invalid(field.NewPath("status", "conditions").Index(i).Child("observedGeneration"), c.ObservedGeneration,
				fmt.Sprintf("Ready may be True only for the pool's generation (%d)", np.Generation)))
		}
		if np.Status.ObservedGeneration != np.Generation {
			allErrs = append(allErrs, field.Invalid(field.NewPath("status", "observedGeneration"), np.Status.ObservedGeneration,
				fmt.Sprintf("must be the pool's generation (%d) while Ready is True", np.Generation)))
		}
		return allErrs
	}
	return nil
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
	np := obj.(*sim.NodePool)
	return append(validation.ValidateNodePoolStatusUpdate(np, old.(*sim.NodePool)), validateReadyGeneration(np)...)
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

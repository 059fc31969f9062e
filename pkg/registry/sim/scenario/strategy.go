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

// Package scenario holds the REST storage of scenarios and their subresources.
package scenario

import (
	"context"
	"fmt"

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

// strategy holds the rules of spec writes: the spec is immutable once
// created, and status is kept from the stored object (the scenario
// reconciler writes it through scenarios/status).
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	opts validation.Options
}

// NewStrategy returns the create/update/delete strategy of scenarios.
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
	s := obj.(*sim.Scenario)
	s.Status = sim.ScenarioStatus{}
	s.Generation = 1
}

func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	newS, oldS := obj.(*sim.Scenario), old.(*sim.Scenario)
	newS.Status = oldS.Status
	// Validation refuses a changed spec; the generation says so meanwhile.
	if !apiequality.Semantic.DeepEqual(newS.Spec, oldS.Spec) {
		newS.Generation = oldS.Generation + 1
	}
}

func (s strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateScenario(obj.(*sim.Scenario), s.opts)
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateScenarioUpdate(obj.(*sim.Scenario), old.(*sim.Scenario))
}

func (strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
func (strategy) AllowCreateOnUpdate(context.Context) bool      { return false }
func (strategy) AllowUnconditionalUpdate(context.Context) bool { return true }
func (strategy) Canonicalize(runtime.Object)                   {}

// statusStrategy holds the rules of status writes (by the scenario
// reconciler): spec and metadata other than labels and annotations are
// kept from the stored object.
type statusStrategy struct {
	strategy
}

// NewStatusStrategy returns the strategy of the scenarios/status subresource.
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
	newS, oldS := obj.(*sim.Scenario), old.(*sim.Scenario)
	newS.Spec = oldS.Spec
	newS.Labels, newS.Annotations = oldS.Labels, oldS.Annotations
}

func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateScenarioStatusUpdate(obj.(*sim.Scenario), old.(*sim.Scenario))
}

// GetAttrs returns the labels and selectable fields of a scenario.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	s, ok := obj.(*sim.Scenario)
	if !ok {
		return nil, nil, fmt.Errorf("not a Scenario: %T", obj)
	}
	return s.Labels, generic.ObjectMetaFieldsSet(&s.ObjectMeta, true), nil
}

// Match is the selection predicate of list and watch.
func Match(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs}
}

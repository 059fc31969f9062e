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

// Package simulator holds the REST storage of simulators and their subresources.
package simulator

import (
	"context"
	"fmt"
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
)

// strategy holds the rules of simulator writes. Status is never written by
// clients: it is computed from the backing Pod on every read.
type strategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	opts validation.Options
}

// NewStrategy returns the create/update/delete strategy of simulators.
func NewStrategy(typer runtime.ObjectTyper, opts validation.Options) strategy {
	return strategy{typer, names.SimpleNameGenerator, opts}
}

func (strategy) NamespaceScoped() bool { return true }

// GetResetFields tells server-side apply that status is not the client's to own.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return map[fieldpath.APIVersion]*fieldpath.Set{
		"sim.x-k8s.io/v1alpha1": fieldpath.NewSet(fieldpath.MakePathOrDie("status")),
	}
}

func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	s := obj.(*sim.Simulator)
	s.Status = sim.SimulatorStatus{}
	// The server writes these once the simulator exists, never its creator.
	for _, key := range sim.ServerAnnotations {
		delete(s.Annotations, key)
	}
	s.Generation = 1
	// Set at birth, so no simulator ever exists whose host objects could
	// outlive it unnoticed.
	if !slices.Contains(s.Finalizers, sim.FinalizerCleanup) {
		s.Finalizers = append(s.Finalizers, sim.FinalizerCleanup)
	}
}

func (strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	newSim, oldSim := obj.(*sim.Simulator), old.(*sim.Simulator)
	newSim.Status = oldSim.Status
	keepServerAnnotations(ctx, &newSim.ObjectMeta, &oldSim.ObjectMeta)
	if !apiequality.Semantic.DeepEqual(newSim.Spec, oldSim.Spec) {
		newSim.Generation = oldSim.Generation + 1
	}
}

// keepServerAnnotations gives the server's annotations (sim.ServerAnnotations)
// their old values unless the server itself (its loopback identity, which
// its reconcilers use) writes them: status is computed from them.
func keepServerAnnotations(ctx context.Context, newMeta, oldMeta *metav1.ObjectMeta) {
	if caller, ok := genericapirequest.UserFrom(ctx); ok && caller.GetName() == user.APIServerUser {
		return
	}
	for _, key := range sim.ServerAnnotations {
		value, had := oldMeta.Annotations[key]
		switch {
		case had:
			if newMeta.Annotations == nil {
				newMeta.Annotations = map[string]string{}
			}
			newMeta.Annotations[key] = value
		default:
			delete(newMeta.Annotations, key)
		}
	}
}

func (st strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	s := obj.(*sim.Simulator)
	return append(validation.ValidateSimulator(s, st.opts), validatePodTemplate(s)...)
}

func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	s, oldSim := obj.(*sim.Simulator), old.(*sim.Simulator)
	errs := validation.ValidateSimulatorUpdate(s, oldSim)
	// Only a changed template: one stored before these rules must not block
	// the updates that leave it alone (the reconciler's, the finalizer's
	// removal, without which the simulator and its namespace never go).
	if !apiequality.Semantic.DeepEqual(s.Spec.PodTemplate, oldSim.Spec.PodTemplate) {
		errs = append(errs, validatePodTemplate(s)...)
	}
	return errs
}

// validatePodTemplate refuses templates that replace the server's part of
// the simulator container.
func validatePodTemplate(s *sim.Simulator) field.ErrorList {
	if s.Spec.PodTemplate == nil {
		return nil
	}
	return validation.ValidatePodTemplate(s.Spec.PodTemplate, field.NewPath("spec", "podTemplate"))
}

func (strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
func (strategy) AllowCreateOnUpdate(context.Context) bool      { return false }
func (strategy) AllowUnconditionalUpdate(context.Context) bool { return true }
func (strategy) Canonicalize(runtime.Object)                   {}

// GetAttrs returns the labels and selectable fields of a simulator.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	s, ok := obj.(*sim.Simulator)
	if !ok {
		return nil, nil, fmt.Errorf("not a Simulator: %T", obj)
	}
	return s.Labels, generic.ObjectMetaFieldsSet(&s.ObjectMeta, true), nil
}

// Match is the selection predicate of list and watch.
func Match(label labels.Selector, field fields.Selector) storage.SelectionPredicate {
	return storage.SelectionPredicate{Label: label, Field: field, GetAttrs: GetAttrs}
}

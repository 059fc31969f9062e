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
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/sim/simulator"
)

// Storage is the REST storage of scenarios and their status.
type Storage struct {
	Scenario *REST
	Status   *StatusREST
}

// NewStorage builds the scenarios store over optsGetter's storage; authz
// (the host's delegated authorizer) checks what a new scenario makes the
// server do in its creator's name.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, opts validation.Options, authz authorizer.Authorizer) (*Storage, error) {
	s := NewStrategy(scheme, opts)
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &sim.Scenario{} },
		NewListFunc:               func() runtime.Object { return &sim.ScenarioList{} },
		PredicateFunc:             Match,
		DefaultQualifiedResource:  sim.Resource("scenarios"),
		SingularQualifiedResource: sim.Resource("scenario"),

		CreateStrategy:      s,
		UpdateStrategy:      s,
		DeleteStrategy:      s,
		ResetFieldsStrategy: s,

		TableConvertor: tableConvertor{},
	}
	if err := store.CompleteWithOptions(&generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs}); err != nil {
		return nil, fmt.Errorf("completing the scenarios store: %w", err)
	}
	statusStore := *store
	ss := NewStatusStrategy(s)
	statusStore.UpdateStrategy = ss
	statusStore.ResetFieldsStrategy = ss
	return &Storage{
		Scenario: &REST{Store: store, access: access{simulator.NewAccess(authz)}},
		Status:   &StatusREST{store: &statusStore},
	}, nil
}

// REST serves scenarios.
type REST struct {
	*genericregistry.Store
	access access
}

// Create checks, once the scenario is valid, that its creator may do what
// it makes the server do: create simulators and NodePools, read the
// ConfigMaps, Secrets and simulators it names.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.Store.Create(ctx, obj, r.access.createValidation(createValidation), options)
}

var (
	_ rest.ShortNamesProvider = &REST{}
	_ rest.CategoriesProvider = &REST{}
)

// ShortNames lets `kubectl get scn` work.
func (*REST) ShortNames() []string { return []string{"scn"} }

// Categories lets `kubectl get simulation` list scenarios with simulators and nodepools.
func (*REST) Categories() []string { return []string{"simulation"} }

// StatusREST serves scenarios/status, written by the scenario reconciler.
type StatusREST struct {
	store *genericregistry.Store
}

var _ rest.Patcher = &StatusREST{}

func (r *StatusREST) New() runtime.Object { return &sim.Scenario{} }
func (r *StatusREST) Destroy()            {}

func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// Status writes never create the object.
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

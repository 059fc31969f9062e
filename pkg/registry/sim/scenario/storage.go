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
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
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
	limit := hoststore.NewUserLimit(store)
	return &Storage{
		Scenario: &REST{Store: store, access: access{simulator.NewAccess(authz)}, limit: limit},
		Status:   &StatusREST{store: &statusStore, limit: limit},
	}, nil
}

// REST serves scenarios.
type REST struct {
	*genericregistry.Store
	access access
	// limit keeps users' objects below a record's hard limit, so the
	// server's own updates (deletion, finalizer, status) always fit.
	limit hoststore.UserLimit
}

// Create checks, once the scenario is valid, that its creator may do what
// it makes the server do: create simulators and NodePools, read the
// ConfigMaps, Secrets and simulators it names.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.Store.Create(ctx, obj, r.limit.Create(r.access.createValidation(createValidation)), options)
}

// Update refuses a user's update that grows a scenario past the users'
// limit; one that creates (server-side apply) is checked as Create is, its
// creator's access included.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.Store.Update(ctx, name, objInfo, r.limit.Create(r.access.createValidation(createValidation)), r.limit.Update(updateValidation), forceAllowCreate, options)
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
	limit hoststore.UserLimit
}

var _ rest.Patcher = &StatusREST{}

func (r *StatusREST) New() runtime.Object { return &sim.Scenario{} }
func (r *StatusREST) Destroy()            {}

func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	// Status writes never create the object.
	return r.store.Update(ctx, name, objInfo, createValidation, r.limit.Update(updateValidation), false, options)
}

func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

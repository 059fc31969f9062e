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

package nodepool

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
)

// Storage is the REST storage of nodepools and each subresource.
type Storage struct {
	NodePool *REST
	Status   *StatusREST
	Scale    *ScaleREST
}

// NewStorage builds the nodepools store over optsGetter's storage.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, opts validation.Options) (*Storage, error) {
	s := NewStrategy(scheme, opts)
	store := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &sim.NodePool{} },
		NewListFunc:               func() runtime.Object { return &sim.NodePoolList{} },
		PredicateFunc:             Match,
		DefaultQualifiedResource:  sim.Resource("nodepools"),
		SingularQualifiedResource: sim.Resource("nodepool"),

		CreateStrategy:      s,
		UpdateStrategy:      s,
		DeleteStrategy:      s,
		ResetFieldsStrategy: s,

		TableConvertor: tableConvertor{},
	}
	if err := store.CompleteWithOptions(&generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs}); err != nil {
		return nil, fmt.Errorf("completing the nodepools store: %w", err)
	}
	statusStore := *store
	ss := NewStatusStrategy(s)
	statusStore.UpdateStrategy = ss
	statusStore.ResetFieldsStrategy = ss
	limit := hoststore.NewUserLimit(store)
	return &Storage{
		NodePool: &REST{Store: store, limit: limit},
		Status:   &StatusREST{store: &statusStore, limit: limit},
		Scale:    &ScaleREST{store: store, limit: limit},
	}, nil
}

// REST serves nodepools.
type REST struct {
	*genericregistry.Store
	// limit keeps users' objects below a record's hard limit, so the
	// server's own updates (deletion, finalizer, status) always fit.
	limit hoststore.UserLimit
}

// Create refuses a user's NodePool too large to leave room for the server's
// updates.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.Store.Create(ctx, obj, r.limit.Create(createValidation), options)
}

// Update refuses a user's update that grows a NodePool past the users' limit.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.Store.Update(ctx, name, objInfo, r.limit.Create(createValidation), r.limit.Update(updateValidation), forceAllowCreate, options)
}

var (
	_ rest.ShortNamesProvider = &REST{}
	_ rest.CategoriesProvider = &REST{}
)

// ShortNames lets `kubectl get np` work.
func (*REST) ShortNames() []string { return []string{"np"} }

// Categories lets `kubectl get simulation` list simulators and nodepools together.
func (*REST) Categories() []string { return []string{"simulation"} }

// StatusREST serves nodepools/status, written by the nodepool reconciler.
type StatusREST struct {
	store *genericregistry.Store
	limit hoststore.UserLimit
}

var _ rest.Patcher = &StatusREST{}

func (r *StatusREST) New() runtime.Object { return &sim.NodePool{} }
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

// ScaleREST serves nodepools/scale, so `kubectl scale nodepool/x --replicas=N` works.
type ScaleREST struct {
	store *genericregistry.Store
	limit hoststore.UserLimit
}

var (
	_ rest.Patcher                  = &ScaleREST{}
	_ rest.GroupVersionKindProvider = &ScaleREST{}
)

func (r *ScaleREST) New() runtime.Object { return &autoscalingv1.Scale{} }
func (r *ScaleREST) Destroy()            {}

// GroupVersionKind says the subresource speaks autoscaling/v1 Scale.
func (r *ScaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return autoscalingv1.SchemeGroupVersion.WithKind("Scale")
}

func (r *ScaleREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, options)
	if err != nil {
		return nil, err
	}
	return scaleOf(obj.(*sim.NodePool)), nil
}

func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	obj, _, err := r.store.Update(ctx, name, &scaleUpdatedObjectInfo{objInfo},
		scaleCreateValidation(createValidation), r.limit.Update(scaleUpdateValidation(updateValidation)), false, options)
	if err != nil {
		return nil, false, err
	}
	return scaleOf(obj.(*sim.NodePool)), false, nil
}

func scaleOf(np *sim.NodePool) *autoscalingv1.Scale {
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              np.Name,
			Namespace:         np.Namespace,
			UID:               np.UID,
			ResourceVersion:   np.ResourceVersion,
			CreationTimestamp: np.CreationTimestamp,
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: ptr.Deref(np.Spec.Replicas, 0)},
		Status: autoscalingv1.ScaleStatus{Replicas: np.Status.Replicas, Selector: sim.NodePoolSelector(np.Name)},
	}
}

// scaleUpdatedObjectInfo turns a client's Scale (or a patch of it) into the
// updated NodePool, so that update, patch and apply of /scale go through the
// nodepool strategy and its validation like any spec change.
type scaleUpdatedObjectInfo struct {
	req rest.UpdatedObjectInfo
}

func (i *scaleUpdatedObjectInfo) Preconditions() *metav1.Preconditions { return i.req.Preconditions() }

func (i *scaleUpdatedObjectInfo) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	np := oldObj.DeepCopyObject().(*sim.NodePool)
	obj, err := i.req.UpdatedObject(ctx, scaleOf(np))
	if err != nil {
		return nil, err
	}
	scale, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected an autoscaling/v1 Scale, got %T", obj))
	}
	if scale.Name != "" && scale.Name != np.Name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the Scale's name %q does not match the nodepool %q", scale.Name, np.Name))
	}
	if scale.Spec.Replicas < 0 {
		return nil, apierrors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), np.Name,
			field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0")})
	}
	if scale.ResourceVersion != "" {
		// The client's resourceVersion is the precondition of the write.
		np.ResourceVersion = scale.ResourceVersion
	}
	np.Spec.Replicas = ptr.To(scale.Spec.Replicas)
	return np, nil
}

// Admission sees Scale objects on /scale, as in kube.
func scaleCreateValidation(f rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		return f(ctx, scaleOf(obj.(*sim.NodePool)))
	}
}

func scaleUpdateValidation(f rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		return f(ctx, scaleOf(obj.(*sim.NodePool)), scaleOf(old.(*sim.NodePool)))
	}
}

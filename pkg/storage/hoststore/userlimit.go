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

package hoststore

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
)

// MaxRecordBytes is the hard limit of every write, the server's own
// included: a record is a host ConfigMap (1 MiB), with room for its metadata.
const MaxRecordBytes = maxRecordBytes

// bookkeepingBytes is the part of a record only the server may fill: once a
// user has written an object, the server still sets its deletionTimestamp,
// removes its finalizer, writes its status and server annotations, and each
// of these adds managedFields. Without this headroom an object a user filled
// to the hard limit could never be deleted (413 on the deletionTimestamp)
// nor show Available. The server's writes of one object add a few KiB at
// most (a NodePool's status, a managedFields entry per field manager).
const bookkeepingBytes = 64 << 10

// MaxUserRecordBytes is the largest record a user's create or update may
// leave (UserLimit).
const MaxUserRecordBytes = MaxRecordBytes - bookkeepingBytes

// UserLimit refuses, with 413, the creates and updates of users whose
// object would be stored in more than MaxUserRecordBytes, leaving the rest
// of a record to the server's bookkeeping, which only the hard limit
// bounds. It checks the object as it would be stored (managedFields
// included, which users can fill too: one entry per field manager), so it
// runs with the request's validation, after the strategy and the field
// manager have formed the object. The server's own writes (its loopback
// identity, which its reconcilers use) and deletion (which sets
// deletionTimestamp in storage, without validation) are not checked.
type UserLimit struct {
	codec    runtime.Encoder
	resource schema.GroupResource
	limit    int
}

// NewUserLimit returns the limit of store's users; store is complete, so
// its storage codec is the records' codec.
func NewUserLimit(store *genericregistry.Store) UserLimit {
	return UserLimit{codec: store.Storage.Codec, resource: store.DefaultQualifiedResource, limit: MaxUserRecordBytes}
}

// Create wraps a create's validation with the limit.
func (l UserLimit) Create(validate rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		if err := l.check(ctx, obj, nil); err != nil {
			return err
		}
		if validate == nil {
			return nil
		}
		return validate(ctx, obj)
	}
}

// Update wraps an update's validation with the limit. An update that does
// not grow the object passes, so that an object stored over the limit
// (before it, or grown by the server) can still be shrunk or let go of.
func (l UserLimit) Update(validate rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		if err := l.check(ctx, obj, old); err != nil {
			return err
		}
		if validate == nil {
			return nil
		}
		return validate(ctx, obj, old)
	}
}

func (l UserLimit) check(ctx context.Context, obj, old runtime.Object) error {
	if caller, ok := genericapirequest.UserFrom(ctx); ok && caller.GetName() == user.APIServerUser {
		return nil
	}
	size, err := l.size(obj)
	if err != nil || size <= l.limit {
		return err
	}
	if old != nil {
		oldSize, err := l.size(old)
		if err != nil {
			return err
		}
		if size <= oldSize {
			return nil
		}
	}
	name := ""
	if m, err := meta.Accessor(obj); err == nil {
		name = m.GetName()
	}
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
		"%s %q would be stored in %d bytes (managedFields included); a user's write may leave at most %d (the rest of a record's %d is kept for the server's own updates)",
		l.resource, name, size, l.limit, MaxRecordBytes))
}

// size is obj's size as its record holds it (before any transformation):
// encode's, but for the resourceVersion, which storage drops.
func (l UserLimit) size(obj runtime.Object) (int, error) {
	var w countingWriter
	if err := l.codec.Encode(obj, &w); err != nil {
		return 0, fmt.Errorf("encoding %s to measure it: %w", l.resource, err)
	}
	return int(w), nil
}

// countingWriter counts what is written to it, so measuring an object near
// 1 MiB holds no copy of it.
type countingWriter int

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

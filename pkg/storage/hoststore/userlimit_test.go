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
	"bytes"
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// TestUserLimit: a user's create or update whose stored object would pass
// the users' limit gets 413 (managedFields count), unless the update does
// not grow the object; the server's own writes pass up to the hard limit.
func TestUserLimit(t *testing.T) {
	if MaxRecordBytes-MaxUserRecordBytes != 64<<10 {
		t.Fatalf("the server's headroom is %d bytes, want 64 KiB", MaxRecordBytes-MaxUserRecordBytes)
	}
	scheme := runtime.NewScheme()
	install.Install(scheme)
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(v1alpha1.SchemeGroupVersion)
	const limit = 4 << 10
	l := UserLimit{codec: codec, resource: sim.Resource("nodepools"), limit: limit}

	// pool is a NodePool whose record is about size bytes, most of it in
	// managedFields when inFields (a user can fill them with field managers).
	pool := func(size int, inFields bool, finalizers ...string) *sim.NodePool {
		np := &sim.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Finalizers: finalizers}}
		// Each "x" of the padding adds one byte.
		pad := func(set func(string)) {
			set("x")
			set(strings.Repeat("x", 1+size-l.mustSize(t, np)))
		}
		if inFields {
			np.ManagedFields = []metav1.ManagedFieldsEntry{{Operation: metav1.ManagedFieldsOperationApply, APIVersion: "sim.x-k8s.io/v1alpha1", FieldsType: "FieldsV1"}}
			pad(func(s string) { np.ManagedFields[0].Manager = s })
		} else {
			pad(func(s string) { np.Annotations = map[string]string{"a": s} })
		}
		if got := l.mustSize(t, np); got != size {
			t.Fatalf("made a NodePool of %d bytes, want %d", got, size)
		}
		return np
	}
	userCtx := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "alice"})
	serverCtx := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}})

	validated := 0
	create := l.Create(func(context.Context, runtime.Object) error { validated++; return nil })
	update := l.Update(func(context.Context, runtime.Object, runtime.Object) error { validated++; return nil })

	for _, tc := range []struct {
		name     string
		ctx      context.Context
		obj, old *sim.NodePool
		refused  bool
	}{
		{name: "user create at the limit", ctx: userCtx, obj: pool(limit, false)},
		{name: "user create over the limit", ctx: userCtx, obj: pool(limit+1, false), refused: true},
		{name: "user create over the limit in managedFields", ctx: userCtx, obj: pool(limit+100, true), refused: true},
		{name: "server create over the limit", ctx: serverCtx, obj: pool(limit+100, true)},
		{name: "user update growing past the limit", ctx: userCtx, obj: pool(limit+10, false), old: pool(limit-10, false), refused: true},
		{name: "user update growing over the limit", ctx: userCtx, obj: pool(limit+20, false), old: pool(limit+10, false), refused: true},
		{name: "user update under the limit", ctx: userCtx, obj: pool(limit-10, false), old: pool(limit+10, false)},
		{name: "user removes a finalizer over the limit", ctx: userCtx, obj: pool(limit+10, false), old: pool(limit+10, false, sim.FinalizerCleanup)},
		{name: "server update growing over the limit", ctx: serverCtx, obj: pool(limit+1000, true), old: pool(limit, false)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validated = 0
			var err error
			if tc.old == nil {
				err = create(tc.ctx, tc.obj)
			} else {
				err = update(tc.ctx, tc.obj, tc.old)
			}
			switch {
			case tc.refused && !apierrors.IsRequestEntityTooLargeError(err):
				t.Fatalf("got %v, want 413", err)
			case tc.refused && !strings.Contains(err.Error(), `nodepools.sim.x-k8s.io "p" would be stored in`):
				t.Errorf("the error does not say what is too large: %v", err)
			case tc.refused && validated != 0:
				t.Errorf("the request's validation ran after the refusal")
			case !tc.refused && err != nil:
				t.Fatalf("got %v, want it passed", err)
			case !tc.refused && validated != 1:
				t.Errorf("the request's validation ran %d times, want once", validated)
			}
		})
	}

	// The measure is the record's encoding, byte for byte.
	np := pool(limit, true)
	var buf bytes.Buffer
	if err := codec.Encode(np, &buf); err != nil {
		t.Fatal(err)
	}
	if got := l.mustSize(t, np); got != buf.Len() {
		t.Errorf("measured %d bytes, the encoding has %d", got, buf.Len())
	}
}

func (l UserLimit) mustSize(t *testing.T, obj runtime.Object) int {
	t.Helper()
	n, err := l.size(obj)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

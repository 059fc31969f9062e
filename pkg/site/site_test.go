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

package site

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/hosting"
)

// TestOf: a local simulator's site is the host's, its objects owned by
// reference; a hosted one's needs hosting on, the ownership key and its
// hosting cluster followed, which Of, a read, never starts.
func TestOf(t *testing.T) {
	host := fake.NewClientset()
	res := &Resolver{Client: host}
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "example", UID: "uid-1"}}
	st, err := res.Of(RefOf(s))
	if err != nil || st.Client != host || st.Place != (backing.Placement{Namespace: "team-a"}) || st.Signed != nil {
		t.Fatalf("local: %+v, %v", st, err)
	}
	owned := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{backing.OwnerReference(s)}}}
	if !st.Owner.Owns(owned) {
		t.Error("local: the simulator does not own what it controls")
	}

	s.Spec.Hosting = &v1alpha1.SimulatorHosting{SecretName: "hosting", Namespace: "sims"}
	if st, err := res.Of(RefOf(s)); !errors.Is(err, ErrHostingDisabled) || st.Place != (backing.Placement{Namespace: "sims", Hosted: true}) {
		t.Errorf("hosting off: %+v, %v; want ErrHostingDisabled and the hosted placement", st, err)
	}
	reg, err := hosting.NewRegistry(host, hosting.Options{Cache: hostcache.Options{Controlled: func(metav1.Object) bool { return false }}})
	if err != nil {
		t.Fatal(err)
	}
	var signer *backing.Signer
	res.Hosting, res.Signer = reg, func() *backing.Signer { return signer }
	if _, err := res.Of(RefOf(s)); !errors.Is(err, ErrNoOwnershipKey) {
		t.Errorf("no key: %v, want ErrNoOwnershipKey", err)
	}
	if signer, err = backing.NewSigner(bytes.Repeat([]byte{1}, backing.MinOwnershipKeyBytes)); err != nil {
		t.Fatal(err)
	}
	var secretErr *hosting.SecretError
	if _, err := res.Of(RefOf(s)); !errors.As(err, &secretErr) || !errors.Is(err, hosting.ErrSecretNotRead) {
		t.Errorf("not followed: %v, want ErrSecretNotRead", err)
	}
	if _, ok := reg.Get("team-a", "hosting"); ok {
		t.Error("Of followed the hosting cluster")
	}
}

// TestFollower: a stored hosted simulator follows its hosting cluster once
// the ownership key is read (before, the cache would keep the simulator's
// objects as stubs); one deleted, or no longer hosted, lets it go; what is
// not stored (a refused create) never holds it.
func TestFollower(t *testing.T) {
	reg, err := hosting.NewRegistry(fake.NewClientset(), hosting.Options{Cache: hostcache.Options{Controlled: func(metav1.Object) bool { return false }}})
	if err != nil {
		t.Fatal(err)
	}
	var signer atomic.Pointer[backing.Signer]
	var mu sync.Mutex
	stored := map[string]Ref{}
	f := NewFollower(&Resolver{Hosting: reg, Signer: signer.Load}, func(_ context.Context, namespace, name string) (Ref, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		r, ok := stored[namespace+"/"+name]
		return r, ok, nil
	})
	store := func(r Ref, ok bool) {
		mu.Lock()
		if ok {
			stored[r.Key()] = r
		} else {
			delete(stored, r.Key())
		}
		mu.Unlock()
		f.Changed(r.Namespace, r.Name)
	}
	go f.Run(t.Context())
	followed := func() bool { _, ok := reg.Get("team-a", "hosting"); return ok }
	settle := func(want bool, what string) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
			return followed() == want, nil
		}); err != nil {
			t.Fatalf("%s: followed %v, want %v", what, followed(), want)
		}
	}

	hosted := Ref{Namespace: "team-a", Name: "example", UID: "uid-1", HostingSecretName: "hosting", HostingNamespace: "sims"}
	f.Changed("team-a", "refused") // a create refused: nothing stored
	store(hosted, true)
	time.Sleep(300 * time.Millisecond)
	if followed() {
		t.Fatal("followed before the ownership key is read")
	}
	k, err := backing.NewSigner(bytes.Repeat([]byte{1}, backing.MinOwnershipKeyBytes))
	if err != nil {
		t.Fatal(err)
	}
	signer.Store(k)
	settle(true, "stored, key read")
	// Linger is 0: the entry goes with its last simulator.
	local := hosted
	local.HostingSecretName, local.HostingNamespace = "", ""
	store(local, true)
	settle(false, "no longer hosted")
	store(hosted, true)
	settle(true, "hosted again")
	store(hosted, false)
	settle(false, "deleted")
}

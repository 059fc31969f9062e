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
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/hosting"
)

// TestOf: a local simulator's site is the host's, its objects owned by
// reference; a hosted one's needs hosting on and the ownership key, and
// its hosting cluster is not followed before the key is read (its cache
// would keep the simulator's objects as stubs).
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
	if _, ok := reg.Get("team-a", "hosting"); ok {
		t.Error("the hosting cluster is followed before the key is read")
	}
	if signer, err = backing.NewSigner(bytes.Repeat([]byte{1}, backing.MinOwnershipKeyBytes)); err != nil {
		t.Fatal(err)
	}
	// The registry is not running: the Secret is not read yet.
	var secretErr *hosting.SecretError
	if _, err := res.Of(RefOf(s)); !errors.As(err, &secretErr) || !errors.Is(err, hosting.ErrSecretNotRead) {
		t.Errorf("unread Secret: %v, want ErrSecretNotRead", err)
	}
	if _, ok := reg.Get("team-a", "hosting"); !ok {
		t.Error("the hosting cluster is not followed once the key is read")
	}
}

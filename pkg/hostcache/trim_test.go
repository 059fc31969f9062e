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

package hostcache

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

func transform(t *testing.T, k int, obj interface{}) interface{} {
	t.Helper()
	out, err := trim(k, controlled)(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTrimKeepsWhatIsRead: the simulator's own objects lose their
// managedFields alone (the reconciler updates them from the cache's copy),
// its Secret keeps the credentials alone.
func TestTrimKeepsWhatIsRead(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: owned("ns", "sim-s", "s"), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	svc.Annotations = map[string]string{"users": "kept: an update from the cache's copy must not drop it"}
	want := svc.DeepCopy()
	want.ManagedFields = nil
	if d := cmp.Diff(want, transform(t, services, svc)); d != "" {
		t.Errorf("the simulator's Service (-want +got):\n%s", d)
	}

	role := &rbacv1.Role{ObjectMeta: owned("ns", "sim-s-proxy", "s"), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}}}}
	if got := transform(t, roles, role).(*rbacv1.Role); got.ManagedFields != nil || len(got.Rules) != 1 {
		t.Errorf("the simulator's Role: managedFields %v, rules %v; want none, its rule", got.ManagedFields, got.Rules)
	}

	secret := transform(t, secrets, credentials(owned("ns", "sim-s-credentials", "s"))).(*corev1.Secret)
	if len(secret.Data) != len(contract.CredentialFiles) || secret.ManagedFields != nil {
		t.Errorf("the simulator's Secret holds keys %v and managedFields %v; want the credentials alone", keys(secret.Data), secret.ManagedFields)
	}
	for _, k := range contract.CredentialFiles {
		if len(secret.Data[k]) == 0 {
			t.Errorf("the credentials lost %s", k)
		}
	}

	hosted := credentials(owned("ns", "sim-s-credentials", "s"))
	hosted.Data[contract.FileHopToken] = []byte("token")
	if got := transform(t, secrets, hosted).(*corev1.Secret); string(got.Data[contract.FileHopToken]) != "token" {
		t.Errorf("a hosted simulator's Secret holds keys %v; want its hop token kept", keys(got.Data))
	}
}

// TestTrimStubsWhatIsNotTheSimulators: an object no simulator controls,
// and every object of a metadata-only kind, are kept as who they are and
// whose: a tenant's 700 KB labelled Secret takes a few hundred bytes.
func TestTrimStubsWhatIsNotTheSimulators(t *testing.T) {
	filler := bulky(labelled("ns", "filler"))
	filler.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	got := transform(t, secrets, filler).(*corev1.Secret)
	want := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "filler", UID: filler.UID, Labels: map[string]string{sim.LabelSimulator: "s"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("a tenant's labelled Secret (-want +got):\n%s", d)
	}
	if got.Size() > 256 {
		t.Errorf("a tenant's labelled Secret of %d bytes is kept in %d", filler.Size(), got.Size())
	}

	// Someone else's controller: still told apart from the simulator's.
	pod := &corev1.Pod{ObjectMeta: labelled("ns", "sim-s-1"), Spec: corev1.PodSpec{NodeName: "n"}}
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs", Controller: new(true)},
		{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm"}}
	stub := transform(t, pods, pod).(*corev1.Pod)
	if stub.Spec.NodeName != "" || stub.Annotations != nil || len(stub.OwnerReferences) != 1 || stub.OwnerReferences[0].Kind != "ReplicaSet" {
		t.Errorf("a labelled Pod of a ReplicaSet is kept with node %q, %d annotations, owners %v", stub.Spec.NodeName, len(stub.Annotations), stub.OwnerReferences)
	}
	if backing.OwnedBy(stub, simUID) {
		t.Error("a stub passes for the simulator's")
	}

	account := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: owned("ns", "sim-s-proxy", "s")}
	account.Annotations = map[string]string{"a": "b"}
	got2 := transform(t, serviceAccounts, account).(*metav1.PartialObjectMetadata)
	if got2.ManagedFields != nil || got2.Annotations != nil || got2.Labels["other"] != "" || !backing.OwnedBy(got2, simUID) || got2.Kind != "ServiceAccount" {
		t.Errorf("the simulator's ServiceAccount is kept as %+v; want its name, simulator label and controller", got2.ObjectMeta)
	}
}

// TestTrimByControlled: where Options.Controlled decides (a hosting
// cluster's signed claims), an object it accepts stays whole, one it
// refuses is a stub that keeps its claim, unless the claim is too long to
// be one.
func TestTrimByControlled(t *testing.T) {
	transform := func(obj interface{}) interface{} {
		out, err := trim(pods, signedGood)(obj)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	good := &corev1.Pod{ObjectMeta: hosted("hosting", "sim-s-1", "s", true), Spec: corev1.PodSpec{NodeName: "n"}}
	good.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "sim-apiserver"}}
	want := good.DeepCopy()
	want.ManagedFields = nil
	if d := cmp.Diff(want, transform(good)); d != "" {
		t.Errorf("a Pod Controlled accepts (-want +got):\n%s", d)
	}

	bad := &corev1.Pod{ObjectMeta: hosted("hosting", "sim-s-2", "s", false), Spec: corev1.PodSpec{NodeName: "n"}}
	wantStub := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "hosting", Name: "sim-s-2", UID: bad.UID,
		Labels:      map[string]string{sim.LabelSimulator: "s"},
		Annotations: map[string]string{"sim.x-k8s.io/owner": bad.Annotations["sim.x-k8s.io/owner"], "sim.x-k8s.io/owner-signature": "bad"},
	}}
	if d := cmp.Diff(wantStub, transform(bad)); d != "" {
		t.Errorf("a Pod Controlled refuses (-want +got):\n%s", d)
	}

	bulkyClaim := &corev1.Pod{ObjectMeta: hosted("hosting", "sim-s-3", "s", false)}
	bulkyClaim.Annotations["sim.x-k8s.io/owner"] = strings.Repeat("a", 100<<10)
	if got := transform(bulkyClaim).(*corev1.Pod); len(got.Annotations) != 1 {
		t.Errorf("a stub keeps annotations %v, want the signature alone", keys(got.Annotations))
	}

	// Without Options.Controlled, the owner reference decides, whatever
	// the claim.
	c, err := New(nil, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := trim(pods, c.opts.Controlled)(good.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	if out.(*corev1.Pod).Spec.NodeName != "" {
		t.Error("by default, a signed Pod without an owner reference is kept whole")
	}
	owner := &corev1.Pod{ObjectMeta: owned("ns", "sim-s-1", "s"), Spec: corev1.PodSpec{NodeName: "n"}}
	if out, _ := trim(pods, c.opts.Controlled)(owner); out.(*corev1.Pod).Spec.NodeName != "n" {
		t.Error("by default, the simulator's Pod is stubbed")
	}
}

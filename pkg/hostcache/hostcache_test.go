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
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

const simUID = types.UID("sim-uid")

// owned is metadata of an object the simulator s controls in ns.
func owned(ns, name, s string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: ns, Name: name, UID: types.UID(ns + "/" + name),
		Labels: map[string]string{sim.LabelSimulator: s, "other": "x"},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "sim.x-k8s.io/v1alpha1", Kind: "Simulator", Name: s, UID: simUID, Controller: ptr.To(true),
		}},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "sim-apiserver", Operation: metav1.ManagedFieldsOperationUpdate}},
	}
}

// labelled is metadata of a tenant's object that carries a simulator's label.
func labelled(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: ns, Name: name, UID: types.UID(ns + "/" + name),
		Labels:      map[string]string{sim.LabelSimulator: "s"},
		Annotations: map[string]string{"big": strings.Repeat("a", 100<<10)},
	}
}

func credentials(meta metav1.ObjectMeta) *corev1.Secret {
	data := map[string][]byte{"extra": []byte(strings.Repeat("x", 1<<10))}
	for _, k := range contract.CredentialFiles {
		data[k] = []byte("pem of " + k)
	}
	return &corev1.Secret{ObjectMeta: meta, Data: data}
}

func bulky(meta metav1.ObjectMeta) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: meta, Data: map[string][]byte{"x": []byte(strings.Repeat("x", 700<<10))}}
}

// source is a Source the test drives.
type source struct {
	added, deleted func(namespace, name string)
}

func (s *source) follow(added, deleted func(namespace, name string)) (func() bool, error) {
	s.added, s.deleted = added, deleted
	return func() bool { return true }, nil
}

type fixture struct {
	cache  *Cache
	src    *source
	client *kubefake.Clientset
	meta   *metadatafake.FakeMetadataClient
}

func newFixture(t *testing.T, objects ...runtime.Object) *fixture {
	t.Helper()
	return newFixtureWith(t, Options{Linger: 0, SyncTimeout: 10 * time.Second}, objects...)
}

func newFixtureWith(t *testing.T, opts Options, objects ...runtime.Object) *fixture {
	t.Helper()
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	account := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: owned("opted", "sim-s-proxy", "s")}
	meta := metadatafake.NewSimpleMetadataClient(scheme, account)
	client := kubefake.NewClientset(objects...)
	c, err := New(client, meta, opts)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{cache: c, src: &source{}, client: client, meta: meta}
	if err := c.Follow(f.src.follow); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	c.Start(ctx)
	t.Cleanup(func() {
		cancel()
		c.mu.RLock()
		defer c.mu.RUnlock()
		for _, n := range c.namespaces {
			n.running.Wait()
		}
	})
	return f
}

func (f *fixture) waitFor(t *testing.T, ns string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if !f.cache.WaitForNamespace(ctx, ns) {
		t.Fatalf("namespace %s did not sync", ns)
	}
}

// TestOnlyNamespacesWithSimulators: the cache lists and watches a
// namespace from its first simulator to its last, and nothing anywhere
// else; a tenant's labelled Secret where no simulator is never read.
func TestOnlyNamespacesWithSimulators(t *testing.T) {
	f := newFixture(t,
		credentials(owned("opted", "sim-s-credentials", "s")),
		&corev1.Pod{ObjectMeta: owned("opted", "sim-s-1", "s")},
		bulky(labelled("elsewhere", "filler")),
		bulky(labelled("kube-system", "filler")),
	)
	c := f.cache
	if _, err := c.Secrets().Secrets("opted").Get("sim-s-credentials"); !apierrors.IsNotFound(err) {
		t.Errorf("before any simulator, the credentials read %v, want NotFound", err)
	}
	if got := c.Stats().Namespaces; got != 0 {
		t.Errorf("before any simulator, %d namespaces are watched", got)
	}

	f.src.added("opted", "s")
	f.waitFor(t, "opted")
	secret, err := c.Secrets().Secrets("opted").Get("sim-s-credentials")
	if err != nil {
		t.Fatalf("the simulator's credentials: %v", err)
	}
	if len(secret.Data) != len(contract.CredentialFiles) {
		t.Errorf("the credentials hold keys %v, want the credential files alone", keys(secret.Data))
	}
	if pods := c.SimulatorPods("opted", "s"); len(pods) != 1 {
		t.Errorf("the simulator's Pods: %d, want 1", len(pods))
	}
	if sa, err := c.ServiceAccounts().Namespace("opted").Get("sim-s-proxy"); err != nil || len(sa.OwnerReferences) != 1 {
		t.Errorf("the simulator's ServiceAccount: %v, %+v", err, sa)
	}
	if _, err := c.Secrets().Secrets("elsewhere").Get("filler"); !apierrors.IsNotFound(err) {
		t.Errorf("a labelled Secret where no simulator is: %v, want NotFound", err)
	}
	if all, _ := c.Secrets().List(labels.Everything()); len(all) != 1 {
		t.Errorf("the cache holds %d Secrets, want the credentials alone", len(all))
	}
	st := c.Stats()
	if st.Namespaces != 1 || st.Objects["secrets"] != 1 || st.Bytes["secrets"] > 4<<10 {
		t.Errorf("stats %+v: want 1 namespace, 1 Secret of a few hundred bytes", st)
	}

	// Nothing was ever read anywhere but in the namespace of the simulator.
	for _, a := range append(f.client.Actions(), f.meta.Actions()...) {
		if a.GetNamespace() != "opted" {
			t.Errorf("the cache %s %s in namespace %q", a.GetVerb(), a.GetResource().Resource, a.GetNamespace())
		}
		if lw, ok := a.(clienttesting.ListAction); ok && lw.GetListRestrictions().Labels.String() != sim.LabelSimulator {
			t.Errorf("the cache lists %s with selector %q", a.GetResource().Resource, lw.GetListRestrictions().Labels)
		}
	}

	// A second simulator, then both gone: the namespace is let go after
	// the last (Linger is 0 here).
	f.src.added("opted", "t")
	f.src.deleted("opted", "s")
	if got := c.Stats().Namespaces; got != 1 {
		t.Errorf("with a simulator left, %d namespaces are watched, want 1", got)
	}
	f.src.deleted("opted", "t")
	err = wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return c.Stats().Namespaces == 0, nil
	})
	if err != nil {
		t.Fatal("the namespace is still watched after its last simulator is gone")
	}
	if _, err := c.Secrets().Secrets("opted").Get("sim-s-credentials"); !apierrors.IsNotFound(err) {
		t.Errorf("after the last simulator, the credentials read %v, want NotFound", err)
	}
	if st := c.Stats(); st.Objects["secrets"]+st.Objects["pods"]+st.Objects["serviceaccounts"] != 0 {
		t.Errorf("after the last simulator, the cache holds %+v", st.Objects)
	}

	// And back with a simulator made again.
	f.src.added("opted", "s")
	f.waitFor(t, "opted")
	if _, err := c.Secrets().Secrets("opted").Get("sim-s-credentials"); err != nil {
		t.Errorf("with a simulator again, the credentials: %v", err)
	}
}

// hosted is metadata of an object of simulator s in a hosting cluster: no
// owner reference, a claim signed good or not.
func hosted(ns, name, s string, good bool) metav1.ObjectMeta {
	signature := "bad"
	if good {
		signature = "good"
	}
	return metav1.ObjectMeta{
		Namespace: ns, Name: name, UID: types.UID(ns + "/" + name),
		Labels:      map[string]string{sim.LabelSimulator: s},
		Annotations: map[string]string{"sim.x-k8s.io/owner": "serving/" + s + "/" + string(simUID), "sim.x-k8s.io/owner-signature": signature, "other": "x"},
	}
}

// signedGood stands for the signature check of a hosted cache.
func signedGood(obj metav1.Object) bool {
	return obj.GetAnnotations()["sim.x-k8s.io/owner-signature"] == "good"
}

// TestHostedCache: a cache of a hosting cluster follows the hosted kinds
// alone, never listing the kubeconfig accounts' (they stay in the serving
// cluster), and keeps whole what its Controlled accepts.
func TestHostedCache(t *testing.T) {
	f := newFixtureWith(t, Options{SyncTimeout: 10 * time.Second, Kinds: HostedKinds, Controlled: signedGood},
		&corev1.Pod{ObjectMeta: hosted("hosting", "sim-s-1", "s", true), Spec: corev1.PodSpec{NodeName: "n"}},
		&corev1.Pod{ObjectMeta: hosted("hosting", "sim-s-2", "s", false), Spec: corev1.PodSpec{NodeName: "n"}},
		&corev1.Service{ObjectMeta: hosted("hosting", "sim-s", "s", true)},
		&rbacv1.Role{ObjectMeta: hosted("hosting", "sim-s-proxy", "s", true)},
	)
	f.src.added("hosting", "s")
	f.waitFor(t, "hosting")
	byName := map[string]*corev1.Pod{}
	for _, p := range f.cache.SimulatorPods("hosting", "s") {
		byName[p.Name] = p
	}
	if p := byName["sim-s-1"]; p == nil || p.Spec.NodeName != "n" || p.Annotations["other"] != "x" {
		t.Errorf("the signed Pod is kept as %+v, want whole", p)
	}
	if p := byName["sim-s-2"]; p == nil || p.Spec.NodeName != "" || p.Annotations["other"] != "" || p.Annotations["sim.x-k8s.io/owner-signature"] != "bad" {
		t.Errorf("the Pod signed wrong is kept as %+v, want a stub with its claim", p)
	}
	if _, err := f.cache.Services().Services("hosting").Get("sim-s"); err != nil {
		t.Errorf("the simulator's Service: %v", err)
	}
	if roles, _ := f.cache.Roles().List(labels.Everything()); len(roles) != 0 {
		t.Errorf("a hosted cache holds Roles %v", roles)
	}
	if accounts, _ := f.cache.ServiceAccounts().List(labels.Everything()); len(accounts) != 0 {
		t.Errorf("a hosted cache holds ServiceAccounts %v", accounts)
	}
	if st := f.cache.Stats(); st.Objects["pods"] != 2 || st.Objects["roles"] != 0 {
		t.Errorf("stats %+v: want 2 Pods and no Role", st.Objects)
	}
	for _, a := range append(f.client.Actions(), f.meta.Actions()...) {
		if r := a.GetResource().Resource; !slices.ContainsFunc(HostedKinds, func(gvr schema.GroupVersionResource) bool { return gvr.Resource == r }) {
			t.Errorf("a hosted cache %s %s", a.GetVerb(), r)
		}
	}

	if _, err := New(f.client, f.meta, Options{Kinds: []schema.GroupVersionResource{corev1.SchemeGroupVersion.WithResource("configmaps")}}); err == nil {
		t.Error("a cache of ConfigMaps was made; the cache has no such kind")
	}
}

// TestHandlersReachEveryNamespace: a handler added once hears of the
// objects of the namespaces watched then and of those watched later, and
// nothing more once removed.
func TestHandlersReachEveryNamespace(t *testing.T) {
	f := newFixture(t,
		&corev1.Service{ObjectMeta: owned("a", "sim-s", "s")},
		&corev1.Service{ObjectMeta: owned("b", "sim-s", "s")},
	)
	var mu sync.Mutex
	seen := map[string]int{}
	handler := cache.ResourceEventHandlerFuncs{AddFunc: func(obj interface{}) {
		m := obj.(metav1.Object)
		mu.Lock()
		defer mu.Unlock()
		seen[m.GetNamespace()]++
	}}
	f.src.added("a", "s")
	f.waitFor(t, "a")
	reg, err := f.cache.AddEventHandler(handler)
	if err != nil {
		t.Fatal(err)
	}
	f.src.added("b", "s")
	f.waitFor(t, "b")
	count := func(ns string) int {
		mu.Lock()
		defer mu.Unlock()
		return seen[ns]
	}
	err = wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return count("a") > 0 && count("b") > 0, nil
	})
	if err != nil {
		t.Fatalf("the handler heard of namespace a %d times, b %d times; want both", count("a"), count("b"))
	}
	f.cache.RemoveEventHandler(reg)
	before := count("a")
	if _, err := f.client.CoreV1().Services("a").Create(t.Context(), &corev1.Service{ObjectMeta: owned("a", "sim-t", "t")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, err := f.cache.Services().Services("a").Get("sim-t")
		return err == nil, nil
	})
	if err != nil {
		t.Fatal("the new Service never reached the cache")
	}
	if got := count("a"); got != before {
		t.Errorf("a removed handler still hears of namespace a (%d events, %d before)", got, before)
	}
}

// TestWaitForNamespace waits for a namespace watched later, and gives up
// with its context.
func TestWaitForNamespace(t *testing.T) {
	f := newFixture(t)
	done := make(chan bool)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		done <- f.cache.WaitForNamespace(ctx, "later")
	}()
	time.Sleep(50 * time.Millisecond)
	f.src.added("later", "s")
	if !<-done {
		t.Error("WaitForNamespace gave up on a namespace watched while it waited")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if f.cache.WaitForNamespace(ctx, "never") {
		t.Error("WaitForNamespace of a namespace with no simulator succeeded")
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestNamespaceThatCannotBeRead: where reads fail (an opt-in withdrawn),
// readers wait for the namespace's informers SyncTimeout at most, counted
// from their start, and not again and again.
func TestNamespaceThatCannotBeRead(t *testing.T) {
	f := newFixture(t)
	forbid := func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetNamespace() != "closed" {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(action.GetResource().GroupResource(), "", nil)
	}
	f.client.PrependReactor("list", "*", forbid)
	f.meta.PrependReactor("list", "*", forbid)
	f.cache.opts.SyncTimeout = 500 * time.Millisecond
	f.src.added("closed", "s")
	start := time.Now()
	if f.cache.WaitForNamespace(t.Context(), "closed") {
		t.Fatal("a namespace that cannot be read synced")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("WaitForNamespace took %v, want about SyncTimeout", took)
	}
	start = time.Now()
	if pods := f.cache.SimulatorPods("closed", "s"); len(pods) != 0 || time.Since(start) > 100*time.Millisecond {
		t.Errorf("SimulatorPods past SyncTimeout: %d Pods in %v, want none at once", len(pods), time.Since(start))
	}
	if f.cache.WaitForNamespace(t.Context(), "closed") || time.Since(start) > time.Second {
		t.Errorf("WaitForNamespace past SyncTimeout waited %v, want false at once", time.Since(start))
	}
}

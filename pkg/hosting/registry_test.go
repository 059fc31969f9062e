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

package hosting

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clocktesting "k8s.io/utils/clock/testing"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
)

const (
	servingNS = "team-a"
	secret    = "hosting"
	hostingNS = "sims"
	linger    = time.Minute
)

// hostingPod is a simulator's Pod in a hosting cluster.
func hostingPod(name, simulator string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: hostingNS, Name: name, Labels: map[string]string{sim.LabelSimulator: simulator},
	}}
}

// kubeconfigOf is an inline kubeconfig of the cluster at https://host, with
// a token, or user if not nil.
func kubeconfigOf(t *testing.T, host string, user ...*clientcmdapi.AuthInfo) []byte {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["b"] = &clientcmdapi.Cluster{Server: "https://" + host}
	kc.AuthInfos["sims"] = &clientcmdapi.AuthInfo{Token: "hosting-token"}
	for _, u := range user {
		kc.AuthInfos["sims"] = u
	}
	kc.Contexts["b"] = &clientcmdapi.Context{Cluster: "b", AuthInfo: "sims"}
	kc.CurrentContext = "b"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func kubeconfigSecret(kubeconfig []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: servingNS, Name: secret},
		Data:       map[string][]byte{contract.SourceKeyKubeconfig: kubeconfig},
	}
}

// fixture is a registry over a fake serving cluster, whose entries' clients
// are fake clusters by the kubeconfig's host.
type fixture struct {
	reg     *Registry
	serving *fake.Clientset
	clock   *clocktesting.FakeClock
	hosts   map[string]*fake.Clientset

	mu      sync.Mutex
	configs []*rest.Config
	changes [][]string
}

func newFixture(t *testing.T, serving ...runtime.Object) *fixture {
	t.Helper()
	f := &fixture{
		serving: fake.NewClientset(serving...),
		clock:   clocktesting.NewFakeClock(time.Now()),
		hosts: map[string]*fake.Clientset{
			"a.example": fake.NewClientset(hostingPod("pod-a", "s1")),
			"b.example": fake.NewClientset(hostingPod("pod-b", "s1")),
		},
	}
	reg, err := NewRegistry(f.serving, Options{
		Cache:  hostcache.Options{SyncTimeout: 10 * time.Second, Controlled: func(metav1.Object) bool { return true }},
		Linger: linger, Clock: f.clock, NewClients: f.newClients,
		OnChange: func(simulators []string) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.changes = append(f.changes, simulators)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.reg = reg
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		reg.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return f
}

func (f *fixture) newClients(cfg *rest.Config) (kubernetes.Interface, metadata.Interface, error) {
	u, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.configs = append(f.configs, cfg)
	return f.hosts[u.Host], metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), nil
}

func (f *fixture) made() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.configs)
}

// changed says whether OnChange was told of simulators since the last call.
func (f *fixture) changed(simulators ...string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := slices.ContainsFunc(f.changes, func(got []string) bool { return slices.Equal(got, simulators) })
	f.changes = nil
	return seen
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// healthy acquires simulator and waits until its entry has clients and
// no error.
func (f *fixture) healthy(t *testing.T, simulator string) *Entry {
	t.Helper()
	f.reg.Acquire(servingNS, secret, hostingNS, simulator)
	e, ok := f.reg.Get(servingNS, secret)
	if !ok {
		t.Fatal("no entry after Acquire")
	}
	eventually(t, "the entry has clients", func() bool { return e.Health() == nil && e.Client() != nil })
	return e
}

func podNames(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// TestLifecycle: an entry starts with its first simulator, its cache
// following their hosting namespace; it outlives its last by Linger, and
// a simulator acquired meanwhile keeps it; then it stops.
func TestLifecycle(t *testing.T) {
	f := newFixture(t, kubeconfigSecret(kubeconfigOf(t, "a.example")))
	if _, ok := f.reg.Get(servingNS, secret); ok {
		t.Fatal("an entry before any simulator")
	}
	e := f.healthy(t, "team-a/s1")
	if e.Client() != f.hosts["a.example"] || e.Version() == 0 {
		t.Errorf("client %p version %d, want a.example's", e.Client(), e.Version())
	}
	if got := podNames(e.Cache().SimulatorPods(hostingNS, "s1")); !slices.Equal(got, []string{"pod-a"}) {
		t.Errorf("the cache's Pods of s1 in %s: %v", hostingNS, got)
	}
	f.reg.Acquire(servingNS, secret, hostingNS, "team-a/s2")
	if again, _ := f.reg.Get(servingNS, secret); again != e || f.made() != 1 {
		t.Errorf("a second simulator: entry %p (want %p), %d clients made (want 1)", again, e, f.made())
	}
	if got := e.Simulators(); !slices.Equal(got, []string{"team-a/s1", "team-a/s2"}) {
		t.Errorf("Simulators = %v", got)
	}
	f.reg.Release("team-a/s1")
	f.reg.Release("team-a/s2")
	f.clock.Step(linger - time.Second)
	if again, ok := f.reg.Get(servingNS, secret); !ok || again != e {
		t.Fatal("the entry went before Linger")
	}
	// Acquired within Linger: the same entry, which Linger after its next
	// last simulator stops.
	f.reg.Acquire(servingNS, secret, hostingNS, "team-a/s3")
	f.clock.Step(time.Minute)
	if again, ok := f.reg.Get(servingNS, secret); !ok || again != e {
		t.Fatal("the entry went while it hosts a simulator")
	}
	f.reg.Release("team-a/s3")
	f.clock.Step(linger)
	eventually(t, "the entry is gone", func() bool { _, ok := f.reg.Get(servingNS, secret); return !ok })
	eventually(t, "its cache stopped", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.ctx.Err() != nil && e.current.ctx.Err() != nil
	})
	f.reg.Acquire(servingNS, secret, hostingNS, "team-a/s4")
	if again, _ := f.reg.Get(servingNS, secret); again == e {
		t.Error("a stopped entry is used again")
	}
}

// TestSecretChanges: new data in the Secret makes new clients and a new
// cache, which replace the last once synced (Version changes, OnChange is
// told); the last cache stops.
func TestSecretChanges(t *testing.T) {
	f := newFixture(t, kubeconfigSecret(kubeconfigOf(t, "a.example")))
	e := f.healthy(t, "team-a/s1")
	version := e.Version()
	e.mu.Lock()
	last := e.current
	e.mu.Unlock()
	f.changed()
	if _, err := f.serving.CoreV1().Secrets(servingNS).Update(t.Context(), kubeconfigSecret(kubeconfigOf(t, "b.example")), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b.example's clients are used", func() bool { return e.Client() == f.hosts["b.example"] })
	if e.Version() == version || e.Health() != nil {
		t.Errorf("Version %d (was %d), Health %v", e.Version(), version, e.Health())
	}
	if got := podNames(e.Cache().SimulatorPods(hostingNS, "s1")); !slices.Equal(got, []string{"pod-b"}) {
		t.Errorf("the new cache's Pods of s1: %v, want b.example's", got)
	}
	if last.ctx.Err() == nil {
		t.Error("the last cache still runs")
	}
	if !f.changed("team-a/s1") {
		t.Error("OnChange was not told of the new clients")
	}
	// Labels changed, the kubeconfig not: the same clients.
	s := kubeconfigSecret(kubeconfigOf(t, "b.example"))
	s.Labels = map[string]string{"x": "y"}
	if _, err := f.serving.CoreV1().Secrets(servingNS).Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	made := f.made()
	time.Sleep(50 * time.Millisecond)
	if f.made() != made {
		t.Error("new clients for the same kubeconfig")
	}
}

// TestSwapWaitsForSync: new clients whose cache does not sync (their
// lists fail) replace none: the last stay in use; new data that syncs
// replaces them and the stalled ones.
func TestSwapWaitsForSync(t *testing.T) {
	f := newFixture(t, kubeconfigSecret(kubeconfigOf(t, "a.example")))
	stalled := fake.NewClientset()
	stalled.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("no list for you")
	})
	f.hosts["c.example"] = stalled
	e := f.healthy(t, "team-a/s1")
	if _, err := f.serving.CoreV1().Secrets(servingNS).Update(t.Context(), kubeconfigSecret(kubeconfigOf(t, "c.example")), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "c.example's clients are made", func() bool { return f.made() == 2 })
	e.mu.Lock()
	pending := e.pending
	e.mu.Unlock()
	time.Sleep(200 * time.Millisecond)
	if e.Client() != f.hosts["a.example"] || pending == nil {
		t.Fatal("clients whose cache has not synced replaced the last")
	}
	if _, err := f.serving.CoreV1().Secrets(servingNS).Update(t.Context(), kubeconfigSecret(kubeconfigOf(t, "b.example")), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "b.example's clients are used", func() bool { return e.Client() == f.hosts["b.example"] })
	if pending.ctx.Err() == nil {
		t.Error("the stalled clients' cache still runs")
	}
}

// TestSecretDeleted: without its Secret an entry keeps its last clients,
// for cleanup, and Health says the Secret is missing; the same kubeconfig
// back is the same clients.
func TestSecretDeleted(t *testing.T) {
	kubeconfig := kubeconfigOf(t, "a.example")
	f := newFixture(t, kubeconfigSecret(kubeconfig))
	e := f.healthy(t, "team-a/s1")
	client, version := e.Client(), e.Version()
	if err := f.serving.CoreV1().Secrets(servingNS).Delete(t.Context(), secret, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Health says the Secret is gone", func() bool { return errors.Is(e.Health(), ErrSecretNotFound) })
	if got := e.Health().Error(); got != "the hosting Secret team-a/hosting: not found" {
		t.Errorf("Health = %q", got)
	}
	if e.Client() != client || e.Version() != version || e.Cache() == nil {
		t.Error("the last clients are not kept for cleanup")
	}
	if !f.changed("team-a/s1") {
		t.Error("OnChange was not told")
	}
	if _, err := f.serving.CoreV1().Secrets(servingNS).Create(t.Context(), kubeconfigSecret(kubeconfig), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Health clears", func() bool { return e.Health() == nil })
	if e.Client() != client || e.Version() != version || f.made() != 1 {
		t.Error("the same kubeconfig made new clients")
	}
}

// TestSecretRefused: a missing Secret, one without the key, or a
// kubeconfig RESTConfig refuses give no clients, and Health names the
// Secret and why; refused after good data, the last clients stay.
func TestSecretRefused(t *testing.T) {
	exec := kubeconfigOf(t, "a.example", &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: "aws", APIVersion: "client.authentication.k8s.io/v1"}})
	noKey := kubeconfigSecret(nil)
	noKey.Data = map[string][]byte{"config": kubeconfigOf(t, "a.example")}
	for _, tc := range []struct {
		name    string
		objects []runtime.Object
		is      error
		want    string
	}{
		{name: "missing", is: ErrSecretNotFound, want: "the hosting Secret team-a/hosting: not found"},
		{name: "no key", objects: []runtime.Object{noKey}, is: ErrNoKubeconfig, want: `the hosting Secret team-a/hosting: no "kubeconfig" key`},
		{name: "exec plugin", objects: []runtime.Object{kubeconfigSecret(exec)},
			want: `the hosting Secret team-a/hosting: the hosting kubeconfig: user "sims" runs an exec credential plugin`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.objects...)
			f.reg.Acquire(servingNS, secret, hostingNS, "team-a/s1")
			e, _ := f.reg.Get(servingNS, secret)
			eventually(t, "the Secret is read", func() bool {
				var se *SecretError
				return errors.As(e.Health(), &se) && !errors.Is(se, ErrSecretNotRead)
			})
			if err := e.Health(); !strings.HasPrefix(err.Error(), tc.want) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Errorf("Health = %v, want %q", err, tc.want)
			}
			if e.Client() != nil || e.Cache() != nil || e.Version() != 0 || f.made() != 0 {
				t.Error("clients without a usable kubeconfig")
			}
		})
	}
	f := newFixture(t, kubeconfigSecret(kubeconfigOf(t, "a.example")))
	e := f.healthy(t, "team-a/s1")
	client := e.Client()
	if _, err := f.serving.CoreV1().Secrets(servingNS).Update(t.Context(), kubeconfigSecret(exec), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Health says the kubeconfig is refused", func() bool {
		err := e.Health()
		return err != nil && strings.Contains(err.Error(), "runs an exec credential plugin")
	})
	if e.Client() != client {
		t.Error("a refused kubeconfig dropped the last clients")
	}
}

// TestHealthOfTransport: a refusal seen by the clients' transport is the
// entry's Health, and OnChange is told; an answer clears it.
func TestHealthOfTransport(t *testing.T) {
	f := newFixture(t, kubeconfigSecret(kubeconfigOf(t, "a.example")))
	e := f.healthy(t, "team-a/s1")
	f.changed()
	status := http.StatusUnauthorized
	rt := f.configs[0].WrapTransport(roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: status, Status: http.StatusText(status), Body: http.NoBody, Request: req}, nil
	}))
	get := func() {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://a.example/api", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	get()
	if err := e.Health(); !errors.Is(err, ErrRefused) {
		t.Errorf("Health = %v, want ErrRefused", err)
	}
	if !f.changed("team-a/s1") {
		t.Error("OnChange was not told of the refusal")
	}
	status = http.StatusOK
	get()
	if err := e.Health(); err != nil || !f.changed("team-a/s1") {
		t.Errorf("Health = %v after an answer, want nil and OnChange told", err)
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// added records the names of the objects a handler is told of.
type added struct {
	mu    sync.Mutex
	names []string
}

func (a *added) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.names = append(a.names, obj.(metav1.Object).GetName())
	}}
}

func (a *added) saw(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Contains(a.names, name)
}

// TestAddEventHandler: a handler added before an entry exists, and one
// added after, see the events of its cache, and of the cache that
// replaces it.
func TestAddEventHandler(t *testing.T) {
	f := newFixture(t, kubeconfigSecret(kubeconfigOf(t, "a.example")))
	var before, after added
	if _, err := f.reg.AddEventHandler(before.handler()); err != nil {
		t.Fatal(err)
	}
	f.healthy(t, "team-a/s1")
	removeAfter, err := f.reg.AddEventHandler(after.handler())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []*added{&before, &after} {
		eventually(t, "a handler sees the Pod there", func() bool { return h.saw("pod-a") })
	}
	if _, err := f.hosts["a.example"].CoreV1().Pods(hostingNS).Create(t.Context(), hostingPod("pod-a2", "s1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []*added{&before, &after} {
		eventually(t, "a handler sees a new Pod", func() bool { return h.saw("pod-a2") })
	}
	if _, err := f.serving.CoreV1().Secrets(servingNS).Update(t.Context(), kubeconfigSecret(kubeconfigOf(t, "b.example")), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []*added{&before, &after} {
		eventually(t, "a handler sees the new cache's Pod", func() bool { return h.saw("pod-b") })
	}
	// Removed, a handler hears of nothing more, on the cache of now or
	// on one that replaces it; the others still do.
	removeAfter()
	if _, err := f.hosts["b.example"].CoreV1().Pods(hostingNS).Create(t.Context(), hostingPod("pod-b2", "s1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the handler kept sees the new Pod", func() bool { return before.saw("pod-b2") })
	if _, err := f.serving.CoreV1().Secrets(servingNS).Update(t.Context(), kubeconfigSecret(kubeconfigOf(t, "a.example")), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.hosts["a.example"].CoreV1().Pods(hostingNS).Create(t.Context(), hostingPod("pod-a3", "s1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the handler kept sees the next cache's Pod", func() bool { return before.saw("pod-a3") })
	if after.saw("pod-b2") || after.saw("pod-a3") {
		t.Error("a removed handler still hears of Pods")
	}
}

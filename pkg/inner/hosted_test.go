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

package inner_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/hosting"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
)

// seen is a request the hosting apiserver of TestHostedRoute got.
type seen struct {
	path   string
	header http.Header
}

// TestHostedRoute: a hosted simulator is reached through its hosting
// cluster's pods/proxy, with the hosting kubeconfig's credentials, to its
// server's port: its kube-apiserver behind the hop gate, with the gate's
// token from the Secret signed for it there and the caller's identity in
// the gate's headers; an answer the simulator did not mark is refused.
// Its credentials are not handed out, and a Secret there that is not
// signed for it is not used.
func TestHostedRoute(t *testing.T) {
	var mu sync.Mutex
	var requests []seen
	hostingAPI := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, seen{path: r.URL.Path, header: r.Header.Clone()})
		mu.Unlock()
		if !strings.HasSuffix(r.URL.Path, "/unmarked") {
			w.Header().Set(contract.HeaderHop, contract.HopMark)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"default"}}`)
	}))
	t.Cleanup(hostingAPI.Close)
	last := func() seen {
		mu.Lock()
		defer mu.Unlock()
		return requests[len(requests)-1]
	}

	h := newHosted(t, v1alpha1.SimulatorHostingRoutePodsProxy)
	s, pod, secret, signer := h.s, h.pod, h.secret, h.signer
	token := string(secret.Data[contract.FileHopToken])
	if token == "" {
		t.Fatal("the hosted credentials hold no hop token")
	}
	hostingCluster := kubefake.NewClientset(pod, secret)
	access := h.access(t, hostingAPI, hostingCluster)

	// The inner kube-apiserver, through the gate, as alice.
	kube := inner.TargetOf(s, s.Spec.KubeAPIServerPort)
	route, err := access.Route(kube)
	if err != nil {
		t.Fatal(err)
	}
	u, rt := route.URL, route.Transport
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, inner.At(u, "/api/v1/nodes").String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Impersonate-User", "alice")
	req.Header.Set(contract.HeaderHopImpersonateGroup, "system:masters") // a caller's own: dropped
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	got := last()
	if want := "/api/v1/namespaces/sims/pods/https:" + pod.Name + ":8443/proxy/hop/kube/api/v1/nodes"; got.path != want {
		t.Errorf("path %q, want %q", got.path, want)
	}
	for header, want := range map[string]string{
		contract.HeaderHopToken: token, contract.HeaderHopImpersonateUser: "alice", "Authorization": "Bearer hosting-token",
		"Impersonate-User": "", contract.HeaderHopImpersonateGroup: "",
	} {
		if v := got.header.Get(header); v != want {
			t.Errorf("header %s: %q, want %q", header, v, want)
		}
	}

	// The simulator server's API, with Call.
	if _, err := access.Call(t.Context(), inner.TargetOf(s, s.Spec.SimulatorServerPort), http.MethodGet, contract.PathSchedulingResults, nil, http.StatusOK, 1<<10); err != nil {
		t.Fatal(err)
	}
	if got, want := last().path, "/api/v1/namespaces/sims/pods/https:"+pod.Name+":8443/proxy"+contract.PathSchedulingResults; got != want {
		t.Errorf("Call's path %q, want %q", got, want)
	}
	// A client of RESTConfig goes the same way.
	cfg, err := access.RESTConfig(kube)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := last().path, "/api/v1/namespaces/sims/pods/https:"+pod.Name+":8443/proxy/hop/kube/api/v1/namespaces/default"; got != want {
		t.Errorf("RESTConfig's client path %q, want %q", got, want)
	}

	// The hosting apiserver's own answer is not the simulator's.
	var notFromSim *inner.NotFromSimulatorError
	if _, err := access.Call(t.Context(), inner.TargetOf(s, s.Spec.SimulatorServerPort), http.MethodGet, "/api/unmarked", nil, http.StatusOK, 1<<10); !errors.As(err, &notFromSim) {
		t.Errorf("an unmarked answer: %v, want NotFromSimulatorError", err)
	}
	if route.Credentials != nil {
		t.Error("a simulator behind its hosting cluster's pods/proxy has credentials in its route")
	}

	// A Secret there not signed for it (signed for another UID) is not used.
	stranger := secret.DeepCopy()
	other := signer.Owner(backing.Claim{Namespace: s.Namespace, Name: s.Name, UID: "uid-2"})
	if err := other.Sign(stranger); err != nil {
		t.Fatal(err)
	}
	stranger.ResourceVersion = "2"
	if _, err := hostingCluster.CoreV1().Secrets("sims").Update(t.Context(), stranger, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, err := access.Route(kube)
		return err != nil && strings.Contains(err.Error(), "not signed for the simulator"), nil
	}); err != nil {
		t.Error("a Secret signed for another simulator of the name was used")
	}
}

// hosted is a simulator team-a/example hosted in namespace sims, and its
// Pod (running, at 10.9.0.7), credentials Secret and Service there, each
// with a UID and signed for it by signer.
type hosted struct {
	s      *v1alpha1.Simulator
	pod    *corev1.Pod
	secret *corev1.Secret
	svc    *corev1.Service
	signer *backing.Signer
}

func newHosted(t *testing.T, route v1alpha1.SimulatorHostingRoute) *hosted {
	t.Helper()
	h := &hosted{s: &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "example", UID: "uid-1", Generation: 1},
		Spec: v1alpha1.SimulatorSpec{KubeAPIServerPort: 6443, SimulatorServerPort: 8443,
			Hosting: &v1alpha1.SimulatorHosting{SecretName: "hosting", Namespace: "sims", Route: route}}}}
	var err error
	if h.signer, err = backing.NewSigner(bytes.Repeat([]byte{3}, backing.MinOwnershipKeyBytes)); err != nil {
		t.Fatal(err)
	}
	place := site.RefOf(h.s).Place()
	if h.pod, err = backing.Pod(h.s, place); err != nil {
		t.Fatal(err)
	}
	if h.secret, err = backing.Secret(h.s, place); err != nil {
		t.Fatal(err)
	}
	h.svc = backing.Service(h.s, place)
	h.pod.UID, h.secret.UID, h.svc.UID = "pod-uid", "secret-uid", "svc-uid"
	h.pod.Status.PodIP = "10.9.0.7"
	// The signature covers the UID, not the spec or status the tests set.
	owner := h.signer.Owner(backing.Claim{Namespace: h.s.Namespace, Name: h.s.Name, UID: h.s.UID})
	for _, obj := range []metav1.Object{h.pod, h.secret, h.svc} {
		if err := owner.Sign(obj); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// access is an Access whose hosting cluster is api (its kubeconfig) with
// cluster as its clients, once their cache holds the simulator's Pod.
func (h *hosted) access(t *testing.T, api *httptest.Server, cluster kubernetes.Interface) *inner.Access {
	t.Helper()
	res := hostedResolver(t, api, cluster, h.signer)
	if err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		st, err := res.Of(site.RefOf(h.s))
		return err == nil && len(st.Pods(h.s.Name)) == 1 && st.Cache.WaitForNamespace(t.Context(), "sims"), nil
	}); err != nil {
		t.Fatal("the hosting cluster's cache never held the simulator's Pod")
	}
	return inner.New(nil, nil, res)
}

// hostedResolver is a site.Resolver whose registry follows the hosting
// cluster api (its kubeconfig, token "hosting-token"), with cluster as its
// clients, and has the simulator team-a/example acquired.
func hostedResolver(t *testing.T, api *httptest.Server, cluster kubernetes.Interface, signer *backing.Signer) *site.Resolver {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["h"] = &clientcmdapi.Cluster{Server: api.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw})}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "hosting-token"}
	kc.Contexts["h"] = &clientcmdapi.Context{Cluster: "h", AuthInfo: "u"}
	kc.CurrentContext = "h"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	serving := kubefake.NewClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "hosting"},
		Data: map[string][]byte{contract.SourceKeyKubeconfig: data}})
	reg, err := hosting.NewRegistry(serving, hosting.Options{
		Cache: hostcache.Options{SyncTimeout: 10 * time.Second, Controlled: func(obj metav1.Object) bool {
			_, ok := signer.Claimed(obj)
			return ok
		}},
		NewClients: func(*rest.Config) (kubernetes.Interface, metadata.Interface, error) {
			return cluster, metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
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
	reg.Acquire("team-a", "hosting", "sims", "team-a/example")
	return &site.Resolver{Hosting: reg, Signer: func() *backing.Signer { return signer }}
}

// TestHostedRouteNodePort: with route NodePort, a hosted simulator is
// reached at its Pod's node and its Service's NodePort for the port, with
// the admin certificate of the Secret signed for it there, as a local one
// at its Pod's IP; its credentials are handed out (a direct kubeconfig
// points there).
func TestHostedRouteNodePort(t *testing.T) {
	h := newHosted(t, v1alpha1.SimulatorHostingRouteNodePort)
	s, pod, secret, svc := h.s, h.pod, h.secret, h.svc
	if svc.Spec.Type != corev1.ServiceTypeNodePort {
		t.Fatalf("the Service of a simulator hosted at a NodePort is of type %q", svc.Spec.Type)
	}
	// The node is this machine; the simulator's kube-apiserver answers at
	// the NodePort.
	srv := innerServer(t, secret, tls.RequireAndVerifyClientCert)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nodePort, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == s.Spec.KubeAPIServerPort {
			svc.Spec.Ports[i].NodePort = int32(nodePort)
		}
	}
	pod.Status.HostIP = "127.0.0.1"
	access := h.access(t, httptest.NewTLSServer(http.NotFoundHandler()), kubefake.NewClientset(pod, secret, svc))
	kube := inner.TargetOf(s, s.Spec.KubeAPIServerPort)
	route, err := access.Route(kube)
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://127.0.0.1:" + port; route.URL.String() != want {
		t.Errorf("URL %s, want %s", route.URL, want)
	}
	resp, err := (&http.Client{Transport: route.Transport}).Get(route.URL.String())
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if user := resp.Header.Get(clientHeader); user != contract.AdminUser {
		t.Errorf("authenticated as %q, want the admin", user)
	}
	if creds := route.Credentials; creds == nil || len(creds.CAKey) == 0 {
		t.Error("no credentials in the route of a simulator hosted at a NodePort")
	}
	if err := route.Answers(t.Context()); err != nil {
		t.Errorf("Answers, the simulator answering at its NodePort: %v", err)
	}
	// No NodePort for the simulator server's port in this Service.
	if _, err := access.Route(inner.TargetOf(s, s.Spec.SimulatorServerPort)); err == nil || !strings.Contains(err.Error(), "no NodePort") {
		t.Errorf("a port without a NodePort: %v", err)
	}
	// Nothing listens at the NodePort: refused, tried again until ctx ends.
	srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := route.Answers(ctx); err == nil {
		t.Error("Answers, nothing listening at the NodePort: nil")
	} else if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("Answers, nothing listening at the NodePort: %v after %v, want the refusals tried again until ctx ends", err, took)
	}
}

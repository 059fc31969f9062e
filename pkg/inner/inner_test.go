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
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

// TestTransportSpeaksHTTP1 checks that the admin transport to an inner
// apiserver, which offers HTTP/2 as kube-apiserver does, speaks HTTP/1.1
// (a connection per request in flight, see newEntry), authenticates with
// the admin certificate and refuses a server whose certificate the
// simulator's CA did not sign.
func TestTransportSpeaksHTTP1(t *testing.T) {
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "sim", UID: "uid-1"}}
	secret := credentials(t, s)
	srv := innerServer(t, secret, tls.RequireAndVerifyClientCert)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := indexer.Add(secret); err != nil {
		t.Fatal(err)
	}
	pod, err := backing.Pod(s, backing.Local(s))
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.PodIP = "10.0.0.1"
	access := inner.New(pods{pod}, corelisters.NewSecretLister(indexer), nil)
	route, err := access.Route(inner.TargetOf(s, s.Spec.KubeAPIServerPort))
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://10.0.0.1:" + strconv.Itoa(int(s.Spec.KubeAPIServerPort)); route.URL.String() != want {
		t.Errorf("the route's URL is %s, want %s (the Pod's IP)", route.URL, want)
	}
	transport, ok := route.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("the transport of a local simulator is a %T, want its own *http.Transport", route.Transport)
	}
	get := func(rt http.RoundTripper, url string) (*http.Response, error) {
		resp, err := (&http.Client{Transport: rt}).Get(url)
		if err == nil {
			_ = resp.Body.Close()
		}
		return resp, err
	}
	resp, err := get(transport, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ProtoMajor != 1 {
		t.Errorf("the transport spoke %s to a server offering h2, want HTTP/1.1", resp.Proto)
	}
	if user := resp.Header.Get(clientHeader); user != contract.AdminUser {
		t.Errorf("the transport authenticated as %q, want the admin %q", user, contract.AdminUser)
	}
	// The server does speak HTTP/2 to a transport with kube's defaults, so
	// the check above can fail.
	h2 := utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: transport.TLSClientConfig.Clone()})
	if resp, err := get(h2, srv.URL); err != nil || resp.ProtoMajor != 2 {
		t.Fatalf("the test server answered a transport with kube's defaults with %v, %v; want HTTP/2", resp, err)
	}
	// A server with another simulator's certificate (its own CA) is not
	// ours, though it would take any client certificate.
	other := innerServer(t, credentials(t, &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "sim", UID: "uid-2"}}), tls.RequireAnyClientCert)
	if _, err := get(transport, other.URL); err == nil {
		t.Error("the transport accepted a server whose certificate another simulator's CA signed")
	}
}

// pods are a simulator's Pods, as the host cache gives them.
type pods []*corev1.Pod

func (p pods) SimulatorPods(string, string) []*corev1.Pod { return p }

// clientHeader carries, in innerServer's answers, the user of the client
// certificate it was called with.
const clientHeader = "X-Client-User"

func credentials(t *testing.T, s *v1alpha1.Simulator) *corev1.Secret {
	t.Helper()
	secret, err := backing.Secret(s, backing.Local(s))
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// innerServer serves as a simulator's inner apiserver would: its serving
// certificate, h2 offered first, client certificates as clientAuth says
// (verified against its CA).
func innerServer(t *testing.T, secret *corev1.Secret, clientAuth tls.ClientAuthType) *httptest.Server {
	t.Helper()
	serving, err := tls.X509KeyPair(secret.Data[contract.FileServingCert], secret.Data[contract.FileServingKey])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(secret.Data[contract.FileCACert]) {
		t.Fatal("no CA certificate in the Secret")
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(clientHeader, r.TLS.PeerCertificates[0].Subject.CommonName)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{serving},
		ClientAuth:   clientAuth,
		ClientCAs:    pool,
		NextProtos:   []string{"h2", "http/1.1"},
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

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
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
	simconfig "sigs.k8s.io/simulator-apiserver/pkg/simulator/config"
)

// TestTransportSpeaksHTTP1 checks that the admin transport to an inner
// apiserver, which offers HTTP/2 as kube-apiserver does, speaks HTTP/1.1
// (a connection per request in flight, see newEntry), verifies the server
// against the simulator's CA and authenticates with the admin certificate.
func TestTransportSpeaksHTTP1(t *testing.T) {
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "sim", UID: "uid-1"}}
	secret, err := backing.Secret(s)
	if err != nil {
		t.Fatal(err)
	}
	serving, err := tls.X509KeyPair(secret.Data[simconfig.FileServingCert], secret.Data[simconfig.FileServingKey])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(secret.Data[simconfig.FileCACert]) {
		t.Fatal("no CA certificate in the Secret")
	}

	var mu sync.Mutex
	seen := map[int]string{} // protocol major version -> client certificate's user
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.ProtoMajor] = r.TLS.PeerCertificates[0].Subject.CommonName
		mu.Unlock()
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{serving},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		NextProtos:   []string{"h2", "http/1.1"},
	}
	srv.StartTLS()
	defer srv.Close()

	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := indexer.Add(secret); err != nil {
		t.Fatal(err)
	}
	access := inner.New(nil, corelisters.NewSecretLister(indexer))
	transport, err := access.Transport(inner.Target{Namespace: s.Namespace, Name: s.Name, UID: s.UID})
	if err != nil {
		t.Fatal(err)
	}
	get := func(rt http.RoundTripper) *http.Response {
		t.Helper()
		resp, err := (&http.Client{Transport: rt}).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp
	}
	if resp := get(transport); resp.ProtoMajor != 1 {
		t.Errorf("the transport spoke %s to a server offering h2, want HTTP/1.1", resp.Proto)
	}
	// The server does speak HTTP/2 to a transport with kube's defaults, so
	// the check above can fail.
	h2 := utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: transport.TLSClientConfig.Clone()})
	if resp := get(h2); resp.ProtoMajor != 2 {
		t.Fatalf("the test server spoke %s to a transport with kube's defaults, want HTTP/2", resp.Proto)
	}
	if seen[1] != simconfig.AdminUser {
		t.Errorf("the transport authenticated as %q, want the admin %q", seen[1], simconfig.AdminUser)
	}
}

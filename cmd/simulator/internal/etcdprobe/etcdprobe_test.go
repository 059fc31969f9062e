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

package etcdprobe

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

func healthHandler(status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"health":"` + map[bool]string{true: "true", false: "false"}[status == http.StatusOK] + `"}`))
	})
}

// tlsEtcd serves /health over TLS with a certificate of its own CA and,
// like etcd with --client-cert-auth, requires a client certificate of it.
func tlsEtcd(t *testing.T) (*httptest.Server, *pki.CA) {
	t.Helper()
	ca, err := pki.NewCA("etcd-ca")
	if err != nil {
		t.Fatal(err)
	}
	serving, err := ca.IssueServing([]string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(serving.CertPEM, serving.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(healthHandler(http.StatusOK))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: ca.Pool()}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, ca
}

// tlsDir writes an etcd TLS directory: ca's certificate and a client
// certificate of signer.
func tlsDir(t *testing.T, ca, signer *pki.CA) string {
	t.Helper()
	dir := t.TempDir()
	caPair, err := ca.PEM()
	if err != nil {
		t.Fatal(err)
	}
	client, err := signer.IssueClient("simulator", nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"ca.crt": caPair.CertPEM, "tls.crt": client.CertPEM, "tls.key": client.KeyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestProbe(t *testing.T) {
	healthy := httptest.NewServer(healthHandler(http.StatusOK))
	t.Cleanup(healthy.Close)
	unhealthy := httptest.NewServer(healthHandler(http.StatusServiceUnavailable))
	t.Cleanup(unhealthy.Close)
	closed := httptest.NewServer(healthHandler(http.StatusOK))
	closed.Close()
	secure, ca := tlsEtcd(t)
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the probe followed a redirect to %s", r.URL)
		_, _ = w.Write([]byte("secret"))
	}))
	t.Cleanup(secret.Close)
	redirect := httptest.NewServer(http.RedirectHandler(secret.URL+"/metadata", http.StatusFound))
	t.Cleanup(redirect.Close)
	stranger, err := pki.NewCA("stranger")
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name   string
		urls   string
		tlsDir string
		want   string // in the error; empty: no error
	}{
		{name: "healthy", urls: healthy.URL},
		{name: "one of several answers", urls: closed.URL + "," + healthy.URL},
		{name: "refused", urls: closed.URL, want: "etcd " + closed.URL + ": dial tcp " + closed.Listener.Addr().String() + ": connect: connection refused"},
		{name: "unhealthy", urls: unhealthy.URL, want: `/health answered 503`},
		// Not followed: the answer is the redirect's status, never the page.
		{name: "a redirect to elsewhere", urls: redirect.URL, want: "/health answered 302"},
		{name: "https without etcd's CA", urls: secure.URL, want: "etcd " + secure.URL + ": tls: failed to verify certificate: x509: certificate signed by unknown authority"},
		{name: "a client certificate etcd does not accept", urls: secure.URL, tlsDir: tlsDir(t, ca, stranger), want: "etcd " + secure.URL + ": remote error: tls:"},
		{name: "its client certificate", urls: secure.URL, tlsDir: tlsDir(t, ca, ca)},
		{name: "TLS files missing", urls: secure.URL, tlsDir: t.TempDir(), want: "etcd's CA:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := config.NewOptions()
			o.EtcdURL, o.EtcdTLSDir = tc.urls, tc.tlsDir
			checkError(t, "Probe", Probe(t.Context(), o), tc.want)
		})
	}
}

func TestListening(t *testing.T) {
	// Listening, not healthy: kube-apiserver's dial succeeds.
	unhealthy := httptest.NewServer(healthHandler(http.StatusServiceUnavailable))
	t.Cleanup(unhealthy.Close)
	closed := httptest.NewServer(healthHandler(http.StatusOK))
	closed.Close()
	cases := []struct {
		name string
		urls string
		want string // in the error; empty: no error
	}{
		{name: "listening", urls: unhealthy.URL},
		{name: "one of several listens", urls: closed.URL + "," + unhealthy.URL},
		{name: "refused", urls: closed.URL, want: "etcd " + closed.URL + ": dial tcp " + closed.Listener.Addr().String() + ": connect: connection refused"},
		{name: "no port to try", urls: "http://etcd.invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := config.NewOptions()
			o.EtcdURL = tc.urls
			checkError(t, "Listening", Listening(t.Context(), o), tc.want)
		})
	}
}

// checkError checks that err is nil when want is empty, else that it
// contains want.
func checkError(t *testing.T, call string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v, want nil", call, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: %v, want an error containing %q", call, err, want)
	}
}

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

package server

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

// clientChain is the verified chain of a client certificate of ca.
func clientChain(t *testing.T, ca *pki.CA, user string, groups ...string) []*x509.Certificate {
	t.Helper()
	pair, err := ca.IssueClient(user, groups, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return []*x509.Certificate{leaf}
}

func TestAdminOnly(t *testing.T) {
	ca, err := pki.NewCA("simulator-ca")
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewCA("simulator-ca")
	if err != nil {
		t.Fatal(err)
	}
	chain := func(ca *pki.CA, user string, groups ...string) []*x509.Certificate {
		return clientChain(t, ca, user, groups...)
	}
	served := false
	h := AdminOnly(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { served = true }), ClientCertAuthenticator(ca.Pool()))
	for _, c := range []struct {
		name, method, path string
		chain              []*x509.Certificate
		preflight          bool
		want               int
	}{
		{"admin resets", http.MethodPut, contract.PathReset, chain(ca, contract.AdminUser, contract.AdminGroup), false, http.StatusOK},
		{"no certificate", http.MethodPut, contract.PathReset, nil, false, http.StatusUnauthorized},
		{"admin's name from another CA", http.MethodPut, contract.PathReset, chain(other, contract.AdminUser, contract.AdminGroup), false, http.StatusUnauthorized},
		{"a user of the CA in system:masters", http.MethodGet, contract.PathExport, chain(ca, "alice", contract.AdminGroup), false, http.StatusForbidden},
		{"the admin's name outside system:masters", http.MethodGet, contract.PathExport, chain(ca, contract.AdminUser), false, http.StatusForbidden},
		{"readiness is public", http.MethodGet, contract.PathReadyz, nil, false, http.StatusOK},
		{"health is public", http.MethodGet, contract.PathHealthz, nil, false, http.StatusOK},
		{"CORS preflight", http.MethodOptions, contract.PathSchedulerConfig, nil, true, http.StatusOK},
		{"OPTIONS that is no preflight", http.MethodOptions, contract.PathSchedulerConfig, nil, false, http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			served = false
			req := httptest.NewRequest(c.method, c.path, nil)
			if c.chain != nil {
				req.TLS = &tls.ConnectionState{PeerCertificates: c.chain}
			}
			if c.preflight {
				req.Header.Set("Access-Control-Request-Method", http.MethodPut)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.want || served != (c.want == http.StatusOK) {
				t.Errorf("%s %s = %d (served %v), want %d\n%s", c.method, c.path, rec.Code, served, c.want, rec.Body)
			}
		})
	}
}

// TestHopToken: the hop token stands for the admin on the API and the gate
// alone; a wrong or unexpected token is refused, whatever else comes with
// it, and a simulator without a token refuses every one.
func TestHopToken(t *testing.T) {
	ca, err := pki.NewCA("simulator-ca")
	if err != nil {
		t.Fatal(err)
	}
	chain := func(user string, groups ...string) []*x509.Certificate {
		return clientChain(t, ca, user, groups...)
	}
	served := false
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { served = true })
	gated := AdminOnly(next, union.NewFailOnError(HopTokenAuthenticator([]byte("s3cret")), ClientCertAuthenticator(ca.Pool())))
	notHosted := AdminOnly(next, union.NewFailOnError(HopTokenAuthenticator(nil), ClientCertAuthenticator(ca.Pool())))
	for _, c := range []struct {
		name, method, path string
		h                  http.Handler
		token              *string
		chain              []*x509.Certificate
		preflight          bool
		want               int
	}{
		{"the API", http.MethodPut, contract.PathReset, gated, ptr.To("s3cret"), nil, false, http.StatusOK},
		{"the gate", http.MethodGet, contract.PathHop + "api/v1/namespaces", gated, ptr.To("s3cret"), nil, false, http.StatusOK},
		{"no token", http.MethodGet, contract.PathHop + "api/v1/namespaces", gated, nil, nil, false, http.StatusUnauthorized},
		{"a wrong token", http.MethodGet, contract.PathHop + "api/v1/namespaces", gated, ptr.To("s3cre"), nil, false, http.StatusUnauthorized},
		{"an empty token", http.MethodPut, contract.PathReset, gated, ptr.To(""), nil, false, http.StatusUnauthorized},
		{"a wrong token beside the admin's certificate", http.MethodPut, contract.PathReset, gated, ptr.To("x"), chain(contract.AdminUser, contract.AdminGroup), false, http.StatusUnauthorized},
		{"the debug paths are the admin's", http.MethodGet, contract.PathProcesses, gated, ptr.To("s3cret"), nil, false, http.StatusForbidden},
		{"nor through the API's prefix", http.MethodGet, "/api/../debug/processes", gated, ptr.To("s3cret"), nil, false, http.StatusForbidden},
		{"a certificate named as the hop", http.MethodPut, contract.PathReset, gated, nil, chain(HopUser, contract.AdminGroup), false, http.StatusForbidden},
		{"no preflight through the gate", http.MethodOptions, contract.PathHop + "api", gated, nil, nil, true, http.StatusUnauthorized},
		{"the admin without a token", http.MethodPut, contract.PathReset, gated, nil, chain(contract.AdminUser, contract.AdminGroup), false, http.StatusOK},
		{"not hosted: the token is refused", http.MethodGet, contract.PathHop + "api", notHosted, ptr.To(""), nil, false, http.StatusUnauthorized},
		{"not hosted: the admin as before", http.MethodPut, contract.PathReset, notHosted, nil, chain(contract.AdminUser, contract.AdminGroup), false, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			served = false
			req := httptest.NewRequest(c.method, c.path, nil)
			if c.token != nil {
				req.Header.Set(contract.HeaderHopToken, *c.token)
			}
			if c.chain != nil {
				req.TLS = &tls.ConnectionState{PeerCertificates: c.chain}
			}
			if c.preflight {
				req.Header.Set("Access-Control-Request-Method", http.MethodGet)
			}
			rec := httptest.NewRecorder()
			c.h.ServeHTTP(rec, req)
			if rec.Code != c.want || served != (c.want == http.StatusOK) {
				t.Errorf("%s %s = %d (served %v), want %d\n%s", c.method, c.path, rec.Code, served, c.want, rec.Body)
			}
		})
	}
}

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

package request

import (
	"crypto/tls"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

// TestDo makes each kind of request against a TLS server that asks for a
// client certificate and names one CA it accepts (as kube-apiserver does)
// and answers with what it received.
func TestDo(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	accepted, err := pki.NewCA("accepted")
	if err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewCA("other")
	if err != nil {
		t.Fatal(err)
	}
	forged, err := other.IssueClient("admin", []string{"system:masters"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := write("forged.crt", forged.CertPEM), write("forged.key", forged.KeyPEM)
	tokenFile := write("token", []byte("secret-token\n"))

	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case len(r.TLS.PeerCertificates) > 0:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte("certificate of " + r.TLS.PeerCertificates[0].Subject.CommonName))
		case r.Header.Get("Authorization") != "":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(r.Header.Get("Authorization")))
		default:
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(r.Method + " " + r.URL.Path + " " + strings.Repeat("x", 2*bodyExcerpt)))
		}
	}))
	server.TLS = &tls.Config{ClientAuth: tls.RequestClientCert, ClientCAs: accepted.Pool()}
	server.StartTLS()
	defer server.Close()
	serverCA := write("server-ca.crt", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw}))

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + listener.Addr().String()
	_ = listener.Close()

	for _, tc := range []struct {
		spec       Spec
		wantStatus int
		wantBody   string // prefix
		wantError  string // substring
	}{
		{spec: Spec{URL: server.URL + "/a"}, wantStatus: http.StatusForbidden, wantBody: "GET /a xx"},
		{spec: Spec{Method: http.MethodPut, URL: server.URL + "/b", CAFile: serverCA}, wantStatus: http.StatusForbidden, wantBody: "PUT /b"},
		{spec: Spec{URL: server.URL, CertFile: certFile, KeyFile: keyFile}, wantStatus: http.StatusUnauthorized, wantBody: "certificate of admin"},
		{spec: Spec{URL: server.URL, BearerTokenFile: tokenFile}, wantStatus: http.StatusUnauthorized, wantBody: "Bearer secret-token"},
		{spec: Spec{URL: strings.Replace(server.URL, "https://", "http://", 1)}, wantStatus: http.StatusBadRequest, wantBody: "Client sent an HTTP request to an HTTPS server"},
		{spec: Spec{URL: server.URL, CAFile: certFile}, wantError: "certificate signed by unknown authority"},
		{spec: Spec{URL: closed}, wantError: "connection refused"},
		{spec: Spec{URL: server.URL, CertFile: certFile}, wantError: "no such file"},
	} {
		tc.spec.Name = "r"
		got := Do(t.Context(), tc.spec, 10*time.Second)
		if got.Name != "r" || got.Status != tc.wantStatus || !strings.HasPrefix(got.Body, tc.wantBody) || len(got.Body) > bodyExcerpt ||
			(tc.wantError == "") != (got.Error == "") || !strings.Contains(got.Error, tc.wantError) {
			t.Errorf("Do(%+v) = %+v, want status %d, body %q…, error containing %q", tc.spec, got, tc.wantStatus, tc.wantBody, tc.wantError)
		}
	}
}

// TestArgsAndResults: what a test encodes the client decodes, and what the
// client prints the test reads back; anything else is refused.
func TestArgsAndResults(t *testing.T) {
	specs := []Spec{{Name: "a", URL: "https://x"}, {Name: "b", Method: http.MethodPut, URL: "http://y", CertFile: "/c", KeyFile: "/k", BearerTokenFile: "/t"}}
	args, err := Args(specs...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseArgs(args)
	if err != nil || len(got) != 2 || got[0] != specs[0] || got[1] != specs[1] {
		t.Errorf("ParseArgs(Args(%v)) = %v, %v", specs, got, err)
	}
	for _, bad := range [][]string{
		{`{"url":"https://x"}`},
		{`{"name":"a"}`},
		{`{"name":"a","url":"https://x","cert":"/c"}`},
		{`{"name":"a","url":"https://x"}`, `{"name":"a","url":"https://y"}`},
		{`GET https://x`},
	} {
		if _, err := ParseArgs(bad); err == nil {
			t.Errorf("ParseArgs(%q) succeeded", bad)
		}
	}

	results, err := ParseResults(`{"name":"a","status":401,"body":"no"}` + "\n\n" + `{"name":"b","error":"refused"}` + "\n")
	if err != nil || len(results) != 2 || results["a"].Status != 401 || results["b"].Error != "refused" {
		t.Errorf("ParseResults = %v, %v", results, err)
	}
	for _, bad := range []string{"hello\n", `{"status":200}`, `{"name":"a","status":200}` + "\n" + `{"name":"a","status":401}`, `{"name":"a","code":200}`} {
		if _, err := ParseResults(bad); err == nil {
			t.Errorf("ParseResults(%q) succeeded", bad)
		}
	}
}

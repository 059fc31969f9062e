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
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
)

// TestHealth: a 401 answer, a 403 to a read, or a request that reaches
// nobody, is recorded; an answer that is neither clears it; a 5xx, a 403
// to a write (admission's: a quota, a policy) or a request its caller gave
// up leaves it; onChange is told of each change, not of a
// repeat (of the same answer to another request either).
func TestHealth(t *testing.T) {
	// The status to answer is the path's last element.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:])
		w.WriteHeader(code)
	}))
	defer srv.Close()
	host := srv.Listener.Addr().String()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	var changes atomic.Int32
	h := NewHealth(func() { changes.Add(1) })
	client := &http.Client{Transport: h.Wrap(http.DefaultTransport)}
	do := func(ctx context.Context, method, url string) {
		req, err := http.NewRequestWithContext(ctx, method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	for _, step := range []struct {
		name   string
		ctx    context.Context
		method string // GET if empty
		url    string
		// want is the error kind after the step (nil: healthy), wantText
		// a part of its message, wantChanges the calls of onChange so far.
		want        error
		wantText    string
		wantChanges int32
	}{
		{name: "a success", url: srv.URL + "/api/200"},
		{name: "401", url: srv.URL + "/api/v1/pods/401", want: ErrRefused, wantText: host + " answered 401 Unauthorized", wantChanges: 1},
		{name: "a 401 to another request", url: srv.URL + "/api/v1/services/401", want: ErrRefused, wantChanges: 1},
		{name: "a 500 tells nothing", url: srv.URL + "/api/500", want: ErrRefused, wantChanges: 1},
		{name: "a 404 is an answer", url: srv.URL + "/api/v1/pods/x/404", wantChanges: 2},
		{name: "403", url: srv.URL + "/api/v1/secrets/403", want: ErrRefused, wantText: "answered 403 Forbidden", wantChanges: 3},
		{name: "cleared by a success", url: srv.URL + "/api/200", wantChanges: 4},
		{name: "a write refused by admission tells nothing", method: http.MethodPost, url: srv.URL + "/api/v1/pods/403", wantChanges: 4},
		{name: "nobody listens", url: closed.URL + "/api/200", want: ErrUnreachable, wantText: closed.Listener.Addr().String() + ": ", wantChanges: 5},
		{name: "a request given up tells nothing", ctx: canceled, url: srv.URL + "/api/200", want: ErrUnreachable, wantChanges: 5},
		{name: "cleared again", url: srv.URL + "/api/201", wantChanges: 6},
	} {
		ctx := step.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		method := step.method
		if method == "" {
			method = http.MethodGet
		}
		do(ctx, method, step.url)
		err := h.Err()
		if (step.want == nil) != (err == nil) || (step.want != nil && !errors.Is(err, step.want)) || (err != nil && !strings.Contains(err.Error(), step.wantText)) {
			t.Errorf("%s: Err() = %v, want %v with %q", step.name, err, step.want, step.wantText)
		}
		if got := changes.Load(); got != step.wantChanges {
			t.Errorf("%s: %d changes told, want %d", step.name, got, step.wantChanges)
		}
	}
}

// TestHealthOfAClient: wrapped into the transport of a hosting kubeconfig's
// client, Health sees a TLS failure (a server other than the kubeconfig's
// CA vouches for) and the server's 401 once the CA is right.
func TestHealthOfAClient(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "who?", http.StatusUnauthorized)
	}))
	defer srv.Close()
	otherCA, _, err := certutil.GenerateSelfSignedCertKey("other", nil, nil)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		ca   []byte
		want error
	}{
		{"another CA", otherCA, ErrUnreachable},
		{"its CA", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), ErrRefused},
	} {
		cfg := &rest.Config{Host: srv.URL, BearerToken: "hosting-token", TLSClientConfig: rest.TLSClientConfig{CAData: tc.ca}}
		h := NewHealth(nil)
		cfg.Wrap(h.Wrap)
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := client.Get(srv.URL + "/api/v1/namespaces/sims/pods"); err == nil {
			_ = resp.Body.Close()
		}
		if err := h.Err(); !errors.Is(err, tc.want) {
			t.Errorf("%s: Err() = %v, want %v", tc.name, err, tc.want)
		}
	}
}

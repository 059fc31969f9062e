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

package inprocess

import (
	"bufio"
	"context"
	"crypto"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

const server = "http://kube-apiserver.in-process"

// newTransport returns a transport for the user of a self-signed client
// certificate, admin in groups system:masters and team.
func newTransport(t *testing.T, fallback http.RoundTripper) *Transport {
	t.Helper()
	key, err := keyutil.MakeEllipticPrivateKeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := keyutil.ParsePrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	signer, ok := parsed.(crypto.Signer)
	if !ok {
		t.Fatalf("key %T", parsed)
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "admin", Organization: []string{"system:masters", "team"}}, signer)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "admin.crt")
	pem, err := certutil.EncodeCertificates(cert)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := New(server, path, fallback)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestRoundTrip(t *testing.T) {
	tr := newTransport(t, nil)
	var seen *http.Request
	tr.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusCreated)
		// Set after the status: not the response's.
		w.Header().Set("X-Late", "1")
		_, _ = io.WriteString(w, "got "+string(body))
	}))
	req, err := http.NewRequest(http.MethodPost, server+"/api/v1/namespaces/default/pods?fieldManager=me", strings.NewReader("pod"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || resp.Status != "201 Created" || string(body) != "got pod" {
		t.Errorf("response %q %q, want 201 Created \"got pod\"", resp.Status, body)
	}
	if resp.Header.Get("Content-Type") != "text/plain" || resp.Header.Get("X-Late") != "" {
		t.Errorf("response headers %v, want the Content-Type set before the status only", resp.Header)
	}
	if seen.RequestURI != "/api/v1/namespaces/default/pods?fieldManager=me" || seen.URL.Host != "" || seen.URL.Query().Get("fieldManager") != "me" {
		t.Errorf("handler saw RequestURI %q URL %v, want a server's request", seen.RequestURI, seen.URL)
	}
	if seen.Header.Get("Accept") != "application/vnd.kubernetes.protobuf" || seen.RemoteAddr == "" || seen.ProtoMajor != 1 {
		t.Errorf("handler saw headers %v remote %q proto %d", seen.Header, seen.RemoteAddr, seen.ProtoMajor)
	}
}

// The requests carry the transport's token, whatever they said, and the
// token file says it is the certificate's user and groups.
func TestTokenFile(t *testing.T) {
	tr := newTransport(t, nil)
	var auth string
	tr.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { auth = r.Header.Get("Authorization") }))
	req, _ := http.NewRequest(http.MethodGet, server+"/api", nil)
	req.Header.Set("Authorization", "Bearer someone-else")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	path, err := tr.TokenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	authn, err := tokenfile.NewCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || token == "someone-else" {
		t.Fatalf("Authorization %q, want the transport's bearer token", auth)
	}
	got, ok, err := authn.AuthenticateToken(context.Background(), token)
	if err != nil || !ok {
		t.Fatalf("the token file does not know the request's token: %v %v", ok, err)
	}
	if got.User.GetName() != "admin" || !slices.Equal(slices.Sorted(slices.Values(got.User.GetGroups())), []string{"system:masters", "team"}) {
		t.Errorf("the token is %s %v, want the certificate's admin [system:masters team]", got.User.GetName(), got.User.GetGroups())
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, %v; want 0600", st.Mode(), err)
	}
	other := newTransport(t, nil)
	if other.token == tr.token {
		t.Error("two transports share a token")
	}
}

// A watch: flushed events reach the client as they are written, and the
// client closing the body ends the handler's request.
func TestStreamAndClose(t *testing.T) {
	tr := newTransport(t, nil)
	ended := make(chan error, 1)
	tr.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flusher, ok := w.(http.Flusher)
		if !ok {
			ended <- errors.New("no http.Flusher")
			return
		}
		for i := 0; ; i++ {
			_, _ = io.WriteString(w, "event\n")
			flusher.Flush()
			select {
			case <-r.Context().Done():
				ended <- nil
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}))
	req, _ := http.NewRequest(http.MethodGet, server+"/api/v1/pods?watch=true", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(resp.Body)
	for range 3 {
		if !lines.Scan() || lines.Text() != "event" {
			t.Fatalf("read %q, %v; want events as flushed", lines.Text(), lines.Err())
		}
	}
	_ = resp.Body.Close()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's request did not end when the client closed the body")
	}
}

func TestRefusedUntilServedAndAfterStop(t *testing.T) {
	tr := newTransport(t, nil)
	get := func() error {
		req, _ := http.NewRequest(http.MethodGet, server+"/readyz", nil)
		resp, err := tr.RoundTrip(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		return err
	}
	if err := get(); !utilnet.IsConnectionRefused(err) {
		t.Errorf("before Serve: %v, want connection refused", err)
	}
	tr.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	if err := get(); err != nil {
		t.Errorf("served: %v", err)
	}
	tr.Stop()
	if err := get(); !utilnet.IsConnectionRefused(err) {
		t.Errorf("after Stop: %v, want connection refused", err)
	}
}

// A handler that panics before its response breaks the request, as a
// connection reset would; after its status, it breaks the body.
func TestPanic(t *testing.T) {
	tr := newTransport(t, nil)
	tr.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/late" {
			_, _ = io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
		}
		panic(http.ErrAbortHandler)
	}))
	req, _ := http.NewRequest(http.MethodGet, server+"/early", nil)
	if _, err := tr.RoundTrip(req); err == nil {
		t.Error("early panic: no error")
	}
	req, _ = http.NewRequest(http.MethodGet, server+"/late", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if string(body) != "partial" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("late panic: read %q, %v; want the partial body, then unexpected EOF", body, err)
	}
}

// A client whose request is cancelled before the response gets its
// context's error.
func TestCancelledBeforeResponse(t *testing.T) {
	tr := newTransport(t, nil)
	tr.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, server+"/slow", nil)
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the request's deadline", err)
	}
}

// Any other server is the fallback's.
func TestFallback(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "other") }))
	defer other.Close()
	tr := newTransport(t, other.Client().Transport)
	tr.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "in-process") }))
	for url, want := range map[string]string{other.URL: "other", server + "/": "in-process"} {
		resp, err := (&http.Client{Transport: tr}).Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if string(body) != want {
			t.Errorf("GET %s = %q, want %q", url, body, want)
		}
	}
}

func TestNewRefusesOtherURLs(t *testing.T) {
	for _, s := range []string{"https://host", "http://", "http://host/path", "::"} {
		if _, err := New(s, "unused", nil); err == nil {
			t.Errorf("New(%q): no error", s)
		}
	}
}

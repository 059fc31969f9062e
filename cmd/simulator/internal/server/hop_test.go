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
	"bufio"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	"k8s.io/client-go/rest"
)

const hopToken = "s3cret"

// echo is what the stand-in kube-apiserver saw of a request.
type echo struct {
	URI    string      `json:"uri"`
	Header http.Header `json:"header"`
}

// hopFixture is a simulator server with the gate in front of an httptest
// stand-in for the inner kube-apiserver: /echo answers what it saw, /watch
// writes one event and the second once told (next), /upgrade switches to
// a line echo.
type hopFixture struct {
	front *httptest.Server
	// next lets /watch write its second event; secondLate says it wrote it
	// after waiting in vain.
	next       chan struct{}
	secondLate chan bool
}

func newHopFixture(t *testing.T, token []byte) *hopFixture {
	f := &hopFixture{next: make(chan struct{}), secondLate: make(chan bool, 1)}
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A mark of its own would make the caller take another's answer
		// for the simulator's.
		w.Header().Set(contract.HeaderHop, "forged")
		switch r.URL.Path {
		case "/echo":
			writeJSON(w, http.StatusOK, echo{URI: r.URL.RequestURI(), Header: r.Header})
		case "/watch":
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, `{"type":"ADDED"}`+"\n")
			w.(http.Flusher).Flush()
			select {
			case <-f.next:
				f.secondLate <- false
			case <-time.After(10 * time.Second):
				f.secondLate <- true
			}
			_, _ = io.WriteString(w, `{"type":"MODIFIED"}`+"\n")
		case "/upgrade":
			conn, rw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer func() { _ = conn.Close() }()
			_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n")
			_ = rw.Flush()
			line, _ := rw.ReadString('\n')
			_, _ = rw.WriteString("echo " + line)
			_ = rw.Flush()
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(backend.Close)
	// The gate's own transport, trusting the stand-in as it would the
	// simulator CA.
	transport, err := HopTransport(&rest.Config{Host: backend.URL, TLSClientConfig: rest.TLSClientConfig{
		CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: backend.Certificate().Raw}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	var hop http.Handler
	if len(token) > 0 {
		hop = HopProxy(target, transport)
	}
	f.front = httptest.NewServer(Marked(AdminOnly(NewHandler(Config{Hop: hop}), HopTokenAuthenticator(token))))
	t.Cleanup(f.front.Close)
	return f
}

func (f *hopFixture) get(t *testing.T, path string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.front.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := f.front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

func marked(resp *http.Response) bool {
	return slices.Equal(resp.Header.Values(contract.HeaderHop), []string{contract.HopMark})
}

// TestHopGate: a request with the token reaches kube-apiserver, its path
// without the prefix, as the identity of its X-Simulator-Impersonate-*,
// never of the Impersonate-* it came with, and without the token; every
// answer, the gate's refusals too, is marked.
func TestHopGate(t *testing.T) {
	f := newHopFixture(t, []byte(hopToken))
	header := http.Header{}
	header.Set(contract.HeaderHopToken, hopToken)
	header.Set("Authorization", "Bearer of-the-hosting-cluster")
	header.Set("Impersonate-User", "mallory")
	header.Add("Impersonate-Group", "system:masters")
	header.Set("Impersonate-Extra-Scopes", "all")
	header.Set(contract.HeaderHopImpersonateUser, "alice")
	header.Set(contract.HeaderHopImpersonateUID, "42")
	header.Add(contract.HeaderHopImpersonateGroup, "team-a")
	header.Add(contract.HeaderHopImpersonateGroup, "system:authenticated")
	header.Set(contract.HeaderHopImpersonateExtraPrefix+"Reason", "review")
	header.Set("Accept", "application/json")
	resp := f.get(t, contract.PathHop+"echo?labelSelector=a%3Db", header)
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET through the gate = %d: %s", resp.StatusCode, body)
	}
	if !marked(resp) {
		t.Errorf("the answer's %s = %q, want %q alone", contract.HeaderHop, resp.Header.Values(contract.HeaderHop), contract.HopMark)
	}
	var got echo
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.URI != "/echo?labelSelector=a%3Db" {
		t.Errorf("kube-apiserver was asked for %q, want the path without %s", got.URI, contract.PathHop)
	}
	want := map[string][]string{
		"Impersonate-User":         {"alice"},
		"Impersonate-Uid":          {"42"},
		"Impersonate-Group":        {"team-a", "system:authenticated"},
		"Impersonate-Extra-Reason": {"review"},
		"Accept":                   {"application/json"},
	}
	for k, v := range want {
		if !slices.Equal(got.Header[k], v) {
			t.Errorf("kube-apiserver saw %s: %q, want %q", k, got.Header[k], v)
		}
	}
	for k := range got.Header {
		lower := strings.ToLower(k)
		if lower == "authorization" || strings.HasPrefix(lower, "x-simulator-") ||
			(strings.HasPrefix(lower, "impersonate-") && want[k] == nil) {
			t.Errorf("kube-apiserver saw %s: %q, want none", k, got.Header[k])
		}
	}

	for name, token := range map[string]string{"no token": "", "a wrong token": "s3cre"} {
		header := http.Header{}
		if token != "" {
			header.Set(contract.HeaderHopToken, token)
		}
		resp := f.get(t, contract.PathHop+"echo", header)
		if resp.StatusCode != http.StatusUnauthorized || !marked(resp) {
			t.Errorf("%s: %d marked %v, want %d marked", name, resp.StatusCode, marked(resp), http.StatusUnauthorized)
		}
	}
}

// TestHopGateNotHosted: without a hop token (the credentials of a simulator
// that is not hosted) the gate refuses every request.
func TestHopGateNotHosted(t *testing.T) {
	f := newHopFixture(t, nil)
	for _, token := range []string{"", hopToken} {
		header := http.Header{}
		header.Set(contract.HeaderHopToken, token)
		if resp := f.get(t, contract.PathHop+"echo", header); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: %d, want %d", token, resp.StatusCode, http.StatusUnauthorized)
		}
	}
}

// TestHopGateStreams: a watch's event reaches the caller as kube-apiserver
// writes it, not when the next one comes.
func TestHopGateStreams(t *testing.T) {
	f := newHopFixture(t, []byte(hopToken))
	header := http.Header{}
	header.Set(contract.HeaderHopToken, hopToken)
	resp := f.get(t, contract.PathHop+"watch", header)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch through the gate = %d", resp.StatusCode)
	}
	lines := bufio.NewReader(resp.Body)
	first, err := lines.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	close(f.next)
	if <-f.secondLate {
		t.Fatal("the first event reached the caller only with the second")
	}
	second, err := lines.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first, "ADDED") || !strings.Contains(second, "MODIFIED") {
		t.Errorf("events %q, %q; want ADDED then MODIFIED", first, second)
	}
}

// TestHopGateUpgrades: an upgraded connection (exec, port-forward) goes
// both ways through the gate.
func TestHopGateUpgrades(t *testing.T) {
	f := newHopFixture(t, []byte(hopToken))
	conn, err := net.DialTimeout("tcp", f.front.Listener.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	_, err = fmt.Fprintf(conn, "GET %supgrade HTTP/1.1\r\nHost: simulator\r\n%s: %s\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n",
		contract.PathHop, contract.HeaderHopToken, hopToken)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || !marked(resp) {
		t.Fatalf("upgrade through the gate = %d marked %v, want %d marked", resp.StatusCode, marked(resp), http.StatusSwitchingProtocols)
	}
	if _, err := io.WriteString(conn, "ping\n"); err != nil {
		t.Fatal(err)
	}
	line, err := r.ReadString('\n')
	if err != nil || line != "echo ping\n" {
		t.Errorf("after the upgrade: %q, %v; want %q", line, err, "echo ping\n")
	}
}

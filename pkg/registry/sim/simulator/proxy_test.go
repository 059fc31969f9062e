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

package simulator

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/gorilla/websocket"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	clientspdy "k8s.io/client-go/transport/spdy"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

// backend stands in for an inner kube-apiserver.
func backend(t testing.TB, release <-chan struct{}) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo/", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]interface{}{"path": r.URL.Path, "query": r.URL.RawQuery, "header": r.Header})
	})
	mux.HandleFunc("/watch", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		<-release
		_, _ = io.WriteString(w, "second\n")
	})
	mux.HandleFunc("/spdy", func(w http.ResponseWriter, r *http.Request) {
		if _, err := httpstream.Handshake(r, w, []string{"echo.v1"}); err != nil {
			return
		}
		streams := make(chan httpstream.Stream, 1)
		conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, _ <-chan struct{}) error {
			streams <- s
			return nil
		})
		if conn == nil {
			return
		}
		defer conn.Close() //nolint:errcheck
		s := <-streams
		_, _ = io.Copy(s, s)
	})
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close() //nolint:errcheck
		for {
			mt, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			if err := c.WriteMessage(mt, append([]byte("echo:"), msg...)); err != nil {
				return
			}
		}
	})
	srv := httptest.NewTLSServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

type fakeResponder struct{ w http.ResponseWriter }

func (r fakeResponder) Object(code int, _ runtime.Object) { r.w.WriteHeader(code) }
func (r fakeResponder) Error(err error) {
	code := http.StatusInternalServerError
	if s, ok := err.(apierrors.APIStatus); ok {
		code = int(s.Status().Code)
	}
	http.Error(r.w, err.Error(), code)
}

// front serves proxyHandler the way Connect builds it, for caller, allowing
// upgrades only if allowUpgrade.
func front(t *testing.T, back *httptest.Server, caller user.Info, allowUpgrade bool) *httptest.Server {
	backURL, _ := url.Parse(back.URL)
	authz := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetVerb() == "create" && a.GetSubresource() == "proxy" && allowUpgrade {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionDeny, "denied by test", nil
	})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		loc := *backURL
		loc.Path = r.URL.Path
		h := &proxyHandler{
			simulator:  &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}},
			caller:     caller,
			location:   &loc,
			transport:  back.Client().Transport,
			responder:  fakeResponder{w},
			authorizer: authz,
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var alice = &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"scopes.example/x": {"a"}}}

func TestProxyImpersonatesTheCaller(t *testing.T) {
	back := backend(t, nil)
	f := front(t, back, alice, false)
	req, _ := http.NewRequest(http.MethodGet, f.URL+"/echo/api/v1/nodes?limit=1", nil)
	req.Header.Set("Authorization", "Bearer stolen")
	req.Header.Set("Impersonate-User", "system:admin")
	req.Header.Add("Impersonate-Group", "system:masters")
	req.Header.Set("Impersonate-Extra-Foo", "bar")
	req.Header.Set("X-Remote-User", "mallory")
	req.Header.Set("Accept", "application/json")
	resp, err := f.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() //nolint:errcheck
	var got struct {
		Path   string
		Query  string
		Header http.Header
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Path != "/echo/api/v1/nodes" || got.Query != "limit=1" {
		t.Errorf("forwarded %s?%s", got.Path, got.Query)
	}
	h := got.Header
	if h.Get("Authorization") != "" || h.Get("X-Remote-User") != "" || h.Get("Impersonate-Extra-Foo") != "" {
		t.Errorf("caller credentials reached the backend: %v", h)
	}
	if h.Get("Impersonate-User") != "alice" || h.Get("Impersonate-Uid") != "u-1" {
		t.Errorf("Impersonate-User %q Uid %q", h.Get("Impersonate-User"), h.Get("Impersonate-Uid"))
	}
	if groups := h.Values("Impersonate-Group"); strings.Join(groups, ",") != "dev,system:authenticated" {
		t.Errorf("Impersonate-Group %v", groups)
	}
	if v := h.Get("Impersonate-Extra-Scopes.example%2Fx"); v != "a" {
		t.Errorf("escaped extra header missing: %v", h)
	}
	if h.Get("Accept") != "application/json" {
		t.Error("ordinary headers must pass")
	}
}

// TestProxyIdentitySurvivesConnectionHeader: a caller names the identity
// headers as hop-by-hop, so that the reverse proxy deletes them after they
// were set and the inner apiserver sees the server's admin certificate alone.
func TestProxyIdentitySurvivesConnectionHeader(t *testing.T) {
	back := backend(t, nil)
	f := front(t, back, alice, false)
	req, _ := http.NewRequest(http.MethodGet, f.URL+"/echo/api", nil)
	req.Header.Set("Connection", "Impersonate-User, Impersonate-Group, Impersonate-Uid, Impersonate-Extra-Scopes.example%2Fx")
	resp, err := f.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() //nolint:errcheck
	var got struct{ Header http.Header }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	h := got.Header
	if h.Get("Impersonate-User") != "alice" || h.Get("Impersonate-Uid") != "u-1" || len(h.Values("Impersonate-Group")) != 2 || h.Get("Impersonate-Extra-Scopes.example%2Fx") != "a" {
		t.Errorf("the caller's identity did not reach the backend whole: %v", h)
	}
}

func TestProxyStreamsWithoutBuffering(t *testing.T) {
	release := make(chan struct{})
	back := backend(t, release)
	f := front(t, back, alice, false)
	resp, err := f.Client().Get(f.URL + "/watch")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() //nolint:errcheck
	lines := bufio.NewReader(resp.Body)
	first := make(chan string, 1)
	go func() { l, _ := lines.ReadString('\n'); first <- l }()
	select {
	case l := <-first:
		if l != "first\n" {
			t.Errorf("first line %q", l)
		}
	case <-time.After(time.Minute):
		t.Fatal("the first event did not arrive while the backend kept the response open")
	}
	close(release)
	if l, _ := lines.ReadString('\n'); l != "second\n" {
		t.Errorf("second line %q", l)
	}
}

func TestProxySPDYUpgrade(t *testing.T) {
	back := backend(t, nil)
	for _, allowed := range []bool{true, false} {
		f := front(t, back, alice, allowed)
		ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.Certificate().Raw})
		rt, upgrader, err := clientspdy.RoundTripperFor(&rest.Config{Host: f.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}})
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(f.URL + "/spdy")
		conn, proto, err := clientspdy.NewDialer(upgrader, &http.Client{Transport: rt}, http.MethodPost, u).Dial("echo.v1")
		if !allowed {
			if err == nil {
				conn.Close() //nolint:errcheck
				t.Fatal("an upgrade without create on simulators/proxy must be refused")
			}
			continue
		}
		if err != nil {
			t.Fatalf("SPDY dial through the proxy: %v", err)
		}
		if proto != "echo.v1" {
			t.Errorf("negotiated %q", proto)
		}
		s, err := conn.CreateStream(http.Header{"Streamtype": {"data"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(s, buf); err != nil || string(buf) != "ping" {
			t.Errorf("echo %q, %v", buf, err)
		}
		conn.Close() //nolint:errcheck
	}
}

func TestProxyWebSocketUpgrade(t *testing.T) {
	back := backend(t, nil)
	for _, allowed := range []bool{true, false} {
		f := front(t, back, alice, allowed)
		d := websocket.Dialer{TLSClientConfig: f.Client().Transport.(*http.Transport).TLSClientConfig.Clone(), HandshakeTimeout: 10 * time.Second}
		wsURL := "wss" + strings.TrimPrefix(f.URL, "https") + "/ws"
		c, resp, err := d.Dial(wsURL, nil)
		if !allowed {
			if err == nil {
				c.Close() //nolint:errcheck
				t.Fatal("a WebSocket upgrade without create on simulators/proxy must be refused")
			}
			if resp == nil || resp.StatusCode != http.StatusForbidden {
				t.Errorf("refusal status %v, want 403", resp)
			}
			continue
		}
		if err != nil {
			t.Fatalf("WebSocket dial through the proxy: %v", err)
		}
		if err := c.WriteMessage(websocket.TextMessage, []byte("hi")); err != nil {
			t.Fatal(err)
		}
		_, msg, err := c.ReadMessage()
		if err != nil || string(msg) != "echo:hi" {
			t.Errorf("echo %q, %v", msg, err)
		}
		c.Close() //nolint:errcheck
	}
}

// TestProxyHosted: to a hosted simulator, the proxy carries the caller's
// identity in the hop gate's headers (the hosting cluster's pods/proxy
// would take Impersonate-* as the server's own), refuses upgrades, and an
// answer the simulator did not give (the hosting apiserver's) is a 503
// saying HostingClusterUnreachable, not the hosting cluster's body.
func TestProxyHosted(t *testing.T) {
	back := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hosting-says-no" {
			http.Error(w, "pods not found", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set(contract.HeaderHop, contract.HopMark)
		_ = json.NewEncoder(w).Encode(r.Header)
	}))
	t.Cleanup(back.Close)
	backURL, _ := url.Parse(back.URL)
	hosted := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"},
		Spec: sim.SimulatorSpec{Hosting: &sim.SimulatorHosting{SecretName: "hosting", Namespace: "sims"}}}
	front := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := &proxyHandler{
			simulator: hosted,
			caller:    alice,
			location:  inner.At(backURL, r.URL.Path),
			transport: inner.HopRoundTripper(back.Client().Transport, "gate-token"),
			responder: fakeResponder{w},
			authorizer: authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
				return authorizer.DecisionAllow, "", nil
			}),
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	req, _ := http.NewRequest(http.MethodGet, front.URL+"/api/v1/nodes", nil)
	req.Header.Set(contract.HeaderHopImpersonateUser, "system:admin") // a caller's own: dropped
	resp, err := front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got http.Header
	err = json.NewDecoder(resp.Body).Decode(&got)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET through the hosted route: %d, %v", resp.StatusCode, err)
	}
	if got.Get(contract.HeaderHopImpersonateUser) != "alice" || got.Get("Impersonate-User") != "" || got.Get(contract.HeaderHopToken) != "gate-token" {
		t.Errorf("the hosting cluster got %v; want alice in the gate's headers only, and the token", got)
	}
	if groups := got.Values(contract.HeaderHopImpersonateGroup); strings.Join(groups, ",") != "dev,system:authenticated" {
		t.Errorf("groups %v", groups)
	}

	resp, err = front.Client().Get(front.URL + "/hosting-says-no")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "not the simulator") || strings.Contains(string(body), "pods not found") {
		t.Errorf("an answer of the hosting cluster's own: %d %s; want 503 saying it is not the simulator's", resp.StatusCode, body)
	}

	req, _ = http.NewRequest(http.MethodPost, front.URL+"/api/v1/namespaces/default/pods/p/exec", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "SPDY/3.1")
	resp, err = front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an upgrade through the hosted route: %d, want 400", resp.StatusCode)
	}
}

// TestRouteError: a hosting cluster that cannot be used, or that answered
// in the simulator's stead, is a 503 with reason HostingClusterUnreachable
// among its causes; anything else is left to the caller's choice.
func TestRouteError(t *testing.T) {
	for _, err := range []error{
		&inner.HostingError{Err: errors.New("401 Unauthorized")},
		fmt.Errorf("proxying: %w", &inner.NotFromSimulatorError{StatusCode: 503, Status: "503 Service Unavailable"}),
	} {
		status, ok := routeError(err, serviceUnavailable).(apierrors.APIStatus)
		if !ok || status.Status().Code != http.StatusServiceUnavailable || status.Status().Details == nil ||
			len(status.Status().Details.Causes) != 1 || status.Status().Details.Causes[0].Type != metav1.CauseType(sim.SimulatorReasonHostingClusterUnreachable) {
			t.Errorf("%v: %#v, want 503 HostingClusterUnreachable", err, status)
		}
	}
	if err := routeError(errors.New("no running Pod"), serviceUnavailable); !apierrors.IsServiceUnavailable(err) {
		t.Errorf("otherwise: %v", err)
	}
	if err := routeError(errors.New("bad Secret"), func(err error) error { return err }); apierrors.ReasonForError(err) != metav1.StatusReasonUnknown {
		t.Errorf("otherwise: %v", err)
	}
}

// TestProxyRefusesDotSegments: a proxied path with a . or .. segment is a
// 400 before anything is resolved: through a hosted simulator's route it
// could climb out of the hop gate's prefix into the simulator's API.
func TestProxyRefusesDotSegments(t *testing.T) {
	for _, p := range []string{"/api/../../../api/v1/reset", "..", "/api/v1/./nodes", "hop/kube/.."} {
		_, err := (&ProxyREST{}).Connect(t.Context(), "s", &sim.SimulatorProxyOptions{Path: p}, nil)
		if !apierrors.IsBadRequest(err) {
			t.Errorf("path %q: %v, want 400", p, err)
		}
	}
	for _, p := range []string{"/api/v1/nodes", "/apis/apps/v1/namespaces/a..b/deployments", "/api/v1/namespaces/default/configmaps/.x"} {
		if dotSegments(p) {
			t.Errorf("path %q has no dot segment", p)
		}
	}
}

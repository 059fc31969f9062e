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

package command

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// TestUIHandler: the ui proxy forwards the sim.x-k8s.io API to the host
// with the caller's credentials, and nothing else, and no write from a
// page of another origin.
func TestUIHandler(t *testing.T) {
	var got []string
	host := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
		_, _ = io.WriteString(w, "from the host")
	}))
	t.Cleanup(host.Close)
	cfg := &rest.Config{Host: host.URL, BearerToken: "my-token", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	const port = 8123
	handler, err := NewUIHandler(cfg, port)
	if err != nil {
		t.Fatal(err)
	}
	ui := "/apis/sim.x-k8s.io/v1alpha1/namespaces/default/simulators/example/ui/"
	for _, tc := range []struct {
		name, method, path, host, origin string
		want                             int
		forwarded                        string
	}{
		{name: "the view", method: http.MethodGet, path: ui + "?x=1", host: "127.0.0.1:8123", want: http.StatusOK,
			forwarded: "GET " + ui + "?x=1 Bearer my-token"},
		{name: "by localhost", method: http.MethodGet, path: ui, host: "localhost:8123", want: http.StatusOK,
			forwarded: "GET " + ui + " Bearer my-token"},
		{name: "a write of the view's own page", method: http.MethodPut, host: "127.0.0.1:8123", origin: "http://127.0.0.1:8123",
			path: "/apis/sim.x-k8s.io/v1alpha1/namespaces/default/simulators/example/api/v1/schedulerconfiguration", want: http.StatusOK,
			forwarded: "PUT /apis/sim.x-k8s.io/v1alpha1/namespaces/default/simulators/example/api/v1/schedulerconfiguration Bearer my-token"},
		{name: "a write without an Origin (curl)", method: http.MethodPost, host: "127.0.0.1:8123",
			path: "/apis/sim.x-k8s.io/v1alpha1/namespaces/default/simulators/example/api/v1/import", want: http.StatusOK,
			forwarded: "POST /apis/sim.x-k8s.io/v1alpha1/namespaces/default/simulators/example/api/v1/import Bearer my-token"},
		{name: "a form of another origin posting an import", method: http.MethodPost, host: "127.0.0.1:8123", origin: "https://evil.example",
			path: "/apis/sim.x-k8s.io/v1alpha1/namespaces/default/simulators/example/api/v1/import", want: http.StatusForbidden},
		{name: "a page of another name rebinding to 127.0.0.1", method: http.MethodGet, path: ui, host: "evil.example:8123", want: http.StatusForbidden},
		{name: "the host's other APIs", method: http.MethodGet, path: "/api/v1/secrets", host: "127.0.0.1:8123", want: http.StatusForbidden},
		{name: "another group", method: http.MethodGet, path: "/apis/sim.x-k8s.io.evil/v1/x", host: "127.0.0.1:8123", want: http.StatusForbidden},
		{name: "exec in a Pod of the simulator", method: http.MethodPost, host: "127.0.0.1:8123",
			path: "/apis/sim.x-k8s.io/v1alpha1/namespaces/default/simulators/example/proxy/api/v1/namespaces/default/pods/p/exec", want: http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			req := httptest.NewRequest(tc.method, "http://"+tc.host+tc.path, strings.NewReader("{}"))
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("%s %s (Host %s, Origin %q): %d %s, want %d", tc.method, tc.path, tc.host, tc.origin, rec.Code, rec.Body, tc.want)
			}
			var want []string
			if tc.forwarded != "" {
				want = []string{tc.forwarded}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the host got %q, want %q", got, want)
			}
		})
	}
	if u := UIURL(port, "default", "example"); u != "http://127.0.0.1:8123"+ui {
		t.Errorf("UIURL = %s", u)
	}
}

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

package integration

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/webview"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestWebViewSubresource: simulators/NAME/ui serves the embedded page
// through the host (the simulator need not be Available: the page itself
// is static), with its security headers; ui moves the browser on to ui/
// so that the page's relative URLs work; an unknown asset or simulator is a 404 Status;
// the view role may load it, a stranger gets the host's 403.
func TestWebViewSubresource(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "webview")
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(t.Context(), newSimulator("view"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	viewer := "ui-viewer"
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, userRolesManifest)); err != nil {
		t.Fatal(err)
	}
	bind(t, ns, viewer, "sim-x-k8s-io:view")
	framework.WaitForAccess(t, host, ns, viewer, authorizationv1.ResourceAttributes{Verb: "get", Group: sim.GroupName, Resource: "simulators", Subresource: "ui"})

	get := func(t *testing.T, cfg *rest.Config, path string) (*http.Response, string) {
		t.Helper()
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := client.Get(cfg.Host + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close() //nolint:errcheck
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(body)
	}
	ui := framework.SimulatorPath(ns, "view", "ui", "")

	t.Run("moved", func(t *testing.T) {
		// Not a redirect: the aggregator refuses those of aggregated servers.
		resp, body := get(t, host.Config, ui)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<meta http-equiv="refresh" content="0; url=ui/">`) ||
			resp.Header.Get("Content-Security-Policy") != webview.ContentSecurityPolicy {
			t.Errorf("GET ui: %s %v %s; want 200, a page that moves on to ui/", resp.Status, resp.Header, body)
		}
	})
	t.Run("assets", func(t *testing.T) {
		for path, want := range map[string]string{"/": "text/html", "/index.html": "text/html", "/app.js": "text/javascript", "/k8s.js": "text/javascript", "/app.css": "text/css"} {
			resp, body := get(t, host.Config, ui+path)
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), want) || body == "" {
				t.Errorf("GET ui%s: %s %q, %d bytes; want 200 %s", path, resp.Status, resp.Header.Get("Content-Type"), len(body), want)
			}
			if got := resp.Header.Get("Content-Security-Policy"); got != webview.ContentSecurityPolicy {
				t.Errorf("GET ui%s: Content-Security-Policy %q", path, got)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") == "" {
				t.Errorf("GET ui%s: headers %v", path, resp.Header)
			}
		}
	})
	t.Run("not found", func(t *testing.T) {
		for _, path := range []string{ui + "/nothing.js", ui + "/a/b.js", framework.SimulatorPath(ns, "absent", "ui", "/")} {
			resp, body := get(t, host.Config, path)
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, `"kind":"Status"`) {
				t.Errorf("GET %s: %s %s; want a 404 Status", path, resp.Status, body)
			}
		}
	})
	t.Run("rbac", func(t *testing.T) {
		kc, err := host.UserKubeconfig(viewer)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := clientcmd.BuildConfigFromFlags("", kc)
		if err != nil {
			t.Fatal(err)
		}
		if resp, _ := get(t, cfg, ui+"/"); resp.StatusCode != http.StatusOK {
			t.Errorf("the view role's GET ui/: %s, want 200", resp.Status)
		}
		strangerKC, err := host.UserKubeconfig("ui-stranger")
		if err != nil {
			t.Fatal(err)
		}
		if cfg, err = clientcmd.BuildConfigFromFlags("", strangerKC); err != nil {
			t.Fatal(err)
		}
		if resp, body := get(t, cfg, ui+"/"); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `simulators/ui`) {
			t.Errorf("a stranger's GET ui/: %s %s, want 403 on simulators/ui", resp.Status, body)
		}
	})
}

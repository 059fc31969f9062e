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
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// freePorts returns n distinct ports free on 127.0.0.1.
func freePorts(t testing.TB, n int) []int32 {
	t.Helper()
	free, err := framework.FreePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	ports := make([]int32, n)
	for i, p := range free {
		ports[i] = int32(p)
	}
	return ports
}

// withFreePorts gives s spec ports free on 127.0.0.1, for a simulator run
// as host processes.
func withFreePorts(t testing.TB, s *v1alpha1.Simulator) *v1alpha1.Simulator {
	t.Helper()
	ports := freePorts(t, 2)
	s.Spec.KubeAPIServerPort, s.Spec.SimulatorServerPort = ports[0], ports[1]
	return s
}

// runningSimulator creates a simulator whose Pod runs as host processes
// (cmd/simulator with a real kube-apiserver, kube-scheduler and kwok) and
// waits until it is Available. Stopping it early is the caller's choice.
func runningSimulator(t testing.TB, ns, name string) *framework.SimulatorProcess {
	t.Helper()
	c := hostCluster(t)
	s := withFreePorts(t, newSimulator(name))
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err := c.RunSimulatorAsProcess(t.Context(), ns, name)
	if err != nil {
		t.Fatalf("running simulator %s/%s: %v", ns, name, err)
	}
	t.Cleanup(p.Stop)
	waitForPhase(t, simClient(t), ns, name, v1alpha1.SimulatorAvailable)
	return p
}

// fetchKubeconfig gets a simulator's kubeconfig with kubectl get --raw and
// writes it to a file.
func fetchKubeconfig(t testing.TB, ns, name, query string) string {
	t.Helper()
	out, err := kubectl(t, hostCluster(t).KubeconfigPath, "get", "--raw", framework.SimulatorPath(ns, name, "kubeconfig", query))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkCallerInside asks simulator ns/name, through its proxy with cfg, who
// the caller is (a SelfSubjectReview inside) and checks that it is user in
// group.
func checkCallerInside(t testing.TB, cfg *rest.Config, ns, name, user, group string) {
	t.Helper()
	code, body := rawRequestBody(t, cfg, http.MethodPost,
		framework.SimulatorPath(ns, name, "proxy", "/apis/authentication.k8s.io/v1/selfsubjectreviews"),
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	var review authenticationv1.SelfSubjectReview
	if err := json.Unmarshal(body, &review); err != nil || code != http.StatusCreated {
		t.Fatalf("SelfSubjectReview inside: %d %v\n%s", code, err, body)
	}
	if u := review.Status.UserInfo; u.Username != user || !slices.Contains(u.Groups, group) {
		t.Errorf("inside the simulator the caller is %+v, want %s in %s", u, user, group)
	}
}

// TestKubeconfigAndProxy works inside a simulator with plain kubectl and the
// kubeconfig the server hands out, through the host and directly.
func TestKubeconfigAndProxy(t *testing.T) {
	ns := createNamespace(t, "access")
	runningSimulator(t, ns, "sandbox")

	kc := fetchKubeconfig(t, ns, "sandbox", "")
	if out, err := kubectl(t, kc, "get", "ns", "-o", "name"); err != nil || !strings.Contains(out, "namespace/kube-system") {
		t.Fatalf("kubectl get ns through the proxy: %v\n%s", err, out)
	}
	if _, err := kubectl(t, kc, "create", "configmap", "cm1", "--from-literal=a=b"); err != nil {
		t.Fatal(err)
	}
	if out, err := kubectl(t, kc, "get", "configmap", "cm1", "-o", "jsonpath={.data.a}"); err != nil || out != "b" {
		t.Errorf("get through the proxy: %q %v", out, err)
	}

	// A watch outlives the server's request timeout and gets events as they
	// happen.
	watchCtx, cancel := context.WithTimeout(t.Context(), requestTimeout+time.Minute)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	w, err := client.CoreV1().ConfigMaps("default").Watch(watchCtx, metav1.ListOptions{FieldSelector: "metadata.name=late"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// The time is what is tested here: nothing may come, nor the watch end,
	// until the request timeout has passed.
	select {
	case ev, ok := <-w.ResultChan():
		t.Fatalf("within the request timeout, before any change, the watch gave %v (open %v)", ev.Type, ok)
	case <-time.After(requestTimeout + 2*time.Second):
	}
	if _, err := client.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev, ok := <-w.ResultChan():
		if !ok || ev.Type != "ADDED" {
			t.Errorf("past the request timeout the watch gave %v (open %v), want ADDED", ev.Type, ok)
		}
	case <-watchCtx.Done():
		t.Error("no event on a watch older than the request timeout")
	}

	if _, err := kubectl(t, kc, "delete", "configmap", "cm1"); err != nil {
		t.Error(err)
	}

	direct := fetchKubeconfig(t, ns, "sandbox", "?mode=direct")
	if out, err := kubectl(t, direct, "get", "ns", "kube-system", "-o", "name"); err != nil || strings.TrimSpace(out) != "namespace/kube-system" {
		t.Errorf("kubectl with the direct kubeconfig: %v\n%s", err, out)
	}
	if out, err := kubectl(t, direct, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); err != nil || out != "kubernetes-admin" {
		t.Errorf("direct kubeconfig user %q %v, want the caller (kubernetes-admin)", out, err)
	}
}

// TestAccessRBAC checks who may do what: host RBAC governs the simulator,
// its kubeconfig and its proxy; the proxy acts inside as the caller; a
// kubeconfig token reaches its simulator's proxy and nothing else.
func TestAccessRBAC(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "rbac")
	runningSimulator(t, ns, "target")
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("other"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kubectl(t, c.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, userRolesManifest)); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"view", "edit", "admin"} {
		bind(t, ns, role+"-user", role)
	}
	// The host's clusterrole-aggregation controller folds the simulators
	// rules into view/edit/admin after the apply, and its authorizer sees
	// new bindings a moment later: wait for the widest grant of each role.
	for user, subresource := range map[string]string{"view-user": "", "edit-user": "kubeconfig", "admin-user": "kubeconfig"} {
		framework.WaitForAccess(t, c, ns, user, authorizationv1.ResourceAttributes{
			Verb: "get", Group: "sim.x-k8s.io", Resource: "simulators", Subresource: subresource, Name: "target",
		})
	}
	type request struct {
		name, verb, path string
	}
	requests := []request{
		{"get simulator", http.MethodGet, fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/simulators/target", ns)},
		{"list simulators", http.MethodGet, fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/simulators", ns)},
		{"get kubeconfig", http.MethodGet, framework.SimulatorPath(ns, "target", "kubeconfig", "")},
		{"proxy get", http.MethodGet, framework.SimulatorPath(ns, "target", "proxy", "/api/v1/namespaces/default")},
		{"proxy create", http.MethodPost, framework.SimulatorPath(ns, "target", "proxy", "/apis/authentication.k8s.io/v1/selfsubjectreviews")},
		{"proxy delete", http.MethodDelete, framework.SimulatorPath(ns, "target", "proxy", "/api/v1/namespaces/default/configmaps/nope")},
	}
	// What each user may do, by request name; everything else is a 403 from the host.
	allowed := map[string]map[string]bool{
		"nobody":     {},
		"view-user":  {"get simulator": true, "list simulators": true},
		"edit-user":  {"get simulator": true, "list simulators": true, "get kubeconfig": true, "proxy get": true, "proxy create": true, "proxy delete": true},
		"admin-user": {"get simulator": true, "list simulators": true, "get kubeconfig": true, "proxy get": true, "proxy create": true, "proxy delete": true},
	}
	for user, grants := range allowed {
		cfg := mustUserConfig(t, user)
		for _, req := range requests {
			t.Run(user+"/"+req.name, func(t *testing.T) {
				code, body := rawRequest(t, cfg, req.verb, req.path)
				if !grants[req.name] {
					if code != http.StatusForbidden {
						t.Errorf("%s %s: %d, want 403\n%s", req.verb, req.path, code, body)
					}
					return
				}
				// Allowed by the host; a proxied DELETE of a missing object is the
				// inner apiserver's 404, which proves it got through.
				if code == http.StatusForbidden || code == http.StatusUnauthorized || code >= 500 {
					t.Errorf("%s %s: %d\n%s", req.verb, req.path, code, body)
				}
			})
		}
	}

	// The proxy acts inside as the caller.
	checkCallerInside(t, mustUserConfig(t, "edit-user", "team-a"), ns, "target", "edit-user", "team-a")

	// The kubeconfig's token: its simulator's proxy and nothing else.
	kcFile := fetchKubeconfig(t, ns, "target", "")
	tokenCfg, err := clientcmd.BuildConfigFromFlags("", kcFile)
	if err != nil {
		t.Fatal(err)
	}
	hostWithToken := rest.CopyConfig(c.Config)
	hostWithToken.TLSClientConfig.CertData, hostWithToken.TLSClientConfig.KeyData = nil, nil
	hostWithToken.BearerToken = tokenCfg.BearerToken
	if code, _ := rawRequest(t, hostWithToken, http.MethodGet, framework.SimulatorPath(ns, "target", "proxy", "/api/v1/namespaces")); code != http.StatusOK {
		t.Errorf("token on its simulator's proxy: %d", code)
	}
	for _, path := range []string{
		framework.SimulatorPath(ns, "other", "proxy", "/api/v1/namespaces"),
		fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/simulators", ns),
		fmt.Sprintf("/api/v1/namespaces/%s/secrets", ns),
		framework.SimulatorPath(ns, "target", "kubeconfig", ""),
	} {
		if code, _ := rawRequest(t, hostWithToken, http.MethodGet, path); code != http.StatusForbidden {
			t.Errorf("token on %s: %d, want 403", path, code)
		}
	}
	// It expires when asked: the JWT carries exp = now + expirationSeconds.
	short := fetchKubeconfig(t, ns, "target", "?expirationSeconds=600")
	shortCfg, err := clientcmd.BuildConfigFromFlags("", short)
	if err != nil {
		t.Fatal(err)
	}
	if exp := jwtExpiry(t, shortCfg.BearerToken); exp.Before(time.Now().Add(9*time.Minute)) || exp.After(time.Now().Add(11*time.Minute)) {
		t.Errorf("token expires at %v, want in 10 minutes", exp)
	}
	if code, _ := rawRequest(t, c.Config, http.MethodGet, framework.SimulatorPath(ns, "target", "kubeconfig", "?expirationSeconds=5")); code != http.StatusBadRequest {
		t.Errorf("expirationSeconds=5: %d, want 400", code)
	}
	// Deleting the simulator revokes its tokens (their ServiceAccount goes).
	if err := simClient(t).SimV1alpha1().Simulators(ns).Delete(ctx, "target", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the token to stop working", func(ctx context.Context) (bool, error) {
		code, _ := rawRequest(t, hostWithToken, http.MethodGet, framework.SimulatorPath(ns, "target", "proxy", "/api/v1/namespaces"))
		return code == http.StatusUnauthorized, nil
	})
}

func jwtExpiry(t testing.TB, token string) time.Time {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct{ Exp int64 }
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return time.Unix(claims.Exp, 0)
}

func rawRequest(t testing.TB, cfg *rest.Config, verb, path string) (int, []byte) {
	return rawRequestBody(t, cfg, verb, path, "")
}

func rawRequestBody(t testing.TB, cfg *rest.Config, verb, path, body string) (int, []byte) {
	t.Helper()
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), verb, cfg.Host+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := transport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() //nolint:errcheck
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

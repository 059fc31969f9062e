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
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// portRequest is a request straight to a simulator server on 127.0.0.1,
// as anyone who can reach its Pod would make it: TLS without verifying
// the server (like curl -k), with cert if it is not nil.
func portRequest(t testing.TB, port int, cert *tls.Certificate, method, path string) (int, string) {
	t.Helper()
	config := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the attacker's client
	if cert != nil {
		config.Certificates = []tls.Certificate{*cert}
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: config}}
	req, err := http.NewRequestWithContext(t.Context(), method, fmt.Sprintf("https://127.0.0.1:%d%s", port, path), strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close() //nolint:errcheck
	var b strings.Builder
	_, _ = fmt.Fprint(&b, resp.Status)
	return resp.StatusCode, b.String()
}

// TestSimulatorAPI: the simulator's own HTTP API (reset, scheduler
// configuration, scheduling results, export, import) is reached through the
// host with host RBAC (simulators/api: GET needs get, PUT update, POST
// create), and straight on its port by no one but sim-apiserver.
func TestSimulatorAPI(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "simapi")
	p := runningSimulator(t, ns, "target")
	inner := innerClient(t, ns, "target")

	// Something to reset: a ConfigMap inside the simulator.
	if _, err := inner.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "precious"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// precious takes the subtest's t: a parent's Fatal from a subtest does
	// not stop the subtest.
	precious := func(t *testing.T) bool {
		t.Helper()
		_, err := inner.CoreV1().ConfigMaps("default").Get(ctx, "precious", metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}

	t.Run("straight to the port", func(t *testing.T) {
		// A ?mode=direct kubeconfig's certificate is signed by the simulator
		// CA: the inner apiserver takes it, the simulator server does not.
		cfg, err := clientcmd.BuildConfigFromFlags("", fetchKubeconfig(t, ns, "target", "?mode=direct"))
		if err != nil {
			t.Fatal(err)
		}
		direct, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			cert *tls.Certificate
			want int
		}{{"without a certificate", nil, http.StatusUnauthorized}, {"with a ?mode=direct certificate", &direct, http.StatusForbidden}} {
			for _, r := range [][2]string{
				{http.MethodPut, "/api/v1/reset"}, {http.MethodPut, "/api/v1/schedulerconfiguration"}, {http.MethodPost, "/api/v1/import"},
				{http.MethodGet, "/api/v1/export"}, {http.MethodGet, "/api/v1/schedulerconfiguration"}, {http.MethodGet, "/api/v1/schedulingresults/default/x"},
			} {
				if code, status := portRequest(t, p.Port, c.cert, r[0], r[1]); code != c.want {
					t.Errorf("%s: %s %s = %s, want %d", c.name, r[0], r[1], status, c.want)
				}
			}
		}
		if !precious(t) {
			t.Fatal("a refused reset emptied the simulator")
		}
		// Plain HTTP is not served at all.
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/v1/export", p.Port))
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("plain HTTP GET /api/v1/export = %d, want 400 (the server is TLS)", resp.StatusCode)
			}
		}
	})

	// reader may only read the simulator's API; writer may do all of it
	// (as edit does); stranger has nothing in the namespace.
	framework.Grant(t, host, ns, "api-reader", rbacv1.PolicyRule{APIGroups: []string{sim.GroupName}, Resources: []string{"simulators/api"}, Verbs: []string{"get"}})
	reader, err := host.UserKubeconfig("api-reader")
	if err != nil {
		t.Fatal(err)
	}
	writer := simOnlyUser(t, ns, "api-writer") // the edit role's simulators/api
	stranger, err := host.UserKubeconfig("api-stranger")
	if err != nil {
		t.Fatal(err)
	}
	body := filepath.Join(t.TempDir(), "body.json")
	// put and post are what a user types: kubectl replace/create --raw.
	put := func(kc, rest, data string) (string, error) {
		if err := os.WriteFile(body, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return kubectl(t, kc, "replace", "--raw", framework.SimulatorPath(ns, "target", "api", rest), "-f", body)
	}
	post := func(kc, rest, data string) (string, error) {
		if err := os.WriteFile(body, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return kubectl(t, kc, "create", "--raw", framework.SimulatorPath(ns, "target", "api", rest), "-f", body)
	}

	t.Run("a reader reads", func(t *testing.T) {
		out, err := kubectl(t, reader, "get", "--raw", framework.SimulatorPath(ns, "target", "api", "/v1/schedulerconfiguration"))
		if err != nil || !strings.Contains(out, "KubeSchedulerConfiguration") {
			t.Errorf("GET schedulerconfiguration as a reader: %v\n%s", err, out)
		}
		out, err = kubectl(t, reader, "get", "--raw", framework.SimulatorPath(ns, "target", "api", "/v1/export"))
		if err != nil || !strings.Contains(out, `"nodes"`) || !strings.Contains(out, "schedulerConfig") {
			t.Errorf("GET export as a reader: %v\n%s", err, out)
		}
		// Forwarded: the simulator itself says it has no result.
		out, err = kubectl(t, reader, "get", "--raw", framework.SimulatorPath(ns, "target", "api", "/v1/schedulingresults/default/nope"))
		if err == nil || !strings.Contains(out+err.Error(), "NotFound") {
			t.Errorf("GET a missing scheduling result as a reader: %v, want the simulator's 404\n%s", err, out)
		}
	})

	t.Run("a reader cannot write", func(t *testing.T) {
		for _, c := range []struct {
			name, verb string
			do         func() (string, error)
		}{
			{"reset", "update", func() (string, error) { return put(reader, "/v1/reset", "{}") }},
			{"scheduler configuration", "update", func() (string, error) {
				return put(reader, "/v1/schedulerconfiguration", `{"kind":"KubeSchedulerConfiguration","apiVersion":"kubescheduler.config.k8s.io/v1"}`)
			}},
			{"import", "create", func() (string, error) { return post(reader, "/v1/import", "{}") }},
		} {
			out, err := c.do()
			want := fmt.Sprintf(`cannot %s resource "simulators/api"`, c.verb)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s as a reader: %v, want the host's 403 saying %q\n%s", c.name, err, want, out)
			}
		}
		if !precious(t) {
			t.Fatal("a reader's refused reset emptied the simulator")
		}
	})

	t.Run("a stranger cannot read", func(t *testing.T) {
		out, err := kubectl(t, stranger, "get", "--raw", framework.SimulatorPath(ns, "target", "api", "/v1/export"))
		if err == nil || !strings.Contains(err.Error(), `cannot get resource "simulators/api"`) {
			t.Errorf("GET export as a stranger: %v, want 403\n%s", err, out)
		}
	})

	t.Run("no way out of /api", func(t *testing.T) {
		code, body := rawRequest(t, host.Config, http.MethodGet, framework.SimulatorPath(ns, "target", "api", "/../debug/processes"))
		if code != http.StatusBadRequest {
			t.Errorf("GET api/../debug/processes = %d, want 400\n%s", code, body)
		}
	})

	t.Run("a writer resets", func(t *testing.T) {
		if out, err := put(writer, "/v1/reset", "{}"); err != nil || !strings.Contains(out, "configmaps") {
			t.Fatalf("reset as a writer: %v\n%s", err, out)
		}
		if precious(t) {
			t.Error("the ConfigMap is still there after the writer's reset")
		}
	})

	t.Run("an import runs in the background", func(t *testing.T) {
		// POST (create) answers 202 with the import's status at once; GET
		// (get) tells how it stands, until it ends.
		out, err := post(writer, "/v1/import", `{"namespaces":[{"metadata":{"name":"imported"}}],"pods":[{"metadata":{"namespace":"imported","name":"p"},"spec":{"containers":[{"name":"c","image":"x"}]}}]}`)
		if err != nil {
			t.Fatalf("import as a writer: %v\n%s", err, out)
		}
		var st contract.ImportStatus
		if err := json.Unmarshal([]byte(out), &st); err != nil || st.Phase != contract.ImportImporting || st.Resources["pods"].Total != 1 {
			t.Errorf("import as a writer answered %s (%v), want its status, Importing", out, err)
		}
		eventually(t, "the import to end", func(context.Context) (bool, error) {
			out, err := kubectl(t, reader, "get", "--raw", framework.SimulatorPath(ns, "target", "api", "/v1/import"))
			if err != nil {
				return false, fmt.Errorf("GET import as a reader: %w\n%s", err, out)
			}
			st = contract.ImportStatus{}
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				return false, err
			}
			return st.Phase != contract.ImportImporting, nil
		})
		want := map[string]contract.ImportCounts{"namespaces": {Total: 1, Created: 1}, "pods": {Total: 1, Created: 1}}
		if st.Phase != contract.ImportSucceeded || !apiequality.Semantic.DeepEqual(want, st.Resources) {
			t.Errorf("import ended %+v, want Succeeded with %v", st, want)
		}
		if _, err := inner.CoreV1().Pods("imported").Get(ctx, "p", metav1.GetOptions{}); err != nil {
			t.Errorf("the imported pod: %v", err)
		}
		out, err = kubectl(t, stranger, "get", "--raw", framework.SimulatorPath(ns, "target", "api", "/v1/import"))
		if err == nil || !strings.Contains(err.Error(), `cannot get resource "simulators/api"`) {
			t.Errorf("GET import as a stranger: %v, want 403\n%s", err, out)
		}
	})

	t.Run("the NetworkPolicy", func(t *testing.T) {
		s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, "target", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		policies := host.Client.NetworkingV1().NetworkPolicies(ns)
		var policy *networkingv1.NetworkPolicy
		eventually(t, "the simulator's NetworkPolicy", func(ctx context.Context) (bool, error) {
			policy, err = policies.Get(ctx, sim.SimulatorNetworkPolicyName("target"), metav1.GetOptions{})
			return err == nil, nil
		})
		if !backing.OwnedBy(policy, s.UID) {
			t.Errorf("NetworkPolicy owners %v, want the simulator %s as controller", policy.OwnerReferences, s.UID)
		}
		want := backing.NetworkPolicy(s, framework.SimNamespace, backing.Local(s)).Spec
		if !apiequality.Semantic.DeepEqual(policy.Spec, want) {
			t.Errorf("NetworkPolicy spec\n%+v\nwant\n%+v", policy.Spec, want)
		}
		if got := policy.Spec.PodSelector.MatchLabels[sim.LabelSimulator]; got != "target" || len(policy.Spec.PodSelector.MatchLabels) != 1 {
			t.Errorf("NetworkPolicy selects %v, want the simulator's Pods", policy.Spec.PodSelector.MatchLabels)
		}
		// Widened by hand, it is put back.
		widened := policy.DeepCopy()
		widened.Spec.Ingress = append(widened.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{})
		if _, err := policies.Update(ctx, widened, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the NetworkPolicy to be put back", func(ctx context.Context) (bool, error) {
			policy, err = policies.Get(ctx, sim.SimulatorNetworkPolicyName("target"), metav1.GetOptions{})
			return err == nil && apiequality.Semantic.DeepEqual(policy.Spec, want), nil
		})
	})

	t.Run("a planted NetworkPolicy", func(t *testing.T) {
		// Made before the simulator, under its name, admitting everyone: never adopted.
		planted := &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: sim.SimulatorNetworkPolicyName("victim")},
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{sim.LabelSimulator: "victim"}},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{}},
			},
		}
		if _, err := host.Client.NetworkingV1().NetworkPolicies(ns).Create(ctx, planted, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("victim"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		s := waitForPhase(t, simClient(t), ns, "victim", v1alpha1.SimulatorFailed)
		if !strings.Contains(s.Status.Message, "NetworkPolicy") || !strings.Contains(s.Status.Message, "not controlled by this simulator") {
			t.Errorf("status message %q does not say the NetworkPolicy is not the simulator's", s.Status.Message)
		}
		if pods := simulatorPods(ctx, t, ns, "victim"); len(pods) != 0 {
			t.Errorf("a Pod was made behind a planted NetworkPolicy: %s", pods[0].Name)
		}
	})
}

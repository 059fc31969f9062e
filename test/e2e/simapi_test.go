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

package e2e

import (
	"crypto/tls"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// checkSimulatorAPIGuarded attacks the simulator's own API (PORT) of a
// simulator running on the node, whose inner cluster holds the Pod
// default/hello: straight to the Pod's port over the node's network, as
// any process or Pod that reaches it could, it is refused; through the
// host, a user who may only read (get simulators/api) reads the scenario
// and cannot reset it; the host's admin resets it. The simulator's
// NetworkPolicy is there, owned by it. (The node's bridge CNI does not
// enforce NetworkPolicies: the refusal here is the authentication's.)
func checkSimulatorAPIGuarded(t *testing.T, s *v1alpha1.Simulator, pod *corev1.Pod, inner kubernetes.Interface) {
	c := hostCluster(t)
	ctx := t.Context()

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the attacker's client
	url := "https://" + net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(int(s.Spec.SimulatorServerPort))) + "/api/v1/reset"
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("PUT %s: %v", url, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("PUT %s without a certificate = %d, want 401", url, resp.StatusCode)
	}

	const reader = "e2e-api-reader"
	framework.Grant(t, c, s.Namespace, reader, rbacv1.PolicyRule{APIGroups: []string{sim.GroupName}, Resources: []string{"simulators/api"}, Verbs: []string{"get"}})
	kc, err := c.UserKubeconfig(reader)
	if err != nil {
		t.Fatal(err)
	}
	api := framework.SimulatorPath(s.Namespace, s.Name, "api", "")
	if out, err := framework.Kubectl(t, c, kc, "get", "--raw", api+"/v1/export"); err != nil || !strings.Contains(out, `"hello"`) {
		t.Errorf("the reader's export through the host: %v\n%s", err, out)
	}
	body := filepath.Join(t.TempDir(), "empty.json")
	if err := os.WriteFile(body, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := framework.Kubectl(t, c, kc, "replace", "--raw", api+"/v1/reset", "-f", body); err == nil || !strings.Contains(err.Error(), `cannot update resource "simulators/api"`) {
		t.Errorf("the reader's reset through the host: %v, want 403\n%s", err, out)
	}
	if _, err := inner.CoreV1().Pods(metav1.NamespaceDefault).Get(ctx, "hello", metav1.GetOptions{}); err != nil {
		t.Fatalf("the inner Pod hello after the refused resets: %v", err)
	}
	if out, err := kubectl(t, "replace", "--raw", api+"/v1/reset", "-f", body); err != nil || !strings.Contains(out, "pods") {
		t.Fatalf("the admin's reset through the host: %v\n%s", err, out)
	}
	if _, err := inner.CoreV1().Pods(metav1.NamespaceDefault).Get(ctx, "hello", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the inner Pod hello after the admin's reset: %v, want NotFound", err)
	}

	policy, err := c.Client.NetworkingV1().NetworkPolicies(s.Namespace).Get(ctx, sim.SimulatorNetworkPolicyName(s.Name), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !backing.OwnedBy(policy, s.UID) || policy.Spec.PodSelector.MatchLabels[sim.LabelSimulator] != s.Name {
		t.Errorf("NetworkPolicy %s: owners %v, selector %v; want the simulator's", policy.Name, policy.OwnerReferences, policy.Spec.PodSelector.MatchLabels)
	}
}

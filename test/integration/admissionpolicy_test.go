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
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestServerAdmissionPolicies: the ValidatingAdmissionPolicies of
// artifacts/deploy confine the server's account, in a namespace that opted
// in (so RBAC allows each request), to the objects it labels and to tokens
// of its per-simulator accounts. Each request is made as that account, as a
// compromised server would.
func TestServerAdmissionPolicies(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	for _, manifest := range []string{"rbac-server.yaml", "admission-policy.yaml"} {
		if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, "artifacts/deploy", manifest)); err != nil {
			t.Fatal(err)
		}
	}
	// Not kubectl delete: it runs with t.Context(), which is done by the
	// time cleanups run, so it would delete nothing.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		admission := host.Client.AdmissionregistrationV1()
		for _, name := range []string{"sim-apiserver-labelled-objects", "sim-apiserver-own-tokens"} {
			if err := admission.ValidatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting ValidatingAdmissionPolicyBinding %s: %v", name, err)
			}
			if err := admission.ValidatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting ValidatingAdmissionPolicy %s: %v", name, err)
			}
		}
	})
	const server = "system:serviceaccount:sim-system:sim-apiserver"
	ns := createNamespace(t, "policy")
	if _, err := kubectl(t, host.KubeconfigPath, "create", "rolebinding", "sim-apiserver", "-n", ns,
		"--clusterrole=sim-apiserver:namespace", "--serviceaccount=sim-system:sim-apiserver"); err != nil {
		t.Fatal(err)
	}
	framework.WaitForAccess(t, host, ns, server, authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets"})
	config := rest.CopyConfig(host.Config)
	config.Impersonate = rest.ImpersonationConfig{UserName: server, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:sim-system", "system:authenticated"}}
	asServer, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	secret := func(name string, labels map[string]string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, StringData: map[string]string{"k": "v"}}
	}
	refused := func(err error) bool {
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "sim-apiserver may only")
	}
	for _, name := range []string{"default", "sim-x-proxy"} {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		if _, err := host.Client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))}}
	// The policies take effect when the host apiserver has read each of them
	// and its binding (CI once saw the Secret policy in force and the token
	// policy not yet): wait for both. The Secret probe is a dry run, which
	// goes through admission and stores nothing; TokenRequest has no dry
	// run, and a probe the policy lets through mints a 10-minute token of a
	// test namespace's account.
	eventually(t, "the policies to refuse an unlabelled Secret and a token of the default account", func(ctx context.Context) (bool, error) {
		_, err := asServer.CoreV1().Secrets(ns).Create(ctx, secret("probe", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if !refused(err) {
			return false, nil
		}
		_, err = asServer.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", request, metav1.CreateOptions{})
		return refused(err), nil
	})

	if _, err := asServer.CoreV1().Secrets(ns).Create(ctx, secret("unlabelled", nil), metav1.CreateOptions{}); !refused(err) {
		t.Errorf("the server creates an unlabelled Secret: %v, want refused by the policy", err)
	}
	if _, err := asServer.CoreV1().Secrets(ns).Create(ctx, secret("sim-x-credentials", map[string]string{sim.LabelSimulator: "x"}), metav1.CreateOptions{}); err != nil {
		t.Errorf("the server creates a labelled Secret: %v", err)
	}

	// A user's own Secret: the server may neither take it over by adding
	// the label nor delete it.
	users, err := host.Client.CoreV1().Secrets(ns).Create(ctx, secret("users", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	relabelled := users.DeepCopy()
	relabelled.Labels = map[string]string{sim.LabelSimulator: "x"}
	if _, err := asServer.CoreV1().Secrets(ns).Update(ctx, relabelled, metav1.UpdateOptions{}); !refused(err) {
		t.Errorf("the server labels a user's Secret: %v, want refused by the policy", err)
	}
	if err := asServer.CoreV1().Secrets(ns).Delete(ctx, users.Name, metav1.DeleteOptions{}); !refused(err) {
		t.Errorf("the server deletes a user's Secret: %v, want refused by the policy", err)
	}

	// Tokens: only for its per-simulator accounts.
	if _, err := asServer.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", request, metav1.CreateOptions{}); !refused(err) {
		t.Errorf("the server mints a token for the default account: %v, want refused by the policy", err)
	}
	if _, err := asServer.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "sim-x-proxy", request, metav1.CreateOptions{}); err != nil {
		t.Errorf("the server mints a token for a simulator's account: %v", err)
	}
}

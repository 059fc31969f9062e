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
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// userRolesManifest aggregates the sim.x-k8s.io rules into the view, edit
// and admin ClusterRoles.
const userRolesManifest = "artifacts/deploy/rbac-user-roles.yaml"

// TestDelegatedAuthorization checks that sim.x-k8s.io is authorized against
// the host's RBAC: a user without a role is forbidden, one bound to ClusterRole
// view in a namespace can list simulators there and nowhere else. Each case
// runs through the host aggregator and against sim-apiserver directly, the
// way the aggregator calls it (front-proxy client certificate plus
// X-Remote-User): there only sim-apiserver's own SubjectAccessReview can
// answer. (Through the aggregator, the host itself already refuses users
// without a role, before proxying.)
func TestDelegatedAuthorization(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns, otherNS := createNamespace(t, "authz"), createNamespace(t, "authz-other")
	const (
		noRole = "alice"
		viewer = "bob"
	)

	if _, err := kubectl(t, c.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, userRolesManifest)); err != nil {
		t.Fatal(err)
	}
	bind(t, ns, viewer, "view")
	// The clusterrole-aggregation controller and the RBAC caches take a
	// moment. Wait on the host's authorizer only: sim-apiserver caches
	// denials.
	framework.WaitForAccess(t, c, ns, viewer, authorizationv1.ResourceAttributes{Verb: "list", Group: simulatorsGVR.Group, Resource: simulatorsGVR.Resource})

	clients := map[string]func(user string) dynamic.Interface{
		"through the aggregator": func(user string) dynamic.Interface { return dynamicClient(t, mustUserConfig(t, user)) },
		"sim-apiserver directly": func(user string) dynamic.Interface { return dynamicClient(t, c.FrontProxyConfig(user)) },
	}
	for _, tc := range []struct {
		name          string
		user          string
		namespace     string
		wantForbidden bool
	}{
		{name: "no role", user: noRole, namespace: ns, wantForbidden: true},
		{name: "view in namespace", user: viewer, namespace: ns},
		{name: "view in another namespace", user: viewer, namespace: otherNS, wantForbidden: true},
	} {
		for via, client := range clients {
			t.Run(tc.name+"/"+via, func(t *testing.T) {
				_, err := client(tc.user).Resource(simulatorsGVR).Namespace(tc.namespace).List(ctx, metav1.ListOptions{})
				if !tc.wantForbidden {
					if err != nil {
						t.Fatalf("listing simulators: got %v, want success", err)
					}
					return
				}
				if !apierrors.IsForbidden(err) {
					t.Fatalf("listing simulators: got %v, want 403 Forbidden", err)
				}
				want := fmt.Sprintf(`User %q cannot list resource "simulators" in API group %q in the namespace %q`, tc.user, simulatorsGVR.Group, tc.namespace)
				if !strings.Contains(err.Error(), want) {
					t.Errorf("listing simulators: got %q, want it to contain %q", err, want)
				}
			})
		}
	}
}

// createNamespace creates a namespace named after prefix and deletes it when
// the test ends.
func createNamespace(t testing.TB, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	ns, err := cluster.Client.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() {
		err := cluster.Client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

func mustUserConfig(t testing.TB, user string, groups ...string) *rest.Config {
	t.Helper()
	cfg, err := cluster.UserConfig(user, groups...)
	if err != nil {
		t.Fatalf("creating client config for %s: %v", user, err)
	}
	return cfg
}

func dynamicClient(t testing.TB, cfg *rest.Config) dynamic.Interface {
	t.Helper()
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("creating dynamic client: %v", err)
	}
	return client
}

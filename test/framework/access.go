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

package framework

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// SimulatorPath is the host path of subresource (proxy, api, kubeconfig)
// of simulator ns/name, followed by rest.
func SimulatorPath(ns, name, subresource, rest string) string {
	return fmt.Sprintf("/apis/%s/%s/namespaces/%s/simulators/%s/%s%s", SimAPIGroup, SimAPIVersion, ns, name, subresource, rest)
}

// WaitForAccess waits until c's authorizer allows user attrs in ns, so that
// a later 403 is the decision of the server under test, not the host's RBAC
// caches catching up.
func WaitForAccess(t testing.TB, c *Cluster, ns, user string, attrs authorizationv1.ResourceAttributes) {
	t.Helper()
	attrs.Namespace = ns
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		review, err := c.Client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &attrs},
		}, metav1.CreateOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = review.Status.Reason
		return review.Status.Allowed, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to be allowed to %s %+v: %v; last: %s", user, attrs.Verb, attrs, err, last)
	}
}

// Grant gives user rules in ns, with a Role and a RoleBinding both named
// user, and waits until c's authorizer allows each verb on each resource of
// them (see WaitForAccess).
func Grant(t testing.TB, c *Cluster, ns, user string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: rules}
	if _, err := c.Client.RbacV1().Roles(ns).Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.Client.RbacV1().RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, rule := range rules {
		for _, group := range rule.APIGroups {
			for _, resource := range rule.Resources {
				resource, subresource, _ := strings.Cut(resource, "/")
				for _, verb := range rule.Verbs {
					WaitForAccess(t, c, ns, user, authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: resource, Subresource: subresource})
				}
			}
		}
	}
}

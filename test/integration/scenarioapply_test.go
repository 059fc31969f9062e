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
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
)

// TestScenarioApplyNeedsAccess: a scenario created by server-side apply
// (an update that creates) needs its creator's rights to what it makes the
// server do, as one created by POST does: a user who may write scenarios
// but not create simulators gets 403 both ways.
func TestScenarioApplyNeedsAccess(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "scenario-apply")
	const user = "scenario-only"
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "scenarios"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{simulatorsGVR.Group}, Resources: []string{"scenarios"},
			Verbs: []string{"get", "list", "watch", "create", "update", "patch"}}},
	}
	if _, err := c.Client.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scenarios"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.Client.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	scenarios := simclientset.NewForConfigOrDie(mustUserConfig(t, user)).SimV1alpha1().Scenarios(ns)
	eventually(t, "RBAC to let the user list scenarios", func(ctx context.Context) (bool, error) {
		_, err := scenarios.List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})

	body := []byte(`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Scenario","metadata":{"name":"applied"},"spec":{"variants":[{"name":"a"}]}}`)
	_, err := scenarios.Patch(ctx, "applied", types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: user, Force: ptr.To(true)})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "spec.variants") {
		t.Errorf("server-side apply creating a scenario without create simulators: %v, want 403 naming spec.variants", err)
	}
	if _, err := scenarios.Get(ctx, "applied", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused scenario: %v, want NotFound", err)
	}
}

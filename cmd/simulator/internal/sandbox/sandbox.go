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

// Package sandbox makes a simulator a sandbox for whoever reaches it: every
// authenticated user is cluster-admin inside. Access to a simulator is
// governed by the host (RBAC on simulators/proxy and simulators/kubeconfig);
// inside, callers act under their own name, so audit and managedFields show
// who did what.
package sandbox

import (
	"context"
	"fmt"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	rbacclient "k8s.io/client-go/kubernetes/typed/rbac/v1"
)

// BindingName is the ClusterRoleBinding that grants the sandbox.
const BindingName = "simulator:sandbox-users"

// Binding grants cluster-admin to every authenticated user.
func Binding() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: BindingName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: user.AllAuthenticated}},
	}
}

// Granter creates the binding once per simulator start; a user who deletes
// it afterwards (to try RBAC inside) keeps it deleted.
type Granter struct {
	Client rbacclient.ClusterRoleBindingsGetter
	done   atomic.Bool
}

// Ensure creates the binding unless this Granter already did. It serves as
// a readiness check: the simulator is not ready for users before it.
func (g *Granter) Ensure(ctx context.Context) error {
	if g.done.Load() {
		return nil
	}
	_, err := g.Client.ClusterRoleBindings().Create(ctx, Binding(), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("granting the sandbox to authenticated users: %w", err)
	}
	g.done.Store(true)
	return nil
}

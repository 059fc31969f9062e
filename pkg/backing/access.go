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

package backing

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// ProxyVerbs are the verbs of simulators/proxy (GET→get, POST→create,
// PUT→update, PATCH→patch, DELETE→delete): all of them is full use of the
// simulator, which is what a writing kubeconfig and ?mode=direct carry.
var ProxyVerbs = []string{"get", "create", "update", "patch", "delete"}

// ProxyReadVerbs are a read-only kubeconfig's: GET (get, list, watch inside).
var ProxyReadVerbs = []string{"get"}

// ProxyAccount is one of a simulator's ServiceAccounts whose tokens
// kubeconfigs carry, with the proxy verbs its Role grants.
type ProxyAccount struct {
	Name  string
	Verbs []string
}

// ProxyAccounts are a simulator's kubeconfig accounts: one that may use its
// proxy fully, one that may only read through it. A kubeconfig gets the
// token of the one whose rights its caller holds.
func ProxyAccounts(simulator string) (writer, reader ProxyAccount) {
	return ProxyAccount{Name: sim.SimulatorProxyAccountName(simulator), Verbs: ProxyVerbs},
		ProxyAccount{Name: sim.SimulatorProxyReaderAccountName(simulator), Verbs: ProxyReadVerbs}
}

// ProxyAccess builds an account's ServiceAccount, and the Role and
// RoleBinding that let it use this simulator's proxy with its verbs and
// nothing else in the host.
func ProxyAccess(s *v1alpha1.Simulator, account ProxyAccount) (*corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding) {
	meta := metav1.ObjectMeta{Name: account.Name, Namespace: s.Namespace, Labels: Labels(s), OwnerReferences: []metav1.OwnerReference{OwnerReference(s)}}
	sa := &corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: new(bool)}
	role := &rbacv1.Role{
		ObjectMeta: meta,
		Rules: []rbacv1.PolicyRule{{
			APIGroups:     []string{sim.GroupName},
			Resources:     []string{"simulators/proxy"},
			ResourceNames: []string{s.Name},
			Verbs:         account.Verbs,
		}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: account.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: account.Name, Namespace: s.Namespace}},
	}
	return sa, role, binding
}

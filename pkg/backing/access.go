package backing

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// ProxyVerbs are what a simulator's kubeconfig token may do with its proxy:
// everything, so kubectl works fully inside the simulator.
var ProxyVerbs = []string{"get", "create", "update", "patch", "delete"}

// ProxyAccess builds the ServiceAccount whose tokens the default kubeconfig
// carries, and the Role and RoleBinding that let it use this simulator's
// proxy and nothing else in the host.
func ProxyAccess(s *v1alpha1.Simulator) (*corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding) {
	name := sim.SimulatorProxyAccountName(s.Name)
	meta := metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: Labels(s), OwnerReferences: []metav1.OwnerReference{OwnerReference(s)}}
	sa := &corev1.ServiceAccount{ObjectMeta: meta, AutomountServiceAccountToken: new(bool)}
	role := &rbacv1.Role{
		ObjectMeta: meta,
		Rules: []rbacv1.PolicyRule{{
			APIGroups:     []string{sim.GroupName},
			Resources:     []string{"simulators/proxy"},
			ResourceNames: []string{s.Name},
			Verbs:         ProxyVerbs,
		}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: meta,
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: s.Namespace}},
	}
	return sa, role, binding
}

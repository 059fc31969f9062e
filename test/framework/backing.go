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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
)

// ConvergedBackingObjects is what a converged simulator has in the host:
// one Pod, Service, Secret and NetworkPolicy, and the ServiceAccount, Role
// and RoleBinding of each of its two kubeconfig accounts (the writer and
// the reader).
var ConvergedBackingObjects = map[string]int{"Pod": 1, "Service": 1, "Secret": 1, "NetworkPolicy": 1, "ServiceAccount": 2, "Role": 2, "RoleBinding": 2}

// BackingObjects counts the host objects of namespace ns that carry the
// simulator label and match selector (sim.LabelSimulator alone for every
// simulator, sim.LabelSimulator=NAME for one), by simulator (the label's
// value) and kind. Pods count whether terminating or not.
func BackingObjects(ctx context.Context, client kubernetes.Interface, ns, selector string) (map[string]map[string]int, error) {
	opts := metav1.ListOptions{LabelSelector: selector}
	counts := map[string]map[string]int{}
	var listErr error
	add := func(kind string, objs []metav1.Object, err error) {
		if err != nil {
			if listErr == nil {
				listErr = fmt.Errorf("listing %s in %s (%s): %w", kind, ns, selector, err)
			}
			return
		}
		for _, o := range objs {
			name := o.GetLabels()[sim.LabelSimulator]
			if counts[name] == nil {
				counts[name] = map[string]int{}
			}
			counts[name][kind]++
		}
	}
	pods, err := client.CoreV1().Pods(ns).List(ctx, opts)
	add("Pod", metas(pods.Items), err)
	services, err := client.CoreV1().Services(ns).List(ctx, opts)
	add("Service", metas(services.Items), err)
	secrets, err := client.CoreV1().Secrets(ns).List(ctx, opts)
	add("Secret", metas(secrets.Items), err)
	policies, err := client.NetworkingV1().NetworkPolicies(ns).List(ctx, opts)
	add("NetworkPolicy", metas(policies.Items), err)
	accounts, err := client.CoreV1().ServiceAccounts(ns).List(ctx, opts)
	add("ServiceAccount", metas(accounts.Items), err)
	roles, err := client.RbacV1().Roles(ns).List(ctx, opts)
	add("Role", metas(roles.Items), err)
	bindings, err := client.RbacV1().RoleBindings(ns).List(ctx, opts)
	add("RoleBinding", metas(bindings.Items), err)
	return counts, listErr
}

// SimulatorRecords counts the records of the simulators of namespace ns:
// the ConfigMaps sim-apiserver keeps in its own namespace.
func SimulatorRecords(ctx context.Context, client kubernetes.Interface, ns string) (int, error) {
	cms, err := client.CoreV1().ConfigMaps(SimNamespace).List(ctx, metav1.ListOptions{
		LabelSelector: fmt.Sprintf("%s=simulators.sim.x-k8s.io,%s=%s", hoststore.LabelResource, hoststore.LabelNamespace, ns),
	})
	if err != nil {
		return 0, fmt.Errorf("listing the records of simulators of %s: %w", ns, err)
	}
	return len(cms.Items), nil
}

// SameCounts reports whether two counts by kind agree; a kind missing from
// one counts as zero there.
func SameCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

func metas[T any, PT interface {
	*T
	metav1.Object
}](items []T) []metav1.Object {
	out := make([]metav1.Object, len(items))
	for i := range items {
		out[i] = PT(&items[i])
	}
	return out
}

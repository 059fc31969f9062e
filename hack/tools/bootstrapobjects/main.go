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

// Command bootstrapobjects prints, as a JSON v1 List, the objects that
// kube-apiserver's rbac/bootstrap-roles and
// scheduling/bootstrap-system-priority-classes post-start hooks create in an
// empty cluster: k8s.io/kubernetes at the version this module pins (the one
// hack/build-tools.sh builds kube-apiserver from), default feature gates (the
// simulator's kube-apiserver sets none). hack/update-codegen.sh writes it to
// cmd/simulator/internal/bootstrapseed, which stores it into a new simulator's etcd.
package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	schedulingapiv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bootstrapobjects:", err)
		os.Exit(1)
	}
}

func run() error {
	var objs []runtime.Object
	// The hook's own lists (pkg/registry/rbac/rest.PolicyData).
	for _, r := range append(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()...) {
		r.TypeMeta = typeMeta("ClusterRole")
		objs = append(objs, &r)
	}
	for _, b := range append(bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ControllerRoleBindings()...) {
		b.TypeMeta = typeMeta("ClusterRoleBinding")
		objs = append(objs, &b)
	}
	roles := bootstrappolicy.NamespaceRoles()
	for _, ns := range slices.Sorted(maps.Keys(roles)) {
		for _, r := range roles[ns] {
			r.TypeMeta = typeMeta("Role")
			objs = append(objs, &r)
		}
	}
	bindings := bootstrappolicy.NamespaceRoleBindings()
	for _, ns := range slices.Sorted(maps.Keys(bindings)) {
		for _, b := range bindings[ns] {
			b.TypeMeta = typeMeta("RoleBinding")
			objs = append(objs, &b)
		}
	}
	// The scheduling hook's (pkg/registry/scheduling/rest).
	for _, pc := range schedulingapiv1.SystemPriorityClasses() {
		// As a create through the API stores it.
		schedulingapiv1.SetObjectDefaults_PriorityClass(pc)
		pc.TypeMeta = metav1.TypeMeta{APIVersion: schedulingv1.SchemeGroupVersion.String(), Kind: "PriorityClass"}
		objs = append(objs, pc)
	}

	list := corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	for _, o := range objs {
		raw, err := json.Marshal(o)
		if err != nil {
			return err
		}
		list.Items = append(list.Items, runtime.RawExtension{Raw: raw})
	}
	out, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}

// typeMeta is an RBAC kind's.
func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: kind}
}

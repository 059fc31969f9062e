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

package sandbox

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestEnsureCreatesOnce(t *testing.T) {
	client := fake.NewClientset()
	g := &Granter{Client: client.RbacV1()}
	ctx := context.Background()
	if err := g.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := client.RbacV1().ClusterRoleBindings().Get(ctx, BindingName, metav1.GetOptions{})
	if err != nil || b.RoleRef.Name != "cluster-admin" || b.Subjects[0].Name != "system:authenticated" {
		t.Fatalf("binding %+v, %v", b, err)
	}
	// Deleted by a user afterwards: it stays deleted.
	if err := client.RbacV1().ClusterRoleBindings().Delete(ctx, BindingName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := g.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Get(ctx, BindingName, metav1.GetOptions{}); err == nil {
		t.Error("Ensure recreated a binding the user deleted")
	}
	// A new start (a new Granter) with the binding already there is fine.
	if err := (&Granter{Client: client.RbacV1()}).Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if err := (&Granter{Client: client.RbacV1()}).Ensure(ctx); err != nil {
		t.Errorf("AlreadyExists must not be an error: %v", err)
	}
}

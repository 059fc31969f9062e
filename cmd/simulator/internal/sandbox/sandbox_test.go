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

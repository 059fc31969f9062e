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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// TestMetadataClient: the host's namespace and garbage collectors reach
// simulators through the metadata client, which asks for protobuf first.
// Its list and deletecollection get their answer (the group answers in
// JSON: its types have no protobuf form), where deletecollection got a 500
// after it had deleted, and namespace deletion reported
// NamespaceDeletionContentFailure on every pass.
func TestMetadataClient(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "metadata")
	for _, name := range []string{"a", "b"} {
		if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator(name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	client, err := metadata.NewForConfig(metadata.ConfigFor(rest.CopyConfig(c.Config)))
	if err != nil {
		t.Fatal(err)
	}
	simulators := client.Resource(v1alpha1.SchemeGroupVersion.WithResource("simulators")).Namespace(ns)
	list, err := simulators.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list through the metadata client: %v", err)
	}
	if len(list.Items) != 2 {
		t.Errorf("%d simulators listed, want 2", len(list.Items))
	}
	if err := simulators.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatalf("deletecollection through the metadata client: %v", err)
	}
	eventually(t, "the simulators to go", func(ctx context.Context) (bool, error) {
		list, err := simClient(t).SimV1alpha1().Simulators(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == 0, err
	})
}

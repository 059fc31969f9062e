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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestServerDryRunDeploy applies the deploy manifests, as kustomize builds
// them, with --dry-run=server to a host control plane of its own: the shared
// one already routes sim.x-k8s.io to a local process through a Service and
// APIService of the same names.
func TestServerDryRunDeploy(t *testing.T) {
	hostCluster(t)
	c := framework.Start(t, framework.Options{WithoutSimAPIServer: true})
	// A dry run does not create the namespace the other objects go to.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: framework.SimNamespace}}
	if _, err := c.Client.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", framework.SimNamespace, err)
	}
	out, err := kubectlWith(t, c, c.KubeconfigPath, "apply", "--dry-run=server", "-k", "artifacts/deploy")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kubectl printed:\n%s", out)
}

// TestServerDryRunExamples applies the examples with --dry-run=server:
// sim-apiserver decodes, defaults, validates and admits them without
// storing anything.
func TestServerDryRunExamples(t *testing.T) {
	c := hostCluster(t)
	out, err := kubectl(t, c.KubeconfigPath, "apply", "--dry-run=server", "-f", "artifacts/examples")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kubectl printed:\n%s", out)
}

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

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestExampleNodePool is issue 10's "done when", the README's path on the
// real node: the example simulator runs as a Pod, the example NodePool is
// applied and scaled to 2,000 with kubectl, `kubectl get np` shows READY
// 2000/2000, and kubectl inside the simulator, with the kubeconfig the
// server hands out, lists the same 2,000 Nodes, all Ready.
func TestExampleNodePool(t *testing.T) {
	const replicas = 2000
	ns := newNamespace(t, "example-pool-")
	for _, f := range []string{"artifacts/examples/simulator.yaml", "artifacts/examples/nodepool.yaml"} {
		if _, err := kubectl(t, "apply", "-n", ns, "-f", f); err != nil {
			t.Fatal(err)
		}
	}
	waitAvailable(t, ns, "example")
	if out, err := kubectl(t, "wait", "-n", ns, "--for=condition=Ready", "nodepool/workers", "--timeout=120s"); err != nil {
		t.Fatalf("the example pool: %v\n%s", err, out)
	}
	if _, err := kubectl(t, "scale", "-n", ns, "nodepool/workers", fmt.Sprintf("--replicas=%d", replicas)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out, err := kubectl(t, "wait", "-n", ns, "--for=condition=Ready", "nodepool/workers", "--timeout=300s"); err != nil {
		t.Fatalf("the pool scaled to %d: %v\n%s", replicas, err, out)
	}
	t.Logf("100 → %d Nodes Ready in %v", replicas, time.Since(start).Round(100*time.Millisecond))
	out, err := kubectl(t, "get", "-n", ns, "np", "workers", "--no-headers")
	want := []string{"workers", "example", "2000", "2000", "2000"}
	if f := strings.Fields(out); err != nil || len(f) < len(want) || !slices.Equal(f[:len(want)], want) {
		t.Errorf("kubectl get np: %v %q, want %v …", err, out, want)
	}

	raw, err := kubectl(t, "get", "--raw", framework.SimulatorPath(ns, "example", "kubeconfig", ""))
	if err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(t.TempDir(), "kc")
	if err := os.WriteFile(kc, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = framework.Kubectl(t, hostCluster(t), kc, "get", "nodes", "-l", sim.LabelNodePool+"=workers", "--no-headers",
		"-o", `custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status`)
	if err != nil {
		t.Fatalf("kubectl --kubeconfig kc get nodes: %v", err)
	}
	names := map[string]bool{}
	var notReady []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("kubectl get nodes: unexpected line %q", line)
		}
		names[f[0]] = true
		if f[1] != "True" {
			notReady = append(notReady, f[0])
		}
	}
	var missing []string
	for i := range replicas {
		if !names[sim.NodeName("workers", i)] {
			missing = append(missing, sim.NodeName("workers", i))
		}
	}
	if len(names) != replicas || len(missing) > 0 || len(notReady) > 0 {
		t.Errorf("inside: %d Nodes, want %d; missing %v; not Ready %v", len(names), replicas, missing[:min(len(missing), 10)], notReady[:min(len(notReady), 10)])
	}
}

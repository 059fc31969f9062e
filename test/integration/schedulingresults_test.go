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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// TestSchedulingExplainedByKubectl is the user's path end to end: a
// NodePool makes the Nodes of a simulator, and `kubectl describe pod`,
// with the kubeconfig the server hands out (through the host), explains
// where a Pod went and why, and why another went nowhere.
func TestSchedulingExplainedByKubectl(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "explain")
	runningSimulator(t, ns, "sim")
	const nodes = 20
	pool := fmt.Sprintf(`apiVersion: sim.x-k8s.io/v1alpha1
kind: NodePool
metadata: {name: workers, namespace: %s}
spec:
  simulatorName: sim
  replicas: %d
  template:
    metadata:
      labels: {rack: 'r{{ mod .Index 4 }}'}
    status:
      capacity: {cpu: "4", memory: 16Gi, pods: "110"}
      allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
`, ns, nodes)
	pods := `apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: default}
spec:
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "100"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 500m}}}]
`
	dir := t.TempDir()
	for name, data := range map[string]string{"pool.yaml": pool, "pods.yaml": pods} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(dir, "pool.yaml")); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	if out, err := kubectl(t, host.KubeconfigPath, "wait", "-n", ns, "--for=condition=Ready", "nodepool/workers", "--timeout=180s"); err != nil {
		t.Fatalf("kubectl wait: %v\n%s", err, out)
	}
	kc := fetchKubeconfig(t, ns, "sim", "")
	if out, err := kubectl(t, kc, "apply", "-f", filepath.Join(dir, "pods.yaml")); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}

	// describe waits until kubectl describe pod shows a SchedulingResult
	// Event matching re, and returns the match. It takes the subtest's t:
	// a parent's Fatal from a subtest does not stop the subtest.
	describe := func(t *testing.T, pod string, re *regexp.Regexp) []string {
		t.Helper()
		var m []string
		var last string
		err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			out, err := kubectl(t, kc, "describe", "-n", "default", "pod", pod)
			if err != nil {
				last = err.Error()
				return false, nil
			}
			last = out
			m = re.FindStringSubmatch(out)
			return m != nil, nil
		})
		if err != nil {
			t.Fatalf("waiting for kubectl describe pod %s to show %s: %v; last:\n%s", pod, re, err, last)
		}
		t.Logf("kubectl describe pod %s: %s", pod, m[0])
		return m
	}

	t.Run("a Pod that fits nowhere: every node's filter reason", func(t *testing.T) {
		want := fmt.Sprintf(`SchedulingResult\s+.*0/%d nodes: NodeResourcesFit: Insufficient cpu \((\d+)\)`, nodes)
		m := describe(t, "huge", regexp.MustCompile(want))
		if m[1] != strconv.Itoa(nodes) {
			t.Errorf("describe counts %s nodes with Insufficient cpu, want %d", m[1], nodes)
		}
		// Node by node, on the Pod.
		out, err := kubectl(t, kc, "get", "-n", "default", "pod", "huge", "-o", `jsonpath={.metadata.annotations.kube-scheduler-simulator\.sigs\.k8s\.io/filter-result}`)
		if err != nil {
			t.Fatal(err)
		}
		var filter map[string]map[string]string
		if err := json.Unmarshal([]byte(out), &filter); err != nil {
			t.Fatalf("filter-result %q: %v", out, err)
		}
		for i := range nodes {
			node := fmt.Sprintf("workers-%d", i)
			if got := filter[node]["NodeResourcesFit"]; got != "Insufficient cpu" {
				t.Errorf("filter-result of %s: %v, want NodeResourcesFit: Insufficient cpu", node, filter[node])
			}
		}
	})

	t.Run("a Pod that fits: scores whose maximum is the selected node", func(t *testing.T) {
		m := describe(t, "web", regexp.MustCompile(`Scheduled\s+.*Successfully assigned default/web to (\S+) \(\d+/\d+ nodes evaluated, \d+ feasible\): top scores (.*)`))
		selected, top := m[1], m[2]
		boundTo, err := kubectl(t, kc, "get", "-n", "default", "pod", "web", "-o", "jsonpath={.spec.nodeName}")
		if err != nil {
			t.Fatal(err)
		}
		if selected != strings.TrimSpace(boundTo) {
			t.Errorf("describe says scheduled to %s, the Pod is bound to %q", selected, boundTo)
		}
		// "n-3 412, n-7 398 …": the first is the selected node, and the best.
		best := int64(-1)
		for i, entry := range strings.Split(strings.TrimSuffix(strings.TrimSpace(top), " …"), ", ") {
			f := strings.Fields(entry)
			if len(f) != 2 {
				t.Fatalf("top scores %q", top)
			}
			score, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("top scores %q: %v", top, err)
			}
			if i == 0 {
				best = score
				if f[0] != selected {
					t.Errorf("top scores %q begin with %s, not the selected %s", top, f[0], selected)
				}
			} else if score > best {
				t.Errorf("top scores %q: %s scored more than the selected node", top, f[0])
			}
		}
	})
}

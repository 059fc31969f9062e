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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// TestScenarioInExistingSimulators runs a timeline in two simulators (run
// as processes), with a NodePool the scenario makes in each and scales
// halfway, and reads the outcome where a user would: kubectl get, the
// status, kubectl describe and the report.
func TestScenarioInExistingSimulators(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "scenario")
	runningSimulator(t, ns, "alpha")
	runningSimulator(t, ns, "beta")
	manifest := fmt.Sprintf(`apiVersion: sim.x-k8s.io/v1alpha1
kind: Scenario
metadata: {name: compare, namespace: %s}
spec:
  simulators: [alpha, beta]
  nodePools:
  - name: small
    replicas: 4
    template:
      status:
        capacity: {cpu: "4", memory: 8Gi, pods: "110"}
        allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  timeline:
  - at: 0s
    create:
      objects:
      - apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: default}
        spec:
          replicas: 12
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: web}}
            spec:
              containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1", memory: 1Gi}}}]
  - at: 1s
    wait: {for: PodsSettled, timeout: 60s}
  - at: 2s
    scale: {kind: NodePool, name: small, replicas: 6}
  - at: 3s
    scale: {kind: Deployment, namespace: default, name: web, replicas: 22}
  - at: 4s
    wait: {for: PodsSettled, timeout: 60s}
  duration: 15s
`, ns)
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := kubectl(t, host.KubeconfigPath, "apply", "-f", path); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	if out, err := kubectl(t, host.KubeconfigPath, "wait", "-n", ns, "--for=jsonpath={.status.phase}=Succeeded", "scenario/compare", "--timeout=240s"); err != nil {
		scn, _ := simClient(t).SimV1alpha1().Scenarios(ns).Get(context.Background(), "compare", metav1.GetOptions{})
		t.Fatalf("kubectl wait: %v\n%s\nstatus: %+v", err, out, scn.Status)
	}
	scn, err := simClient(t).SimV1alpha1().Scenarios(ns).Get(t.Context(), "compare", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(scn.Status.Variants) != 2 {
		t.Fatalf("variants: %+v", scn.Status.Variants)
	}
	for _, v := range scn.Status.Variants {
		// 6 Nodes of 4 CPUs hold 24 Pods of 1 CPU: all 22 fit once the pool grew.
		if v.PodsScheduled < 22 || v.PodsUnschedulable != 0 || v.NodesUsed < 6 || v.Progress != 100 {
			t.Errorf("variant %s: %d scheduled, %d unschedulable, %d Nodes used, progress %d; want ≥ 22, 0, 6, 100 (%s)",
				v.Name, v.PodsScheduled, v.PodsUnschedulable, v.NodesUsed, v.Progress, v.Message)
		}
		if v.CPU.MeanPercent <= 0 || v.BindLatency.P99Milliseconds <= 0 {
			t.Errorf("variant %s: CPU %+v, bind latency %+v", v.Name, v.CPU, v.BindLatency)
		}
	}
	if len(scn.Status.Comparisons) != 1 || scn.Status.Comparisons[0].Variant != "beta" || scn.Status.Comparisons[0].Baseline != "alpha" {
		t.Errorf("comparisons: %+v", scn.Status.Comparisons)
	}
	// The scaled pool, made in each simulator by the scenario.
	for _, s := range []string{"alpha", "beta"} {
		pool, err := simClient(t).SimV1alpha1().NodePools(ns).Get(t.Context(), s+"-small", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ptr.Deref(pool.Spec.Replicas, 0) != 6 {
			t.Errorf("NodePool %s has %d replicas, want 6 (scaled by the timeline)", pool.Name, ptr.Deref(pool.Spec.Replicas, 0))
		}
	}

	out, err := kubectl(t, host.KubeconfigPath, "get", "-n", ns, "scenario", "compare")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kubectl get scenario:\n%s", out)
	for _, want := range []string{"PHASE", "Succeeded", "100%", "alpha:", "beta:"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get scenario lacks %q:\n%s", want, out)
		}
	}
	eventually(t, "kubectl describe to show the comparison", func(ctx context.Context) (bool, error) {
		out, err := kubectl(t, host.KubeconfigPath, "describe", "-n", ns, "scenario", "compare")
		return err == nil && strings.Contains(out, "Compared") && strings.Contains(out, "beta vs alpha"), nil
	})
	for sub, want := range map[string]string{"/markdown": "| alpha", "": `"samples"`, "/svg/allocation": "<polyline"} {
		out, err := kubectl(t, host.KubeconfigPath, "get", "--raw", fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/scenarios/compare/report%s", ns, sub))
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("report%s: %v\n%.400s", sub, err, out)
		}
	}

	// Deleted: the pools it made go, the simulators it did not make stay.
	if err := simClient(t).SimV1alpha1().Scenarios(ns).Delete(t.Context(), "compare", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the scenario's NodePools to go", func(ctx context.Context) (bool, error) {
		pools, err := simClient(t).SimV1alpha1().NodePools(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(pools.Items) == 0, nil
	})
	for _, s := range []string{"alpha", "beta"} {
		if _, err := simClient(t).SimV1alpha1().Simulators(ns).Get(t.Context(), s, metav1.GetOptions{}); err != nil {
			t.Errorf("simulator %s after the scenario's deletion: %v", s, err)
		}
	}
}

// TestScenarioVariantsMadeAndCleanedUp: a scenario with variants makes a
// simulator per variant and the noise floor's second run, each with its
// NodePools, owned by the scenario; deleted halfway (its simulators never
// become Available here: no node), they all go.
func TestScenarioVariantsMadeAndCleanedUp(t *testing.T) {
	ns := createNamespace(t, "variants")
	scn := &v1alpha1.Scenario{
		ObjectMeta: metav1.ObjectMeta{Name: "bp"},
		Spec: v1alpha1.ScenarioSpec{
			Variants:  []v1alpha1.ScenarioVariant{{Name: "least"}, {Name: "most"}},
			NodePools: []v1alpha1.ScenarioNodePool{{Name: "small", Replicas: ptr.To[int32](3)}},
			Timeline:  []v1alpha1.ScenarioStep{{Wait: &v1alpha1.ScenarioWait{For: v1alpha1.WaitNodesReady}}},
		},
	}
	created, err := simClient(t).SimV1alpha1().Scenarios(ns).Create(t.Context(), scn, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"bp-least", "bp-least-again", "bp-most"}
	eventually(t, "the variants' simulators and NodePools", func(ctx context.Context) (bool, error) {
		sims, err := simClient(t).SimV1alpha1().Simulators(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(sims.Items) != len(want) {
			return false, nil
		}
		pools, err := simClient(t).SimV1alpha1().NodePools(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(pools.Items) == len(want), nil
	})
	for _, name := range want {
		s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !metav1.IsControlledBy(s, created) {
			t.Errorf("simulator %s is not controlled by the scenario: %v", name, s.OwnerReferences)
		}
		pool, err := simClient(t).SimV1alpha1().NodePools(ns).Get(t.Context(), name+"-small", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pool.Spec.SimulatorName != name || ptr.Deref(pool.Spec.Replicas, 0) != 3 {
			t.Errorf("NodePool %s: %+v", pool.Name, pool.Spec)
		}
	}
	eventually(t, "the scenario to say what it waits for", func(ctx context.Context) (bool, error) {
		got, err := simClient(t).SimV1alpha1().Scenarios(ns).Get(ctx, "bp", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == "Ready" && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "simulator bp-least is") {
				return got.Status.Phase == v1alpha1.ScenarioPending, nil
			}
		}
		return false, nil
	})

	if err := simClient(t).SimV1alpha1().Scenarios(ns).Delete(t.Context(), "bp", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		sims, err := simClient(t).SimV1alpha1().Simulators(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		pools, err := simClient(t).SimV1alpha1().NodePools(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		// A simulator being deleted is gone for this purpose.
		live := 0
		for _, s := range sims.Items {
			if s.DeletionTimestamp == nil {
				live++
			}
		}
		return live == 0 && len(pools.Items) == 0, nil
	})
	if err != nil {
		t.Fatalf("the deleted scenario's simulators and NodePools: %v", err)
	}
	_, err = simClient(t).SimV1alpha1().Scenarios(ns).Get(t.Context(), "bp", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the scenario after its deletion: %v", err)
	}
}

// TestScenarioBadInput: mistakes are 422s naming the field.
func TestScenarioBadInput(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "scenario-bad")
	for _, tc := range []struct{ name, spec, want string }{
		{
			name: "unknown plugin",
			spec: `variants:
  - name: odd
    schedulerConfiguration:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: KubeSchedulerConfiguration
      profiles:
      - schedulerName: default-scheduler
        plugins:
          score:
            enabled: [{name: NoSuchPlugin}]`,
			want: "spec.variants[0].schedulerConfiguration.profiles[0].plugins.score.enabled[0].name",
		},
		{
			name: "missing NodePool",
			spec: `variants: [{name: a}]
  timeline:
  - at: 1s
    scale: {kind: NodePool, name: nowhere, replicas: 3}`,
			want: "spec.timeline[0].scale.name",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := fmt.Sprintf("apiVersion: sim.x-k8s.io/v1alpha1\nkind: Scenario\nmetadata: {name: bad, namespace: %s}\nspec:\n  %s\n", ns, tc.spec)
			path := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := kubectl(t, host.KubeconfigPath, "create", "-f", path)
			if err == nil {
				t.Fatalf("kubectl create accepted it:\n%s", out)
			}
			// kubectl writes the server's Status to stderr, which the error carries.
			if msg := err.Error(); !strings.Contains(msg, "is invalid") || !strings.Contains(msg, tc.want) {
				t.Errorf("kubectl create: want a 422 naming %s, got:\n%s", tc.want, msg)
			}
		})
	}
}

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
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/storage/hoststore"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestUserSizeLimit: a user fills a Simulator's record to just under the
// users' limit (55 KB of annotations, within validation's limit, owned by
// many server-side-apply field managers, whose managedFields fill the rest);
// one more manager is refused with 413. The server's own writes still fit:
// the simulator becomes Available, and kubectl delete (a deletionTimestamp,
// then the reconciler's removal of the finalizer) makes it go. A NodePool
// filled the same way takes its status and goes with its namespace.
func TestUserSizeLimit(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "usersize")

	t.Run("simulator", func(t *testing.T) {
		ctx := t.Context()
		sims := simClient(t).SimV1alpha1().Simulators(ns)
		const name = "full"
		fillToUserLimit(t, "simulators", ns, name, 800, func(body []byte, manager string) error {
			_, err := sims.Patch(ctx, name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: manager, Force: ptr.To(true)})
			return err
		})

		// The server's writes fit: its reconciler's annotations on Available...
		makeReady(t, waitForPod(t, ns, name, 1))
		waitForPhase(t, simClient(t), ns, name, v1alpha1.SimulatorAvailable)
		// ...the deletionTimestamp, and the removal of the finalizer.
		if out, err := kubectl(t, host.KubeconfigPath, "delete", "simulator", name, "-n", ns, "--wait=false"); err != nil {
			t.Fatalf("kubectl delete: %v\n%s", err, out)
		}
		eventually(t, "the simulator gone", func(ctx context.Context) (bool, error) {
			// Play the kubelet: the Pod the finalizer deletes was bound.
			for _, p := range simulatorPods(ctx, t, ns, name) {
				if p.DeletionTimestamp != nil {
					err := host.Client.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
					if err != nil && !apierrors.IsNotFound(err) {
						return false, err
					}
				}
			}
			_, err := sims.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
	})

	t.Run("nodepool", func(t *testing.T) {
		ctx := t.Context()
		pools := simClient(t).SimV1alpha1().NodePools(ns)
		const name = "full-pool"
		// A pool of a simulator that does not exist: its reconciler says so
		// in its status, and lets it go at once when it is deleted.
		fillToUserLimit(t, "nodepools", ns, name, 400, func(body []byte, manager string) error {
			var obj map[string]any
			if err := json.Unmarshal(body, &obj); err != nil {
				t.Fatal(err)
			}
			obj["kind"] = "NodePool"
			obj["spec"] = map[string]any{"simulatorName": "absent"}
			body, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			_, err = pools.Patch(ctx, name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: manager, Force: ptr.To(true)})
			return err
		})
		eventually(t, "the pool's status, written by its reconciler", func(ctx context.Context) (bool, error) {
			np, err := pools.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			c := meta.FindStatusCondition(np.Status.Conditions, v1alpha1.NodePoolConditionReady)
			return c != nil && c.Reason == "SimulatorNotFound", nil
		})
		// Namespace deletion: the namespace controller deletes the pool
		// through the API (its deletionTimestamp fits), its finalizer goes,
		// and the namespace with it.
		if err := host.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		// A bound, not a figure: the namespace controller backs off.
		err := wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := host.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Fatalf("namespace %s still exists %s after its deletion: %v", ns, time.Since(start).Round(time.Second), err)
		}
		t.Logf("namespace %s, holding a NodePool at the users' size limit, went %s after its deletion", ns, time.Since(start).Round(100*time.Millisecond))
	})
}

// fillToUserLimit applies (server-side, with apply(body, manager)) an object
// of resource with keys annotations of 60-character keys, as more and more
// field managers, each of whom owns them all in managedFields, until its
// record is within 1 KiB of the users' limit; then it checks that one more
// manager is refused with 413 and leaves the record as it was.
func fillToUserLimit(t *testing.T, resource, ns, name string, keys int, apply func(body []byte, manager string) error) {
	t.Helper()
	annotationKeys := make([]string, keys)
	for i := range annotationKeys {
		annotationKeys[i] = fmt.Sprintf("k%04d-%s", i, strings.Repeat("x", 54))
	}
	applyAs := func(manager string, n int) error {
		annotations := map[string]string{}
		for _, k := range annotationKeys[:n] {
			annotations[k] = "v"
		}
		body, err := json.Marshal(map[string]any{
			"apiVersion": v1alpha1.SchemeGroupVersion.String(), "kind": "Simulator",
			"metadata": map[string]any{"name": name, "annotations": annotations},
		})
		if err != nil {
			t.Fatal(err)
		}
		return apply(body, manager)
	}
	recordBytes := func() int {
		t.Helper()
		cms, err := hostCluster(t).Client.CoreV1().ConfigMaps(framework.SimNamespace).List(t.Context(), metav1.ListOptions{
			LabelSelector: fmt.Sprintf("%s=%s.sim.x-k8s.io,%s=%s,%s=%s", hoststore.LabelResource, resource, hoststore.LabelNamespace, ns, hoststore.LabelName, name),
		})
		if err != nil || len(cms.Items) != 1 {
			t.Fatalf("record of %s %s/%s: %v, %d found", resource, ns, name, err, len(cms.Items))
		}
		return len(cms.Items[0].Data["object"])
	}

	// Whole managers while the next one fits with a margin, then one that
	// owns just enough keys to end within 1 KiB of the limit.
	const limit = hoststore.MaxUserRecordBytes
	managers := 0
	perManager := 0
	for {
		before := 0
		if managers > 0 {
			before = recordBytes()
		}
		if managers > 1 && before+perManager+2048 > limit {
			break
		}
		if err := applyAs(fmt.Sprintf("filler-%02d", managers), keys); err != nil {
			t.Fatalf("applying as filler-%02d at %d bytes: %v", managers, before, err)
		}
		managers++
		if managers > 1 {
			perManager = recordBytes() - before
		}
	}
	perKey := perManager / keys
	n := 0
	for size := recordBytes(); size < limit-1024; size = recordBytes() {
		n = min(keys, n+max(1, (limit-512-size)/perKey))
		if err := applyAs("filler-last", n); err != nil {
			t.Fatalf("applying %d keys as filler-last at %d bytes: %v", n, size, err)
		}
	}
	size := recordBytes()
	t.Logf("%d field managers of %d bytes each and one of %d keys: the record holds %d bytes (users' limit %d, hard limit %d)",
		managers, perManager, n, size, limit, hoststore.MaxRecordBytes)
	if size > limit || size < limit-4096 {
		t.Fatalf("the record holds %d bytes, want just under %d", size, limit)
	}

	// One more manager would take it over the users' limit.
	err := applyAs("one-too-many", keys)
	if !apierrors.IsRequestEntityTooLargeError(err) || !strings.Contains(err.Error(), fmt.Sprintf("a user's write may leave at most %d", limit)) {
		t.Fatalf("one more field manager: %v, want 413 saying the users' limit", err)
	}
	if got := recordBytes(); got != size {
		t.Errorf("the refused apply changed the record: %d bytes, was %d", got, size)
	}
}

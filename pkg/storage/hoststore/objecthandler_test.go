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

package hoststore

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
)

// TestObjectHandler: the handler hears of each object of its resource as
// its record comes and goes, and of no other record.
func TestObjectHandler(t *testing.T) {
	record := func(resource, ns, name, recordName string) *corev1.ConfigMap {
		if recordName == "" {
			recordName = objectRef{resource: resource, namespace: ns, name: name}.recordName()
		}
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "sim-system", Name: recordName,
			Labels: map[string]string{LabelResource: resource, LabelNamespace: ns, LabelName: name}}}
	}
	const sims = "simulators.sim.x-k8s.io"
	client := kubefake.NewClientset(
		record(sims, "a", "one", ""),
		record("nodepools.sim.x-k8s.io", "b", "pool", ""),
		// Planted: its name is not its labels'.
		record(sims, "kube-system", "planted", "rec-planted"),
	)
	records := NewRecords(client, "sim-system")
	var mu sync.Mutex
	var events []string
	log := func(what string) func(ns, name string) {
		return func(ns, name string) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, what+" "+ns+"/"+name)
		}
	}
	synced, err := records.AddObjectHandler(sims, log("added"), log("deleted"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	records.Start(ctx)
	seen := func(want ...string) {
		t.Helper()
		var got []string
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			got = slices.Clone(events)
			return synced() && len(got) >= len(want), nil
		})
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("events %q, want %q", got, want)
		}
	}
	seen("added a/one")
	second := record(sims, "c", "two", "")
	if _, err := client.CoreV1().ConfigMaps("sim-system").Create(ctx, second, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	seen("added a/one", "added c/two")
	if err := client.CoreV1().ConfigMaps("sim-system").Delete(ctx, second.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	seen("added a/one", "added c/two", "deleted c/two")
}

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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// costStore is the nodepools storage over records planted in a fake host:
// count NodePools of size bytes in namespace ns, and one simulator.
func costStore(t *testing.T, ns string, count, size int) (*store, *Records) {
	t.Helper()
	var objs []runtime.Object
	plant := func(resource, name string, data string) {
		ref := objectRef{resource: resource, namespace: ns, name: name}
		objs = append(objs, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: ref.recordName(), Namespace: "sim-system", ResourceVersion: "5",
				Labels: recordLabels(ref, &metav1.ObjectMeta{})},
			Data: map[string]string{dataKey: data},
		})
	}
	for i := range count {
		plant("nodepools.sim.x-k8s.io", "pool-"+string(rune('a'+i)), strings.Repeat("x", size))
	}
	plant("simulators.sim.x-k8s.io", "sim", strings.Repeat("y", 10*size))
	records := NewRecords(fake.NewClientset(objs...), "sim-system")
	scheme := runtime.NewScheme()
	install.Install(scheme)
	s, _, err := records.Decorator(&storagebackend.ConfigForResource{
		Config:        storagebackend.Config{Codec: serializer.NewCodecFactory(scheme).LegacyCodec(v1alpha1.SchemeGroupVersion)},
		GroupResource: sim.Resource("nodepools"),
	}, "/sim.x-k8s.io/nodepools", nil, func() runtime.Object { return &sim.NodePool{} }, func() runtime.Object { return &sim.NodePoolList{} }, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*store), records
}

// TestStats: API Priority and Fairness learns the count and average size of
// a resource's records from the cache (and nothing before it has synced), so
// that a list of many large objects costs more seats than a get.
func TestStats(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, records := costStore(t, "ns", 3, 1000)
	if _, err := s.Stats(ctx); err == nil {
		t.Error("Stats before the cache synced: no error, want one (a count of 0 would make every list cheap)")
	}
	records.Start(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), records.HasSynced) {
		t.Fatal("the records' cache did not sync")
	}
	got, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (storage.Stats{ObjectCount: 3, EstimatedAverageObjectSizeBytes: 1000}); got != want {
		t.Errorf("Stats: %+v, want %+v (the simulator's record is not a NodePool)", got, want)
	}
}

// TestListBudget: lists take the bytes of their scope's records from a
// budget shared by every resource; a list over the whole budget takes it
// all, and one that cannot get its share before its caller gives up is a
// 429.
func TestListBudget(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, records := costStore(t, "ns", 4, 1000)
	records.Start(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), records.HasSynced) {
		t.Fatal("the records' cache did not sync")
	}

	// Another namespace's list costs next to nothing; this one's, its records.
	release, err := s.acquireList(ctx, scope{namespace: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.lists.TryAcquire(listBytes - 1) {
		t.Error("a list of an empty namespace took more than one byte of the budget")
	} else {
		s.lists.Release(listBytes - 1)
	}
	release()
	release, err = s.acquireList(ctx, scope{namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	if s.lists.TryAcquire(listBytes - 4000) {
		t.Error("a list of 4 records of 1000 bytes took less than 4000 bytes of the budget")
	}
	release()

	// With the budget taken, a list waits, and gets a 429 when its caller
	// gives up.
	if !s.lists.TryAcquire(listBytes) {
		t.Fatal("the budget is not free")
	}
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	if _, err := s.acquireList(short, scope{namespace: "ns"}); !apierrors.IsTooManyRequests(err) {
		t.Errorf("a list with the budget taken: %v, want a 429", err)
	}
	s.lists.Release(listBytes)
	// The planted records are bytes, not objects: the list reads them and
	// fails on the first, as a list fails on a damaged record.
	list := &sim.NodePoolList{}
	err = s.GetList(ctx, "/sim.x-k8s.io/nodepools/ns", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list)
	if !storage.IsCorruptObject(err) {
		t.Fatalf("a list with the budget free, of garbage records: %v, want a corrupt-object error", err)
	}
	if !s.lists.TryAcquire(listBytes) {
		t.Error("a list did not give its share of the budget back")
	}
}

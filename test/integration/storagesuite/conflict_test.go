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

package storagesuite

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/apis/example"
	"k8s.io/apiserver/pkg/storage"
)

// TestConcurrentWriters stands in for the upstream
// GuaranteedUpdateWithConflict (not applicable, see notApplicable): writers
// that all start from one revision of an object, through hoststore against
// the host, each get the host's 409 but one, and GuaranteedUpdate's retry
// (re-read, re-apply) makes every update count: none lost, none doubled.
func TestConcurrentWriters(t *testing.T) {
	const writers, updatesEach = 8, 5
	s := newTestStore(t)
	ctx := t.Context()
	key := "/pods/test/counter"
	pod := &example.Pod{ObjectMeta: metav1.ObjectMeta{Name: "counter", Namespace: "test", Labels: map[string]string{"n": "0"}}}
	if err := s.Create(ctx, key, pod, &example.Pod{}, 0); err != nil {
		t.Fatal(err)
	}
	var (
		calls atomic.Int64
		// Every writer's first attempt waits for all the others' to have
		// read the object: they all start from one revision, so the host
		// refuses all but one of their first writes.
		read sync.WaitGroup
		done sync.WaitGroup
	)
	read.Add(writers)
	for w := range writers {
		done.Add(1)
		go func() {
			defer done.Done()
			for u := range updatesEach {
				first := u == 0
				err := s.GuaranteedUpdate(ctx, key, &example.Pod{}, false, nil,
					storage.SimpleUpdate(func(obj runtime.Object) (runtime.Object, error) {
						calls.Add(1)
						if first {
							first = false
							read.Done()
							read.Wait()
						}
						p := obj.(*example.Pod)
						n, err := strconv.Atoi(p.Labels["n"])
						if err != nil {
							return nil, err
						}
						p.Labels["n"] = strconv.Itoa(n + 1)
						return p, nil
					}), nil)
				if err != nil {
					t.Errorf("writer %d, update %d: %v", w, u, err)
					return
				}
			}
		}()
	}
	done.Wait()
	got := &example.Pod{}
	if err := s.Get(context.Background(), key, storage.GetOptions{}, got); err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(writers * updatesEach); got.Labels["n"] != want {
		t.Errorf("counter = %s after %d updates: updates lost or doubled", got.Labels["n"], writers*updatesEach)
	}
	// At least writers-1 conflicts, each retried.
	if retries := calls.Load() - writers*updatesEach; retries < writers-1 {
		t.Errorf("%d retries, want at least %d: the conflict path did not run", retries, writers-1)
	} else {
		t.Logf("%d updates by %d writers, %d retries after the host's conflicts", writers*updatesEach, writers, retries)
	}
}

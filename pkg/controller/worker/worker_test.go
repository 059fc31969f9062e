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

package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestProcessNextWorkItem(t *testing.T) {
	const key = "ns/name"
	for _, tc := range []struct {
		name         string
		requeueAfter time.Duration
		err          error
		// wantRequeues is the failures the rate limiter counts for key after
		// it had one already: a failure adds one, anything else forgets.
		wantRequeues int
		// wantBack is whether key comes back once the clock passes requeueAfter.
		wantBack bool
	}{
		{name: "error", err: errors.New("boom"), wantRequeues: 2},
		{name: "error with a delay", requeueAfter: time.Minute, err: errors.New("boom"), wantRequeues: 2},
		{name: "look again later", requeueAfter: time.Minute, wantBack: true},
		{name: "done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := clocktesting.NewFakeClock(time.Now())
			queue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
				workqueue.TypedRateLimitingQueueConfig[string]{Clock: clock})
			defer queue.ShutDown()
			// A failure before this sync, which the limiter remembers.
			queue.AddRateLimited(key)
			clock.Step(time.Hour)
			var synced []string
			sync := func(_ context.Context, key string) (time.Duration, error) {
				synced = append(synced, key)
				return tc.requeueAfter, tc.err
			}
			if !processNextWorkItem(context.Background(), "test", queue, sync) {
				t.Fatal("processNextWorkItem reported the queue shut down")
			}
			if len(synced) != 1 || synced[0] != key {
				t.Fatalf("synced %q, want [%q]", synced, key)
			}
			if got := queue.NumRequeues(key); got != tc.wantRequeues {
				t.Errorf("NumRequeues = %d, want %d", got, tc.wantRequeues)
			}
			if tc.wantBack {
				if queue.Len() != 0 {
					t.Fatalf("key is back before its delay")
				}
				clock.Step(tc.requeueAfter)
				if got, _ := queue.Get(); got != key {
					t.Errorf("got %q back, want %q", got, key)
				}
			} else if tc.err == nil && queue.Len() != 0 {
				t.Errorf("queue holds %d keys, want none", queue.Len())
			}
		})
	}
}

func TestProcessNextWorkItemShutDown(t *testing.T) {
	queue := NewQueue("test")
	queue.ShutDown()
	sync := func(context.Context, string) (time.Duration, error) {
		t.Fatal("synced after shutdown")
		return 0, nil
	}
	if processNextWorkItem(context.Background(), "test", queue, sync) {
		t.Error("processNextWorkItem went on after the queue shut down")
	}
}

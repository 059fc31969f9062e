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

// Package worker runs a reconciler's workers in the client-go idiom: each
// takes a key off a rate-limited queue and syncs it; a failed sync puts the
// key back rate limited, one that asks to look again later puts it back
// after that delay, and any other forgets its failures.
package worker

import (
	"context"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Queue is a reconciler's queue of namespace/name keys.
type Queue = workqueue.TypedRateLimitingInterface[string]

// NewQueue returns the queue of the reconciler name, which also names its
// workqueue metrics.
func NewQueue(name string) Queue {
	return workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name})
}

// Sync reconciles the object of key. A positive requeueAfter asks to look
// at it again after that long.
type Sync func(ctx context.Context, key string) (requeueAfter time.Duration, err error)

// Run waits for the caches, then syncs the keys of queue with workers until
// ctx ends. name names the reconciler in logs; errors carry the key under it.
// The caller owns queue and shuts it down.
func Run(ctx context.Context, name string, queue Queue, workers int, sync Sync, synced ...cache.InformerSynced) {
	logger := klog.FromContext(ctx)
	logger.Info("Starting the " + name + " reconciler")
	if !cache.WaitForNamedCacheSync(name, ctx.Done(), synced...) {
		return
	}
	for range workers {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for processNextWorkItem(ctx, name, queue, sync) {
			}
		}, time.Second)
	}
	<-ctx.Done()
	logger.Info("Stopping the " + name + " reconciler")
}

// processNextWorkItem syncs one key; it returns false once queue shuts down.
func processNextWorkItem(ctx context.Context, name string, queue Queue, sync Sync) bool {
	key, quit := queue.Get()
	if quit {
		return false
	}
	defer queue.Done(key)
	requeueAfter, err := sync(ctx, key)
	switch {
	case err != nil:
		utilruntime.HandleErrorWithContext(ctx, err, "Reconciling "+name, name, key)
		queue.AddRateLimited(key)
	case requeueAfter > 0:
		queue.Forget(key)
		queue.AddAfter(key, requeueAfter)
	default:
		queue.Forget(key)
	}
	return true
}

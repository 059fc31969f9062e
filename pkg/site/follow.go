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

package site

import (
	"context"
	"fmt"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Follower keeps the hosting registry's simulators those stored: a
// simulator that names a hosting cluster acquires it, one deleted (or no
// longer hosted there) releases it. It runs on every replica, as reads of
// status need the hosting caches, not only the leader's reconciler; and
// only stored simulators hold a hosting cluster, so a refused create or a
// read racing a deletion leaves none followed.
type Follower struct {
	res *Resolver
	// get reads a simulator as stored; found is false once it is gone.
	get   func(ctx context.Context, namespace, name string) (ref Ref, found bool, err error)
	queue workqueue.TypedRateLimitingInterface[string]
}

// NewFollower follows, for res's registry, the simulators that get reads.
func NewFollower(res *Resolver, get func(ctx context.Context, namespace, name string) (Ref, bool, error)) *Follower {
	return &Follower{res: res, get: get, queue: workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 10*time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "hosting-follower"})}
}

// Changed says the simulator namespace/name was stored, changed or
// deleted (the records' handler).
func (f *Follower) Changed(namespace, name string) {
	f.queue.Add(cache.NewObjectName(namespace, name).String())
}

// Run follows until ctx ends.
func (f *Follower) Run(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	go func() {
		<-ctx.Done()
		f.queue.ShutDown()
	}()
	for {
		key, quit := f.queue.Get()
		if quit {
			return
		}
		if err := f.sync(ctx, key); err != nil {
			klog.FromContext(ctx).V(2).Info("Following a simulator's hosting cluster", "simulator", key, "err", err)
			f.queue.AddRateLimited(key)
		} else {
			f.queue.Forget(key)
		}
		f.queue.Done(key)
	}
}

// sync acquires or releases the hosting cluster of the simulator key, as
// it is stored now: the last event's sync reads the last state.
func (f *Follower) sync(ctx context.Context, key string) error {
	name, err := cache.ParseObjectName(key)
	if err != nil {
		return nil
	}
	ref, found, err := f.get(ctx, name.Namespace, name.Name)
	if err != nil {
		return fmt.Errorf("reading the simulator: %w", err)
	}
	if !found || !ref.Hosted() {
		f.res.Hosting.Release(key)
		return nil
	}
	if f.res.signer() == nil {
		// Not before the key: the entry's cache keeps whole only what the
		// key signed, and would keep the simulator's objects as stubs
		// until they change. Retried until the key is read.
		return ErrNoOwnershipKey
	}
	f.res.Hosting.Acquire(ref.Namespace, ref.HostingSecretName, ref.HostingNamespace, key)
	return nil
}

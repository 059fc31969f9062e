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

// Package secretwatch follows one Secret by name: an informer that lists
// and watches that Secret alone (a field selector on its name), so that
// what keeps a Secret, or reads one a user names, acts on each change of it
// without caching the namespace's others.
package secretwatch

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Watch is a running informer of one Secret.
type Watch struct {
	reg  cache.ResourceEventHandlerRegistration
	done sync.WaitGroup
}

// Start follows the Secret namespace/name until ctx ends, telling h of its
// events (and of it again every resync). Events of any other object (a
// fake clientset, for one, ignores field selectors) never reach h. The
// error is the informer's refusal of h, which a new informer never gives.
func Start(ctx context.Context, client kubernetes.Interface, namespace, name string, resync time.Duration, h cache.ResourceEventHandler) (*Watch, error) {
	factory := informers.NewSharedInformerFactoryWithOptions(client, resync,
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}))
	want := namespace + "/" + name
	reg, err := factory.Core().V1().Secrets().Informer().AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool {
			key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			return err == nil && key == want
		},
		Handler: h,
	})
	if err != nil {
		return nil, err
	}
	w := &Watch{reg: reg}
	factory.Start(ctx.Done())
	w.done.Go(func() {
		<-ctx.Done()
		factory.Shutdown()
	})
	return w, nil
}

// HasSynced says whether h has been told of the first list: after it, a
// Secret h never heard of does not exist.
func (w *Watch) HasSynced() bool { return w.reg.HasSynced() }

// Wait returns once ctx has ended and the informer has stopped.
func (w *Watch) Wait() { w.done.Wait() }

// Run calls sync at once, then after every change of the Secret
// namespace/name, every resync, and after a failure (backing off from
// 100 ms to 30 s), until ctx ends. A positive duration returned with no
// error is when sync must run again at the latest. Calls never overlap.
// name names the loop in logs and the work queue's metrics.
func Run(ctx context.Context, client kubernetes.Interface, namespace, name string, resync time.Duration,
	loop string, sync func(context.Context) (time.Duration, error)) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: loop})
	defer queue.ShutDown()
	enqueue := func(any) { queue.Add(name) }
	w, err := Start(ctx, client, namespace, name, resync, cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }, DeleteFunc: enqueue,
	})
	if err != nil {
		logger.Error(err, "Following the Secret", "loop", loop, "secret", klog.KRef(namespace, name))
		return
	}
	defer w.Wait()
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	queue.Add(name)
	for {
		key, quit := queue.Get()
		if quit {
			return
		}
		next, err := sync(ctx)
		switch {
		case err != nil:
			logger.Error(err, "Syncing", "loop", loop, "secret", klog.KRef(namespace, name))
			queue.AddRateLimited(key)
		default:
			queue.Forget(key)
			if next > 0 {
				queue.AddAfter(key, next)
			}
		}
		queue.Done(key)
	}
}

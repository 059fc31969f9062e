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

package simulator

import (
	"context"
	"runtime"
	"testing"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"

	simfake "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned/fake"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
)

// TestTermsLeaveNoHandlers runs reconcilers for several terms on one host
// cache, as lost leases do: a term that ends takes its event handlers off
// the cache. A handler left behind keeps two goroutines of the cache's
// (its listener's run and pop) for good, two per informer of the cache.
func TestTermsLeaveNoHandlers(t *testing.T) {
	const terms = 10
	ctx := t.Context()
	host := kubefake.NewClientset()
	hostCache, err := hostcache.New(host, metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), hostcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A namespace with a simulator, so that the cache has informers to
	// hold handlers.
	err = hostCache.Follow(func(added, _ func(namespace, name string)) (func() bool, error) {
		added("ns", "s")
		return func() bool { return true }, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	hostCache.Start(ctx)
	if !hostCache.WaitForNamespace(ctx, "ns") {
		t.Fatal("the host cache of the simulator's namespace did not sync")
	}
	if !cache.WaitForCacheSync(ctx.Done(), hostCache.HasSynced) {
		t.Fatal("the host cache did not sync")
	}
	sims := simfake.NewClientset()

	term := func() {
		termCtx, cancel := context.WithCancel(ctx)
		factory := siminformers.NewSharedInformerFactory(sims, 0)
		c, err := New(k8sruntime.NewScheme(), sims, factory.Sim().V1alpha1().Simulators(), host, hostCache, "sim-system", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		factory.Start(termCtx.Done())
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.Run(termCtx, 1)
		}()
		// The term is under way once the reconciler's caches have synced.
		if !cache.WaitForCacheSync(ctx.Done(), factory.Sim().V1alpha1().Simulators().Informer().HasSynced) {
			t.Fatal("the simulator informer did not sync")
		}
		cancel()
		<-done
		factory.Shutdown()
	}
	// One term first: what every term starts once (the fake's watchers,
	// the queue's clock) is in the baseline.
	term()
	before := runtime.NumGoroutine()
	for range terms {
		term()
	}
	// Ended goroutines take a moment to go; leaked ones never do.
	after := runtime.NumGoroutine()
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		after = runtime.NumGoroutine()
		return after <= before+terms, nil
	})
	if err != nil {
		t.Errorf("%d goroutines before %d terms and %d after: handlers of ended terms stay on the host cache", before, terms, after)
	}
	t.Logf("%d goroutines before %d terms, %d after", before, terms, after)
}

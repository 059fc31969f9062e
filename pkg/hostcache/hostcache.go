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

// Package hostcache watches the host objects that belong to simulators
// (Pods, Services, Secrets, NetworkPolicies, and the ServiceAccounts, Roles
// and RoleBindings of their kubeconfigs, labelled with one) and finds them by simulator.
// The registry reads status from it; the reconciler acts on it.
package hostcache

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// bySimulator indexes objects by "<namespace>/<simulator name>".
const bySimulator = "simulator"

// Cache holds the host objects of every simulator.
type Cache struct {
	Factory   informers.SharedInformerFactory
	pods      cache.SharedIndexInformer
	informers []cache.SharedIndexInformer
}

// New makes a cache that sees only objects labelled with a simulator, so its
// size follows the number of simulators, not the size of the host.
func New(client kubernetes.Interface, resync time.Duration) (*Cache, error) {
	req, err := labels.NewRequirement(sim.LabelSimulator, selection.Exists, nil)
	if err != nil {
		return nil, err
	}
	selector := labels.NewSelector().Add(*req).String()
	factory := informers.NewSharedInformerFactoryWithOptions(client, resync,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	c := &Cache{Factory: factory}
	c.pods = factory.Core().V1().Pods().Informer()
	c.informers = []cache.SharedIndexInformer{
		c.pods,
		factory.Core().V1().Services().Informer(),
		factory.Core().V1().Secrets().Informer(),
		factory.Core().V1().ServiceAccounts().Informer(),
		factory.Rbac().V1().Roles().Informer(),
		factory.Rbac().V1().RoleBindings().Informer(),
		factory.Networking().V1().NetworkPolicies().Informer(),
	}
	for _, inf := range c.informers {
		if err := inf.AddIndexers(cache.Indexers{bySimulator: indexBySimulator}); err != nil {
			return nil, fmt.Errorf("adding the simulator index: %w", err)
		}
	}
	return c, nil
}

func indexBySimulator(obj interface{}) ([]string, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	name, ok := m.GetLabels()[sim.LabelSimulator]
	if !ok {
		return nil, nil
	}
	return []string{Key(m.GetNamespace(), name)}, nil
}

func metaOf(obj interface{}) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("object %T has no metadata", obj)
	}
	return m, nil
}

// Key is the index key of a simulator.
func Key(namespace, name string) string { return namespace + "/" + name }

// Start runs the informers until ctx ends.
func (c *Cache) Start(ctx context.Context) { c.Factory.Start(ctx.Done()) }

// HasSynced says whether every informer has its initial list.
func (c *Cache) HasSynced() bool {
	for _, inf := range c.informers {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

// Informers are every informer of the cache, for event handlers.
func (c *Cache) Informers() []cache.SharedIndexInformer { return c.informers }

// SimulatorPods returns the host Pods of a simulator (all generations).
func (c *Cache) SimulatorPods(namespace, name string) []*corev1.Pod {
	objs, _ := c.pods.GetIndexer().ByIndex(bySimulator, Key(namespace, name))
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return pods
}

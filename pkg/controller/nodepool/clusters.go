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

package nodepool

import (
	"bytes"
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

// byPool indexes the Nodes of a simulator by the pool that made them.
const byPool = "pool"

// cluster is what the reconciler holds for one simulator: a client of its
// inner apiserver and a cache of the Nodes its pools made there.
type cluster struct {
	config   *rest.Config
	client   kubernetes.Interface
	informer cache.SharedIndexInformer
	cancel   context.CancelFunc
}

// PoolNodes returns the Nodes in the cache that carry pool's label.
func (c *cluster) PoolNodes(pool string) []*corev1.Node {
	objs, _ := c.informer.GetIndexer().ByIndex(byPool, pool)
	nodes := make([]*corev1.Node, 0, len(objs))
	for _, o := range objs {
		if n, ok := o.(*corev1.Node); ok {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// clusters keeps one cluster per simulator, made anew when the simulator's
// Pod or credentials change.
type clusters struct {
	access *inner.Access
	// onNode is called with the namespace and pool of every Node event.
	onNode func(namespace, pool string)

	mu    sync.Mutex
	byKey map[string]*cluster // by namespace/name
}

func newClusters(access *inner.Access, onNode func(namespace, pool string)) *clusters {
	return &clusters{access: access, onNode: onNode, byKey: map[string]*cluster{}}
}

// get returns the cluster of an Available simulator, starting its Node
// cache under ctx if needed. The caller checks HasSynced.
func (cs *clusters) get(ctx context.Context, s *v1alpha1.Simulator) (*cluster, error) {
	cfg, err := cs.access.RESTConfig(inner.TargetOf(s, s.Spec.KubeAPIServerPort))
	if err != nil {
		return nil, err
	}
	key := s.Namespace + "/" + s.Name
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c, ok := cs.byKey[key]; ok {
		if c.config.Host == cfg.Host && bytes.Equal(c.config.CertData, cfg.CertData) && bytes.Equal(c.config.CAData, cfg.CAData) {
			return c, nil
		}
		c.cancel()
		delete(cs.byKey, key)
	}
	c, err := cs.start(ctx, s.Namespace, cfg)
	if err != nil {
		return nil, err
	}
	klog.FromContext(ctx).V(2).Info("Watching the Nodes of a simulator", "simulator", klog.KObj(s), "url", cfg.Host)
	cs.byKey[key] = c
	return c, nil
}

func (cs *clusters) start(ctx context.Context, namespace string, cfg *rest.Config) (*cluster, error) {
	// Writes go as fast as the inner apiserver takes them: no client-side
	// rate limit (the reconciler bounds its concurrency instead), protobuf.
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cfg.UserAgent = "sim-apiserver/nodepool-reconciler"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	factory, inf, err := nodeInformer(client)
	if err != nil {
		return nil, err
	}
	notify := func(obj interface{}) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if n, ok := obj.(*corev1.Node); ok {
			cs.onNode(namespace, n.Labels[sim.LabelNodePool])
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: notify,
		UpdateFunc: func(old, obj interface{}) {
			notify(obj)
			// A Node relabelled out of its pool is its old pool's to put back.
			if o, ok := old.(*corev1.Node); ok && o.Labels[sim.LabelNodePool] != obj.(*corev1.Node).Labels[sim.LabelNodePool] {
				notify(old)
			}
		},
		DeleteFunc: notify,
	}); err != nil {
		return nil, err
	}
	// ctx is the reconciler's (syncs run under it): the cache lives until
	// the reconcilers stop or the cluster is replaced.
	ctx, cancel := context.WithCancel(ctx)
	factory.Start(ctx.Done())
	return &cluster{config: cfg, client: client, informer: inf, cancel: cancel}, nil
}

// nodeInformer makes the cache of the Nodes of a simulator's pools, indexed by pool.
func nodeInformer(client kubernetes.Interface) (informers.SharedInformerFactory, cache.SharedIndexInformer, error) {
	req, err := labels.NewRequirement(sim.LabelNodePool, selection.Exists, nil)
	if err != nil {
		return nil, nil, err
	}
	selector := labels.NewSelector().Add(*req).String()
	// The leader holds every pool Node of every simulator: only what the
	// reconciler compares is kept.
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }),
		informers.WithTransform(compared))
	inf := factory.Core().V1().Nodes().Informer()
	if err := inf.AddIndexers(cache.Indexers{byPool: poolOf}); err != nil {
		return nil, nil, err
	}
	return factory, inf, nil
}

// poolOf is the byPool index: the pool whose label a Node carries.
func poolOf(obj interface{}) ([]string, error) {
	if n, ok := obj.(*corev1.Node); ok {
		return []string{n.Labels[sim.LabelNodePool]}, nil
	}
	return nil, nil
}

// forget stops the cache of a simulator that is gone or not Available.
func (cs *clusters) forget(namespace, name string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c, ok := cs.byKey[namespace+"/"+name]; ok {
		c.cancel()
		delete(cs.byKey, namespace+"/"+name)
	}
}

// stop stops every cache.
func (cs *clusters) stop() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for k, c := range cs.byKey {
		c.cancel()
		delete(cs.byKey, k)
	}
}

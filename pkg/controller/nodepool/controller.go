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

// Package nodepool is the reconciler of nodepools: it makes each pool's
// simulator hold exactly spec.replicas Nodes named <pool>-<index>, made from
// the pool's template, writing to the inner kube-apiserver in parallel; it
// puts back Nodes deleted or edited inside, removes the pool's Nodes when the
// pool goes, and reports progress in the pool's status.
package nodepool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/worker"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions/sim/v1alpha1"
	simlisters "sigs.k8s.io/simulator-apiserver/pkg/generated/listers/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

// FieldManager names the reconciler in the managedFields of what it writes.
const FieldManager = "nodepool-reconciler"

// DefaultParallelism is how many Node writes a pool has in flight at once:
// enough to keep the inner apiserver busy, few enough not to swamp it.
const DefaultParallelism = 32

// nodeEventDelay gathers the Node events of a pool into one sync.
const nodeEventDelay = 200 * time.Millisecond

// bySimulator indexes pools by namespace/spec.simulatorName.
const bySimulator = "simulator"

// Controller reconciles nodepools.
type Controller struct {
	sims        simclientset.Interface
	pools       simlisters.NodePoolLister
	poolIndex   cache.Indexer
	simulators  simlisters.SimulatorLister
	synced      []cache.InformerSynced
	clusters    *clusters
	recorder    record.EventRecorder
	queue       worker.Queue
	parallelism int

	mu        sync.Mutex
	templates map[types.UID]*compiled
	// batches holds the running batch of each pool, by namespace/name.
	batches map[string]*batch
	// memory holds, by pool, the writes its Node cache may not show yet.
	memory map[types.UID]*poolMemory
}

// compiled is a pool's template of one generation, parsed once.
type compiled struct {
	generation int64
	node       *NodeBuilder
	err        error
	// verified holds, by Node name, the resourceVersion last found to
	// match this template, so that a sync re-renders only what changed.
	verified sync.Map
}

// New wires a Controller to its informers. sims reaches our own API
// (loopback); access reaches simulators' inner apiservers; recorder posts
// Events on pools in the host.
func New(sims simclientset.Interface, poolInformer siminformers.NodePoolInformer, simInformer siminformers.SimulatorInformer,
	access *inner.Access, recorder record.EventRecorder,
) (*Controller, error) {
	c := &Controller{
		sims:        sims,
		pools:       poolInformer.Lister(),
		poolIndex:   poolInformer.Informer().GetIndexer(),
		simulators:  simInformer.Lister(),
		synced:      []cache.InformerSynced{poolInformer.Informer().HasSynced, simInformer.Informer().HasSynced},
		recorder:    recorder,
		parallelism: DefaultParallelism,
		templates:   map[types.UID]*compiled{},
		batches:     map[string]*batch{},
		memory:      map[types.UID]*poolMemory{},
		queue:       worker.NewQueue("nodepool"),
	}
	// Node events come by the thousand while a pool grows (kwok makes each
	// Node Ready): gathering them keeps the reconciler from re-reading the
	// whole pool for each one, and costs a put-back that much latency.
	c.clusters = newClusters(access, func(namespace, pool string) { c.queue.AddAfter(namespace+"/"+pool, nodeEventDelay) })
	if err := poolInformer.Informer().AddIndexers(cache.Indexers{bySimulator: func(obj interface{}) ([]string, error) {
		if np, ok := obj.(*v1alpha1.NodePool); ok {
			return []string{np.Namespace + "/" + np.Spec.SimulatorName}, nil
		}
		return nil, nil
	}}); err != nil {
		return nil, err
	}
	if _, err := poolInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueue,
		UpdateFunc: func(_, obj interface{}) {
			c.stopOutdatedBatch(obj, false)
			c.enqueue(obj)
		},
		DeleteFunc: func(obj interface{}) {
			c.stopOutdatedBatch(obj, true)
			c.enqueue(obj)
		},
	}); err != nil {
		return nil, err
	}
	// A simulator turning Available (or going) brings its pools back here.
	if _, err := simInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueuePoolsOf,
		UpdateFunc: func(_, obj interface{}) { c.enqueuePoolsOf(obj) },
		DeleteFunc: c.enqueuePoolsOf,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Controller) enqueue(obj interface{}) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

func (c *Controller) enqueuePoolsOf(obj interface{}) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	pools, _ := c.poolIndex.ByIndex(bySimulator, key)
	for _, p := range pools {
		c.enqueue(p)
	}
}

// Run reconciles with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	defer c.clusters.stop()
	worker.Run(ctx, "nodepool", c.queue, workers, c.sync, c.synced...)
}

// sync converges one pool. It is idempotent and safe after a crash at any
// point: Nodes have deterministic names, so what exists is found, never
// duplicated. It returns a delay after which to look again, if any.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, err
	}
	logger := klog.FromContext(ctx).WithValues("nodepool", klog.KRef(namespace, name))
	ctx = klog.NewContext(ctx, logger)

	np, err := c.pools.NodePools(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil // its finalizer saw its Nodes removed
	}
	if err != nil {
		return 0, err
	}
	s, err := c.simulators.Simulators(namespace).Get(np.Spec.SimulatorName)
	if err != nil && !apierrors.IsNotFound(err) {
		return 0, err
	}
	if apierrors.IsNotFound(err) {
		s = nil
	}
	if np.DeletionTimestamp != nil {
		return c.finalize(ctx, np, s)
	}
	if s != nil {
		if err := c.ensureOwner(ctx, np, s); err != nil {
			return 0, err
		}
	}
	if reason, msg := unavailable(np, s); reason != "" {
		if s != nil {
			c.clusters.forget(s.Namespace, s.Name)
		}
		// Simulator events bring the pool back.
		return 0, c.writeStatus(ctx, np, observed{replicas: np.Status.Replicas, ready: np.Status.ReadyReplicas, reason: reason, message: msg})
	}
	cl, err := c.clusters.get(ctx, s)
	if err != nil {
		return 0, err
	}
	if !cl.informer.HasSynced() {
		return 100 * time.Millisecond, nil
	}
	tmpl, err := c.template(np)
	if err != nil {
		// Validation makes this rare (a value valid for the first Node but
		// not for a later one); it takes a spec change to fix.
		c.recorder.Eventf(np, corev1.EventTypeWarning, "TemplateFailed", "Rendering the Node template: %v", err)
		return 0, c.writeStatus(ctx, np, observed{replicas: np.Status.Replicas, ready: np.Status.ReadyReplicas, reason: "TemplateFailed", message: err.Error()})
	}
	return c.converge(ctx, np, cl, tmpl)
}

// unavailable says why a pool's Nodes cannot be written now, if they cannot.
func unavailable(np *v1alpha1.NodePool, s *v1alpha1.Simulator) (reason, message string) {
	switch {
	case s == nil:
		return "SimulatorNotFound", fmt.Sprintf("waiting for simulator %q, which does not exist", np.Spec.SimulatorName)
	case s.DeletionTimestamp != nil:
		return "SimulatorTerminating", fmt.Sprintf("simulator %q is being deleted", s.Name)
	case s.Status.Phase != v1alpha1.SimulatorAvailable:
		msg := fmt.Sprintf("waiting for simulator %q to be Available (phase %s)", s.Name, cmpOr(string(s.Status.Phase), "unknown"))
		if s.Status.Message != "" {
			msg += ": " + s.Status.Message
		}
		return "SimulatorNotAvailable", msg
	}
	return "", ""
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ensureOwner makes the pool owned by its simulator, so that the host's
// garbage collector deletes the pool when its simulator goes.
func (c *Controller) ensureOwner(ctx context.Context, np *v1alpha1.NodePool, s *v1alpha1.Simulator) error {
	for _, ref := range np.OwnerReferences {
		if ref.UID == s.UID {
			return nil
		}
	}
	refs := append(slices.Clone(np.OwnerReferences), metav1.OwnerReference{
		APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Simulator", Name: s.Name, UID: s.UID,
	})
	patch, err := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{
		"ownerReferences": refs, "resourceVersion": np.ResourceVersion,
	}})
	if err != nil {
		return err
	}
	_, err = c.sims.SimV1alpha1().NodePools(np.Namespace).Patch(ctx, np.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil // the pool changed: its event brings it back
	}
	return err
}

// template returns the pool's compiled template of its current generation.
func (c *Controller) template(np *v1alpha1.NodePool) (*compiled, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.templates[np.UID]; ok && t.generation == np.Generation {
		return t, t.err
	}
	node, err := NewNodeBuilder(np.Name, &np.Spec.Template)
	t := &compiled{generation: np.Generation, node: node, err: err}
	c.templates[np.UID] = t
	return t, err
}

// forget drops what the reconciler holds of a pool that is gone.
func (c *Controller) forget(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.templates, uid)
	delete(c.memory, uid)
}

// nodeIndex parses the index of a pool's Node from its name; false when
// the name is not one the pool makes.
func nodeIndex(pool, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, pool+"-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || sim.NodeName(pool, i) != name {
		return 0, false
	}
	return i, true
}

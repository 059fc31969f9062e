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

package limits

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/quota/v1/generic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions"
)

// admittedFor is how long an admitted write counts before the cache shows
// it: the cache follows the server's own watch, which lags a write by
// milliseconds, not seconds. A write that failed after admission counts
// for no longer than this.
const admittedFor = 10 * time.Second

// Usage is what a namespace holds, from caches of the server's own objects
// (through its loopback, as kube-apiserver's admission uses its own
// informers), of which it keeps only names and spec.replicas: every replica
// already caches the records whole.
//
// The caches lag the writes this replica admits; what it admitted and the
// cache does not show yet is counted too, so that one client's writes one
// after another are counted at once. Another replica's writes count once
// its watch brings them, so replicas admitting in the same namespace at
// the same moment can pass a limit by the writes in flight: these are
// counts from the store at admission, not a quota's ledger.
type Usage struct {
	simulators, nodePools cache.Indexer
	synced                func() bool
	now                   func() time.Time

	// mu serializes the checks and the writes to admitted, so that no two
	// admissions of one replica count the same room.
	mu sync.Mutex
	// admitted holds, by namespace, the writes admitted and not yet seen.
	admitted map[string]map[object]admittedWrite
}

type object struct{ resource, name string }

type admittedWrite struct {
	// replicas is a nodepool's spec.replicas as admitted.
	replicas int64
	// after is the resourceVersion the write replaces (0 for a create):
	// the cache shows the write, or a later one, once it holds a newer one.
	after uint64
	until time.Time
}

// NewUsage returns the usage of factory's simulators and nodepools; the
// caller starts factory, which must have been made with WithTransform(Trim).
func NewUsage(factory siminformers.SharedInformerFactory) (*Usage, error) {
	sims := factory.Sim().V1alpha1().Simulators().Informer()
	pools := factory.Sim().V1alpha1().NodePools().Informer()
	u := newUsage(sims.GetIndexer(), pools.GetIndexer(), func() bool { return sims.HasSynced() && pools.HasSynced() })
	for resource, informer := range map[string]cache.SharedIndexInformer{"simulators": sims, "nodepools": pools} {
		if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj interface{}) { u.observed(resource, obj) },
			UpdateFunc: func(_, obj interface{}) { u.observed(resource, obj) },
		}); err != nil {
			return nil, fmt.Errorf("following %s: %w", resource, err)
		}
	}
	return u, nil
}

func newUsage(simulators, nodePools cache.Indexer, synced func() bool) *Usage {
	return &Usage{simulators: simulators, nodePools: nodePools, synced: synced, now: time.Now, admitted: map[string]map[object]admittedWrite{}}
}

// Trim keeps of each object what Usage reads.
func Trim(obj interface{}) (interface{}, error) {
	switch o := obj.(type) {
	case *v1alpha1.NodePool:
		return &v1alpha1.NodePool{ObjectMeta: trimMeta(&o.ObjectMeta), Spec: v1alpha1.NodePoolSpec{Replicas: o.Spec.Replicas}}, nil
	case *v1alpha1.Simulator:
		return &v1alpha1.Simulator{ObjectMeta: trimMeta(&o.ObjectMeta)}, nil
	}
	return obj, nil
}

func trimMeta(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion}
}

// HasSynced says whether the caches hold their first list.
func (u *Usage) HasSynced() bool { return u.synced() }

// listFunc lists a namespace's objects of resource from the cache, for the
// quota evaluators.
func (u *Usage) listFunc(resource string) generic.ListFuncByNamespace {
	indexer := u.indexer(resource)
	return func(namespace string) ([]runtime.Object, error) {
		items, err := indexer.ByIndex(cache.NamespaceIndex, namespace)
		if err != nil {
			return nil, err
		}
		out := make([]runtime.Object, 0, len(items))
		for _, item := range items {
			out = append(out, item.(runtime.Object))
		}
		return out, nil
	}
}

func (u *Usage) indexer(resource string) cache.Indexer {
	if resource == "simulators" {
		return u.simulators
	}
	return u.nodePools
}

// observed forgets an admitted write once the cache shows it.
func (u *Usage) observed(resource string, obj interface{}) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	writes := u.admitted[m.GetNamespace()]
	key := object{resource, m.GetName()}
	if w, ok := writes[key]; ok && resourceVersion(m) > w.after {
		delete(writes, key)
		if len(writes) == 0 {
			delete(u.admitted, m.GetNamespace())
		}
	}
}

// pendingLocked returns the namespace's admitted writes that still count,
// dropping the expired ones.
func (u *Usage) pendingLocked(namespace string) map[object]admittedWrite {
	writes := u.admitted[namespace]
	now := u.now()
	for k, w := range writes {
		if now.After(w.until) {
			delete(writes, k)
		}
	}
	if len(writes) == 0 {
		delete(u.admitted, namespace)
		return nil
	}
	return writes
}

// countLocked is the number of the namespace's objects of resource.
func (u *Usage) countLocked(resource, namespace string) (int64, error) {
	items, err := u.indexer(resource).ByIndex(cache.NamespaceIndex, namespace)
	if err != nil {
		return 0, err
	}
	n := int64(len(items))
	for k, w := range u.pendingLocked(namespace) {
		if k.resource != resource || w.after != 0 {
			continue
		}
		if _, exists, _ := u.indexer(resource).GetByKey(namespace + "/" + k.name); !exists {
			n++
		}
	}
	return n, nil
}

// replicasLocked is the sum of spec.replicas of the namespace's nodepools
// but except.
func (u *Usage) replicasLocked(namespace, except string) (int64, error) {
	items, err := u.nodePools.ByIndex(cache.NamespaceIndex, namespace)
	if err != nil {
		return 0, err
	}
	pending := u.pendingLocked(namespace)
	seen := make(map[string]bool, len(items))
	var sum int64
	for _, item := range items {
		np := item.(*v1alpha1.NodePool)
		seen[np.Name] = true
		if np.Name == except {
			continue
		}
		r := int64(ptr.Deref(np.Spec.Replicas, 0))
		if w, ok := pending[object{"nodepools", np.Name}]; ok && resourceVersion(np) <= w.after {
			r = w.replicas
		}
		sum += r
	}
	for k, w := range pending {
		if k.resource == "nodepools" && k.name != except && !seen[k.name] {
			sum += w.replicas
		}
	}
	return sum, nil
}

// admitLocked counts a write until the cache shows it.
func (u *Usage) admitLocked(resource, namespace, name string, replicas int64, after uint64) {
	writes := u.admitted[namespace]
	if writes == nil {
		writes = map[object]admittedWrite{}
		u.admitted[namespace] = writes
	}
	writes[object{resource, name}] = admittedWrite{replicas: replicas, after: after, until: u.now().Add(admittedFor)}
}

// resourceVersion is m's resourceVersion as a number (the host's, which
// records carry); 0 if it has none.
func resourceVersion(m metav1.Object) uint64 {
	rv, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	if err != nil {
		return 0
	}
	return rv
}

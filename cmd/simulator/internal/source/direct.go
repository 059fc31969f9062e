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

package source

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/etcdhttp"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/etcdstore"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
)

// Store writes straight into the inner kube-apiserver's etcd
// (etcdstore.Store).
type Store interface {
	Key(resource, namespace, name string) string
	CreateAll(ctx context.Context, kvs []etcdhttp.KeyValue) (etcdhttp.TxnResult, error)
}

// Of the first copy, Nodes and Pods (all but a few thousand of a large
// cluster's objects) go straight into etcd, in transactions of up to 128:
// through the API each is a request that admission, validation and the
// watch fan-out take one at a time, and a bound Pod a second write, its
// status by kwok (issue: 50,000 Pods took 5 minutes). What a transaction
// cannot write (a key exists: the simulator restarted on its data; etcd
// refused it) goes through the API as before.
const (
	// storeInFlight transactions at once: one is encoded while another is
	// written.
	storeInFlight = 2
	// cacheCatchUp bounds the wait for kube-apiserver to serve what was
	// written.
	cacheCatchUp = 2 * time.Minute
)

// stored says whether the first copy writes d's kind into etcd. Not with
// the workloads: their controllers would see them before kube-controller-
// manager's informers had digested their Pods, and make them again.
func (m *Mirror) stored(k *mirror.Kind) bool {
	return m.cfg.Store != nil && !m.cfg.Source.Workloads && (k.Resource == "nodes" || k.Resource == "pods")
}

// storeItem is one object of the first copy written into etcd.
type storeItem struct {
	d      desired
	key    objKey
	stored mirror.Object
}

// copyStored writes items (each with its source object) into etcd and
// returns those to write through the API instead. Each transaction is
// encoded as the last one is written, so the copy holds a few in memory,
// not all. Once written, it waits until kube-apiserver serves them, so
// that the next tier comes after in every watch (Pods after their Nodes).
func (m *Mirror) copyStored(ctx context.Context, items []desired) []desired {
	logger := klog.FromContext(ctx)
	var mu sync.Mutex
	var viaAPI []desired
	if items[0].kind.Namespaced {
		missing := m.ensureNamespaces(ctx, items)
		kept := make([]desired, 0, len(items))
		for _, d := range items {
			if missing[d.obj.GetNamespace()] {
				viaAPI = append(viaAPI, d)
			} else {
				kept = append(kept, d)
			}
		}
		items = kept
	}
	type txn struct {
		items []storeItem
		kvs   []etcdhttp.KeyValue
	}
	next := make(chan txn)
	var revision int64
	var last storeItem
	var wg sync.WaitGroup
	for range storeInFlight {
		wg.Go(func() {
			for t := range next {
				r, err := m.cfg.Store.CreateAll(ctx, t.kvs)
				if err != nil || !r.Succeeded {
					logger.V(2).Info("A transaction of the copy was not written; its objects go through the API", "objects", len(t.items), "err", err)
					mu.Lock()
					for _, it := range t.items {
						viaAPI = append(viaAPI, it.d)
					}
					mu.Unlock()
					continue
				}
				for _, it := range t.items {
					m.wrote(it.key, it.d, it.stored)
				}
				mu.Lock()
				if r.Revision > revision {
					revision, last = r.Revision, t.items[len(t.items)-1]
				}
				mu.Unlock()
			}
		})
	}
	send := func(t txn) {
		select {
		case next <- t:
		case <-ctx.Done():
		}
	}
	now := time.Now()
	batch := etcdhttp.NewBatch(etcdhttp.MaxTxnOps, etcdhttp.MaxTxnBytes)
	var pending []storeItem
	for _, d := range items {
		it, kv, err := m.encodeStored(d, now)
		if err != nil {
			logger.V(2).Info("Not storing an object directly", "object", keyOf(d.kind, d.obj), "err", err)
			mu.Lock()
			viaAPI = append(viaAPI, d)
			mu.Unlock()
			continue
		}
		if !batch.Fits(kv) {
			send(txn{items: pending, kvs: batch.Take()})
			pending = nil
		}
		batch.Add(kv)
		pending = append(pending, it)
	}
	if batch.Len() > 0 {
		send(txn{items: pending, kvs: batch.Take()})
	}
	close(next)
	wg.Wait()
	if revision > 0 {
		if err := m.waitServed(ctx, last, revision); err != nil {
			logger.Info("kube-apiserver does not serve the copy yet; going on", "revision", revision, "err", err)
		}
	}
	return viaAPI
}

// encodeStored returns d as written into etcd, and its key and value.
func (m *Mirror) encodeStored(d desired, now time.Time) (storeItem, etcdhttp.KeyValue, error) {
	out, ok := mirror.Stored(d.src, d.obj, uuid.NewUUID(), now)
	if !ok {
		return storeItem{}, etcdhttp.KeyValue{}, fmt.Errorf("%s are not stored directly", d.kind.Resource)
	}
	value, err := etcdstore.Encode(out)
	if err != nil {
		return storeItem{}, etcdhttp.KeyValue{}, err
	}
	key := keyOf(d.kind, d.obj)
	kv := etcdhttp.KeyValue{Key: m.cfg.Store.Key(d.kind.Resource, key.namespace, key.name), Value: value}
	return storeItem{d: d, key: key, stored: out}, kv, nil
}

// errStoredExists: the object's key exists in etcd.
var errStoredExists = errors.New("the key exists")

// createStored writes d, an object new to the mirror, into etcd, in a
// transaction of its own: in Sync, a source's new Pods arrive a few at a
// time, and each so spares the inner kube-apiserver its admission and
// kwok's write of its status. It fails with errStoredExists where the key
// exists (the API path then updates it).
func (m *Mirror) createStored(ctx context.Context, d desired) (mirror.Object, error) {
	it, kv, err := m.encodeStored(d, time.Now())
	if err != nil {
		return nil, err
	}
	r, err := m.cfg.Store.CreateAll(ctx, []etcdhttp.KeyValue{kv})
	if err != nil {
		return nil, err
	}
	if !r.Succeeded {
		return nil, errStoredExists
	}
	return it.stored, nil
}

// namespaceInside says whether namespace (empty: a cluster-scoped
// object's) is known to exist inside.
func (m *Mirror) namespaceInside(namespace string) bool {
	if namespace == "" {
		return true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.namespacesInside[namespace]
}

// ensureNamespaces creates, through the API, the namespaces of items that
// the inner cluster lacks (the copy of the Namespace may be filtered out
// or not readable): kube-apiserver would serve a Pod written into etcd
// without its namespace. It returns those it could not create.
func (m *Mirror) ensureNamespaces(ctx context.Context, items []desired) map[string]bool {
	missing := map[string]bool{}
	seen := map[string]bool{}
	for _, d := range items {
		ns := d.obj.GetNamespace()
		if seen[ns] {
			continue
		}
		seen[ns] = true
		_, err := m.cfg.Inner.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			klog.FromContext(ctx).V(2).Info("Creating a namespace failed; its objects go through the API", "namespace", ns, "err", err)
			missing[ns] = true
			continue
		}
		m.mu.Lock()
		m.namespacesInside[ns] = true
		m.mu.Unlock()
	}
	return missing
}

// waitServed waits until kube-apiserver serves it at revision: a read at a
// resourceVersion is served from its watch cache once that has reached it.
func (m *Mirror) waitServed(ctx context.Context, it storeItem, revision int64) error {
	opts := metav1.GetOptions{ResourceVersion: strconv.FormatInt(revision, 10)}
	ns, name := it.key.namespace, it.key.name
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, cacheCatchUp, true, func(ctx context.Context) (bool, error) {
		var err error
		switch it.key.resource {
		case "nodes":
			_, err = m.cfg.Inner.CoreV1().Nodes().Get(ctx, name, opts)
		case "pods":
			_, err = m.cfg.Inner.CoreV1().Pods(ns).Get(ctx, name, opts)
		default:
			return false, fmt.Errorf("no read of %s", it.key.resource)
		}
		return err == nil, nil
	})
}

// copyTierStored writes the objects of a tier that go into etcd and
// returns the rest, for the API, and how many went into etcd.
func (m *Mirror) copyTierStored(ctx context.Context, items []desired) ([]desired, int) {
	byKind := map[*mirror.Kind][]desired{}
	var rest []desired
	for _, d := range items {
		if d.src != nil && m.stored(d.kind) {
			byKind[d.kind] = append(byKind[d.kind], d)
		} else {
			rest = append(rest, d)
		}
	}
	stored := 0
	for _, ds := range byKind {
		viaAPI := m.copyStored(ctx, ds)
		stored += len(ds) - len(viaAPI)
		rest = append(rest, viaAPI...)
	}
	return rest, stored
}

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

package hostcache

import (
	"errors"
	"strings"

	"k8s.io/client-go/tools/cache"
)

// router is the read-only cache.Indexer of one kind over the informers of
// every watched namespace, so that client-go's generated listers read the
// cache as they would one informer: a namespace that is not watched reads
// as empty (a Get is NotFound).
type router struct {
	cache *Cache
	kind  int
}

var _ cache.Indexer = &router{}

var errReadOnly = errors.New("the host cache is written by its informers only")

// indexer returns the namespace's indexer, nil when it is not watched or
// the kind not followed.
func (r *router) indexer(namespace string) cache.Indexer {
	r.cache.mu.RLock()
	defer r.cache.mu.RUnlock()
	if n := r.cache.namespaces[namespace]; n != nil && n.informers[r.kind] != nil {
		return n.informers[r.kind].GetIndexer()
	}
	return nil
}

// indexers returns every namespace's indexer, none when the kind is not
// followed.
func (r *router) indexers() []cache.Indexer {
	r.cache.mu.RLock()
	defer r.cache.mu.RUnlock()
	out := make([]cache.Indexer, 0, len(r.cache.namespaces))
	for _, n := range r.cache.namespaces {
		if inf := n.informers[r.kind]; inf != nil {
			out = append(out, inf.GetIndexer())
		}
	}
	return out
}

// namespaceOf is the namespace of an object key or a bySimulator value,
// both "<namespace>/<name>".
func namespaceOf(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

func (r *router) GetByKey(key string) (interface{}, bool, error) {
	if idx := r.indexer(namespaceOf(key)); idx != nil {
		return idx.GetByKey(key)
	}
	return nil, false, nil
}

func (r *router) Get(obj interface{}) (interface{}, bool, error) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, false, err
	}
	return r.GetByKey(key)
}

func (r *router) List() []interface{} {
	var out []interface{}
	for _, idx := range r.indexers() {
		out = append(out, idx.List()...)
	}
	return out
}

func (r *router) ListKeys() []string {
	var out []string
	for _, idx := range r.indexers() {
		out = append(out, idx.ListKeys()...)
	}
	return out
}

// Index serves the namespace index of listers (cache.ListAllByNamespace).
func (r *router) Index(indexName string, obj interface{}) ([]interface{}, error) {
	m, err := metaOf(obj)
	if err != nil {
		return nil, err
	}
	if idx := r.indexer(m.GetNamespace()); idx != nil {
		return idx.Index(indexName, obj)
	}
	if _, ok := r.GetIndexers()[indexName]; !ok {
		return nil, errors.New("index with name " + indexName + " does not exist")
	}
	return nil, nil
}

// valueNamespace is the namespace every object under an indexed value is
// in: the value itself for the namespace index, its first part for ours.
func valueNamespace(indexName, value string) (string, bool) {
	switch indexName {
	case cache.NamespaceIndex:
		return value, true
	case bySimulator:
		return namespaceOf(value), true
	}
	return "", false
}

func (r *router) IndexKeys(indexName, value string) ([]string, error) {
	if ns, ok := valueNamespace(indexName, value); ok {
		if idx := r.indexer(ns); idx != nil {
			return idx.IndexKeys(indexName, value)
		}
		return nil, nil
	}
	var out []string
	for _, idx := range r.indexers() {
		keys, err := idx.IndexKeys(indexName, value)
		if err != nil {
			return nil, err
		}
		out = append(out, keys...)
	}
	return out, nil
}

func (r *router) ByIndex(indexName, value string) ([]interface{}, error) {
	if ns, ok := valueNamespace(indexName, value); ok {
		if idx := r.indexer(ns); idx != nil {
			return idx.ByIndex(indexName, value)
		}
		return nil, nil
	}
	var out []interface{}
	for _, idx := range r.indexers() {
		objs, err := idx.ByIndex(indexName, value)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func (r *router) ListIndexFuncValues(indexName string) []string {
	var out []string
	for _, idx := range r.indexers() {
		out = append(out, idx.ListIndexFuncValues(indexName)...)
	}
	return out
}

func (r *router) GetIndexers() cache.Indexers { return newIndexers() }

func (r *router) AddIndexers(cache.Indexers) error     { return errReadOnly }
func (r *router) Add(interface{}) error                { return errReadOnly }
func (r *router) Update(interface{}) error             { return errReadOnly }
func (r *router) Delete(interface{}) error             { return errReadOnly }
func (r *router) Replace([]interface{}, string) error  { return errReadOnly }
func (r *router) Resync() error                        { return errReadOnly }
func (r *router) Bookmark(string)                      {}
func (r *router) LastStoreSyncResourceVersion() string { return "" }

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

package hosting

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/inlinekubeconfig"
)

// clients are what one kubeconfig of an entry gives: its configuration,
// with the Health of its transport, its clients and its host cache.
type clients struct {
	kubeconfig []byte
	config     *rest.Config
	health     *Health
	client     kubernetes.Interface
	cache      *hostcache.Cache
	version    uint64
	// registrations are the entry's handlers on cache, by id.
	registrations map[uint64]*hostcache.Registration
	// added and deleted tell the cache of a simulator's hosting namespace
	// (its Source).
	added, deleted func(namespace, simulator string)

	// Set by start.
	ctx    context.Context
	cancel context.CancelFunc
}

// newClients makes the clients of kubeconfig for e, with the cache
// following e's simulators and every handler of e on it. It calls
// nothing: start does. Called with e.mu held.
func (e *Entry) newClients(kubeconfig []byte) (*clients, error) {
	cfg, err := inlinekubeconfig.RESTConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("the hosting kubeconfig: %w", err)
	}
	c := &clients{kubeconfig: kubeconfig, config: cfg, version: e.r.versions.Add(1)}
	c.health = NewHealth(func() { e.healthChanged(c) })
	cfg.Wrap(c.health.Wrap)
	client, meta, err := e.r.opts.NewClients(rest.CopyConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("the hosting cluster's clients: %w", err)
	}
	c.client = client
	if c.cache, err = hostcache.New(client, meta, e.r.opts.Cache); err != nil {
		return nil, err
	}
	err = c.cache.Follow(func(added, deleted func(namespace, name string)) (func() bool, error) {
		c.added, c.deleted = added, deleted
		for simulator, namespace := range e.simulators {
			added(namespace, simulator)
		}
		// The registry is told of simulators as they are seen: it never
		// holds back readiness, nor do the hosting clusters.
		return func() bool { return true }, nil
	})
	if err != nil {
		return nil, err
	}
	c.registrations = map[uint64]*hostcache.Registration{}
	for _, hd := range e.handlers {
		if err := c.addHandler(hd); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// start runs the cache under ctx.
func (c *clients) start(ctx context.Context) {
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.cache.Start(c.ctx)
}

// stop stops the cache's informers; they end on their own goroutines.
func (c *clients) stop() {
	if c != nil && c.cancel != nil {
		c.cancel()
	}
}

// addHandler adds hd to the cache. Called with the entry's lock held (or
// before the clients are the entry's).
func (c *clients) addHandler(hd handler) error {
	if c == nil {
		return nil
	}
	reg, err := c.cache.AddEventHandler(hd.h)
	if err != nil {
		return err
	}
	c.registrations[hd.id] = reg
	return nil
}

// removeHandler takes the handler of that id off the cache.
func (c *clients) removeHandler(id uint64) {
	if c == nil {
		return
	}
	if reg, ok := c.registrations[id]; ok {
		c.cache.RemoveEventHandler(reg)
		delete(c.registrations, id)
	}
}

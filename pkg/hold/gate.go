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

// Package hold keeps a restarted component stopped while someone holds it:
// the simulator holds kube-controller-manager while it imports, so that
// what that watches can change while it does not act.
package hold

import (
	"context"
	"sync"
)

// Gate is whether a component is held and whether it runs. Whatever runs
// the component calls Start before each run, stops the run when
// StopRequested receives, and calls Stopped once the run has returned.
type Gate struct {
	mu      sync.Mutex
	holds   int
	running bool // started, or about to be
	// changed is closed, and replaced, when holds or running change.
	changed chan struct{}
	// stop asks the running component to stop for a hold.
	stop chan struct{}
}

// NewGate returns a gate with no holds and nothing running.
func NewGate() *Gate {
	return &Gate{changed: make(chan struct{}), stop: make(chan struct{}, 1)}
}

// update changes the state with f, and wakes those waiting on it.
func (g *Gate) update(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f()
	close(g.changed)
	g.changed = make(chan struct{})
}

// Hold stops the component and keeps it from starting until release is
// called; it returns once the component is not running, or with ctx's
// error, released. Holds nest: the component may start again when the
// last is released.
func (g *Gate) Hold(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.update(func() {
		g.holds++
		// Asked in the step that counts the hold: Start drains it in the
		// step that sees the holds gone.
		select {
		case g.stop <- struct{}{}:
		default:
		}
	})
	var once sync.Once
	release = func() { once.Do(func() { g.update(func() { g.holds-- }) }) }
	for {
		g.mu.Lock()
		running, changed := g.running, g.changed
		g.mu.Unlock()
		if !running {
			return release, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
}

// Start waits until the component is not held and marks it running in the
// same step (a Hold then waits for Stopped); or returns ctx's error. held,
// if not nil, is called once before it first waits; waited says whether
// it did.
func (g *Gate) Start(ctx context.Context, held func()) (waited bool, err error) {
	for {
		g.mu.Lock()
		holds, changed := g.holds, g.changed
		if holds == 0 {
			g.running = true
			close(g.changed)
			g.changed = make(chan struct{})
			// A stop asked by holds released since is satisfied.
			select {
			case <-g.stop:
			default:
			}
		}
		g.mu.Unlock()
		if holds == 0 {
			return waited, nil
		}
		if !waited && held != nil {
			held()
		}
		waited = true
		select {
		case <-changed:
		case <-ctx.Done():
			return waited, ctx.Err()
		}
	}
}

// StopRequested receives when a hold asks the running component to stop.
func (g *Gate) StopRequested() <-chan struct{} { return g.stop }

// Stopped records that the component's run has returned, and that no other
// is about to start.
func (g *Gate) Stopped() { g.update(func() { g.running = false }) }

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

package hold

import (
	"context"
	"testing"
	"time"
)

// returnsWithin reports whether f returns within d, and waits for it
// anyway.
func returnsWithin(t *testing.T, d time.Duration, f func()) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		<-done
		return false
	}
}

// A hold of a running component asks it to stop and returns once it has;
// it does not start again until the last hold is released.
func TestHoldRunning(t *testing.T) {
	g := NewGate()
	if waited, err := g.Start(t.Context(), nil); err != nil || waited {
		t.Fatalf("Start with no holds: waited %v, %v", waited, err)
	}
	held := make(chan func())
	go func() {
		release, err := g.Hold(t.Context())
		if err != nil {
			t.Error(err)
		}
		held <- release
	}()
	select {
	case <-g.StopRequested():
	case <-time.After(10 * time.Second):
		t.Fatal("the hold did not ask the component to stop")
	}
	select {
	case <-held:
		t.Fatal("Hold returned while the component ran")
	case <-time.After(100 * time.Millisecond):
	}
	g.Stopped()
	release := <-held
	release2, err := g.Hold(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	heldCalls := 0
	started := make(chan bool)
	go func() {
		waited, err := g.Start(t.Context(), func() { heldCalls++ })
		if err != nil {
			t.Error(err)
		}
		started <- waited
	}()
	release()
	release() // twice is once
	select {
	case <-started:
		t.Fatal("started with a hold left")
	case <-time.After(100 * time.Millisecond):
	}
	release2()
	if waited := <-started; !waited || heldCalls != 1 {
		t.Errorf("Start after the holds: waited %v, held called %d times; want true, 1", waited, heldCalls)
	}
	// The stop the second hold asked for was for a run that had ended.
	select {
	case <-g.StopRequested():
		t.Error("a stop asked by holds released before the start reached the new run")
	default:
	}
}

// A hold given up while it waits is released; one asked with its context
// done does nothing.
func TestHoldGivenUp(t *testing.T) {
	g := NewGate()
	if _, err := g.Start(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.Hold(ctx); err == nil {
		t.Fatal("Hold of a component that never stops: no error")
	}
	g.Stopped()
	if !returnsWithin(t, 10*time.Second, func() {
		if _, err := g.Start(t.Context(), func() { t.Error("held by a hold given up") }); err != nil {
			t.Error(err)
		}
	}) {
		t.Error("Start waited for a hold given up")
	}
	done, cancelDone := context.WithCancel(t.Context())
	cancelDone()
	if _, err := g.Hold(done); err == nil {
		t.Error("Hold with its context done: no error")
	}
	g.Stopped()
	if waited, err := g.Start(t.Context(), nil); err != nil || waited {
		t.Errorf("Start after a refused hold: waited %v, %v; want neither", waited, err)
	}
}

// Start returns ctx's error while held.
func TestStartCancelled(t *testing.T) {
	g := NewGate()
	release, err := g.Hold(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if waited, err := g.Start(ctx, nil); err == nil || !waited {
		t.Errorf("Start while held, its context ending: waited %v, %v; want true and an error", waited, err)
	}
}

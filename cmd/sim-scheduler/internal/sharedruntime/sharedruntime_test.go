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

package sharedruntime

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2"
)

func TestSplit(t *testing.T) {
	known := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name    string
		args    []string
		want    map[string][]string
		wantErr bool
	}{
		{name: "sections", args: []string{"a", "--x=1", "-y", "---", "b", "---", "c", "--z"},
			want: map[string][]string{"a": {"--x=1", "-y"}, "b": {}, "c": {"--z"}}},
		{name: "one", args: []string{"b", "--x"}, want: map[string][]string{"b": {"--x"}}},
		{name: "none", args: nil, want: map[string][]string{}},
		{name: "trailing separator", args: []string{"a", "--x", "---"}, want: map[string][]string{"a": {"--x"}}},
		{name: "unknown", args: []string{"a", "---", "d"}, wantErr: true},
		{name: "twice", args: []string{"a", "---", "a"}, wantErr: true},
		{name: "no name first", args: []string{"--x", "a"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Split(tc.args, known)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); !tc.wantErr && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// runUntilEnd runs rt until the test ends, and waits for Run to return
// then, before the next test changes the delays it reads.
func runUntilEnd(t *testing.T, rt *Runtime) {
	ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), klog.Background()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		rt.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// fast makes restarts quick for the test.
func fast(t *testing.T) {
	saved := []time.Duration{firstDelay, maxDelay, stopWait}
	firstDelay, maxDelay, stopWait = 10*time.Millisecond, 20*time.Millisecond, 2*time.Second
	t.Cleanup(func() { firstDelay, maxDelay, stopWait = saved[0], saved[1], saved[2] })
}

// TestRuntime: a component that fails is started again, alone; one asked
// to restart is stopped (its context done) and started again; on the
// end, clients stop before servers.
func TestRuntime(t *testing.T) {
	fast(t)
	var failing, restarted, server atomic.Int32
	var mu sync.Mutex
	var stopped []string
	stop := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		stopped = append(stopped, name)
	}
	rt := New(
		Component{Name: "failing", Run: func(ctx context.Context) error {
			if failing.Add(1) < 3 {
				return errors.New("boom")
			}
			<-ctx.Done()
			stop("failing")
			return nil
		}},
		Component{Name: "restarted", Run: func(ctx context.Context) error {
			restarted.Add(1)
			<-ctx.Done()
			stop("restarted")
			return nil
		}},
		Component{Name: "server", Server: true, Run: func(ctx context.Context) error {
			server.Add(1)
			<-ctx.Done()
			// Its clients are gone by now.
			mu.Lock()
			n := len(stopped)
			mu.Unlock()
			if n < 3 {
				t.Errorf("the server stopped while %d of its clients had not", 3-n)
			}
			return nil
		}},
	)
	ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), klog.Background()))
	done := make(chan struct{})
	go func() {
		defer close(done)
		rt.Run(ctx)
	}()
	waitFor(t, "the failing component's third start", func() bool { return failing.Load() == 3 })
	waitFor(t, "the restarted component's start", func() bool { return restarted.Load() == 1 })
	if err := rt.Restart("restarted"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the restarted component's second start", func() bool { return restarted.Load() == 2 })
	if err := rt.Restart("nothing"); err == nil {
		t.Error("Restart of an unknown component: no error")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	if failing.Load() != 3 || restarted.Load() != 2 || server.Load() != 1 {
		t.Errorf("starts: failing %d (want 3), restarted %d (want 2), server %d (want 1)", failing.Load(), restarted.Load(), server.Load())
	}
}

// TestWait: a component starts once its Wait returns, at each start.
func TestWait(t *testing.T) {
	fast(t)
	gate := make(chan struct{})
	var waits, starts atomic.Int32
	rt := New(Component{
		Name: "gated",
		Wait: func(ctx context.Context) error {
			waits.Add(1)
			select {
			case <-gate:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
		Run: func(ctx context.Context) error {
			starts.Add(1)
			<-ctx.Done()
			return nil
		},
	})
	runUntilEnd(t, rt)
	waitFor(t, "the first wait", func() bool { return waits.Load() == 1 })
	time.Sleep(50 * time.Millisecond)
	if n := starts.Load(); n != 0 {
		t.Fatalf("%d starts before Wait returned", n)
	}
	close(gate)
	waitFor(t, "the start", func() bool { return starts.Load() == 1 })
	if err := rt.Restart("gated"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the restart, after a second wait", func() bool { return waits.Load() == 2 && starts.Load() == 2 })
}

// TestRuntimeExitsWhenAComponentWillNotStop: a component that does not
// return once asked to restart ends the process, for the supervisor to
// restart it whole.
func TestRuntimeExitsWhenAComponentWillNotStop(t *testing.T) {
	fast(t)
	stuck := make(chan struct{})
	defer close(stuck)
	started := make(chan struct{}, 1)
	rt := New(Component{Name: "stuck", Run: func(context.Context) error {
		started <- struct{}{}
		<-stuck
		return nil
	}})
	exited := make(chan error, 1)
	rt.exit = func(_ klog.Logger, err error) { exited <- err }
	go rt.Run(klog.NewContext(t.Context(), klog.Background()))
	<-started
	if err := rt.Restart("stuck"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		t.Logf("exited: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the runtime did not give up on the stuck component")
	}
}

// TestRuntimeExitsWhenRestartsDoNotHelp: a server that ends, or a client
// that fails maxFailures times in a row, ends the process.
func TestRuntimeExitsWhenRestartsDoNotHelp(t *testing.T) {
	fast(t)
	for _, c := range []struct {
		name   string
		server bool
		starts int32
	}{
		{"server", true, 1},
		{"client", false, int32(maxFailures)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var starts atomic.Int32
			rt := New(Component{Name: c.name, Server: c.server, Run: func(context.Context) error {
				starts.Add(1)
				return errors.New("boom")
			}})
			exited := make(chan error, 1)
			rt.exit = func(_ klog.Logger, err error) { exited <- err }
			go rt.Run(klog.NewContext(t.Context(), klog.Background()))
			select {
			case err := <-exited:
				t.Logf("exited: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("the runtime did not give up")
			}
			if n := starts.Load(); n != c.starts {
				t.Errorf("%d starts, want %d", n, c.starts)
			}
		})
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHold: a held component has returned when Hold does, and does not
// start again, asked to restart or failed, until its last hold is released;
// then it starts at once. A hold given up while it waits is released. A
// server, and a component not there, cannot be held.
func TestHold(t *testing.T) {
	fast(t)
	var starts atomic.Int32
	var running atomic.Bool
	failNext := make(chan struct{}, 1)
	rt := New(
		Component{Name: "held", Run: func(ctx context.Context) error {
			starts.Add(1)
			running.Store(true)
			defer running.Store(false)
			select {
			case <-ctx.Done():
				return nil
			case <-failNext:
				return errors.New("boom")
			}
		}},
		Component{Name: "server", Server: true, Run: func(ctx context.Context) error {
			<-ctx.Done()
			return nil
		}},
	)
	runUntilEnd(t, rt)
	waitFor(t, "the first start", func() bool { return starts.Load() == 1 })

	release, err := rt.Hold(t.Context(), "held")
	if err != nil {
		t.Fatal(err)
	}
	if running.Load() {
		t.Fatal("Hold returned while the component ran")
	}
	// A second hold of a held component returns at once; neither a
	// restart nor the first release starts it.
	release2, err := rt.Hold(t.Context(), "held")
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Restart("held"); err != nil {
		t.Fatal(err)
	}
	release()
	release() // twice is once
	time.Sleep(100 * time.Millisecond)
	if n := starts.Load(); n != 1 {
		t.Fatalf("%d starts while held, want 1 (the first)", n)
	}
	release2()
	waitFor(t, "the start after the last release", func() bool { return starts.Load() == 2 && running.Load() })

	// Held while it waits out a failure's backoff: not started after it.
	failNext <- struct{}{}
	waitFor(t, "the failure", func() bool { return !running.Load() })
	release, err = rt.Hold(t.Context(), "held")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := starts.Load(); n != 2 || running.Load() {
		t.Fatalf("%d starts (running %v) while held after a failure, want 2 and not running", n, running.Load())
	}
	release()
	waitFor(t, "the start after the failure's hold", func() bool { return starts.Load() == 3 && running.Load() })

	// A hold asked with its context done is refused, and does nothing.
	gone, cancelGone := context.WithCancel(t.Context())
	cancelGone()
	if _, err := rt.Hold(gone, "held"); err == nil {
		t.Error("Hold with its context done: no error")
	}
	time.Sleep(100 * time.Millisecond)
	if n := starts.Load(); n != 3 || !running.Load() {
		t.Errorf("%d starts (running %v) after a refused hold, want 3 and running", n, running.Load())
	}

	if _, err := rt.Hold(t.Context(), "server"); err == nil {
		t.Error("Hold of a server: no error")
	}
	if _, err := rt.Hold(t.Context(), "nothing"); err == nil {
		t.Error("Hold of an unknown component: no error")
	}
}

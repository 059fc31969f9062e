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
	ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), klog.Background()))
	defer cancel()
	go rt.Run(ctx)
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

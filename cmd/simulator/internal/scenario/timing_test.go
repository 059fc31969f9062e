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

package scenario

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestTimelineLag runs steps that take longer than the time between them:
// a step never starts before the one before it ended, and its lag says by
// how much it is late.
func TestTimelineLag(t *testing.T) {
	fc := testingclock.NewFakeClock(t0)
	offsets := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, time.Second}
	var began []time.Duration
	do := func(_ context.Context, i int) error {
		began = append(began, fc.Since(t0))
		if i < 2 {
			fc.Step(250 * time.Millisecond) // the step takes 250 ms
		}
		return nil
	}
	var l lags
	done := make(chan error, 1)
	go func() { done <- timeline(t.Context(), fc, t0, offsets, &l, do) }()
	// The last step waits for its time: it comes, exactly.
	deadline := time.Now().Add(10 * time.Second)
	for !fc.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the timeline does not wait for its last step")
		}
		time.Sleep(time.Millisecond)
	}
	fc.SetTime(t0.Add(time.Second))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	if d := cmp.Diff([]time.Duration{0, 250 * ms, 500 * ms, time.Second}, began); d != "" {
		t.Errorf("steps began at (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]time.Duration{0, 150 * ms, 300 * ms, 0}, l.values); d != "" {
		t.Errorf("lags (-want +got):\n%s", d)
	}
	var r contract.ScenarioReport
	l.fill(&r)
	if r.Late != 2 || r.LagMaxMilliseconds != 300 || r.LagP99Milliseconds != 300 {
		t.Errorf("late %d, max %d ms, p99 %d ms; want 2, 300, 300", r.Late, r.LagMaxMilliseconds, r.LagP99Milliseconds)
	}
}

func TestTimelineStopsAtError(t *testing.T) {
	ran := 0
	err := timeline(t.Context(), clock.RealClock{}, time.Now(), []time.Duration{0, 0, 0}, &lags{}, func(_ context.Context, i int) error {
		ran++
		if i == 1 {
			return fmt.Errorf("refused")
		}
		return nil
	})
	if err == nil || err.Error() != "step 1: refused" || ran != 2 {
		t.Errorf("error %v after %d steps, want step 1: refused after 2", err, ran)
	}
}

func TestPercentile(t *testing.T) {
	values := make([]int, 100)
	for i := range values {
		values[i] = i + 1
	}
	for _, tc := range []struct{ p, want int }{{50, 50}, {90, 90}, {99, 99}, {100, 100}} {
		if got := percentile(values, tc.p); got != tc.want {
			t.Errorf("p%d of 1..100 = %d, want %d", tc.p, got, tc.want)
		}
	}
	if got := percentile([]int{7}, 99); got != 7 {
		t.Errorf("p99 of one = %d", got)
	}
}

// TestSchedule: offsets are the time since the earliest event, divided by
// the speed; events seen at the same time keep their order.
func TestSchedule(t *testing.T) {
	ev := func(name string, after time.Duration) contract.TraceEvent {
		return contract.TraceEvent{Time: t0.Add(after), Type: "ADDED", Resource: "pods", Name: name}
	}
	trace := []contract.TraceEvent{ev("b", time.Second), ev("c", time.Minute), ev("d", 30*time.Second), ev("e", time.Minute), ev("a", 0)}
	type got struct {
		Name   string
		Offset time.Duration
	}
	for _, tc := range []struct {
		speed int32
		want  []got
	}{
		{0, []got{{"a", 0}, {"b", time.Second}, {"d", 30 * time.Second}, {"c", time.Minute}, {"e", time.Minute}}},
		{60, []got{{"a", 0}, {"b", time.Second / 60}, {"d", 500 * time.Millisecond}, {"c", time.Second}, {"e", time.Second}}},
	} {
		var out []got
		for _, e := range schedule(trace, tc.speed) {
			out = append(out, got{e.ev.Name, e.offset})
		}
		if d := cmp.Diff(tc.want, out); d != "" {
			t.Errorf("speed %d (-want +got):\n%s", tc.speed, d)
		}
	}
	if schedule(nil, 60) != nil {
		t.Error("an empty trace has events")
	}
}

// TestReplayOrder: one object's events are applied in order, different
// objects' at once, every event once.
func TestReplayOrder(t *testing.T) {
	const objects, perObject = 20, 10
	var events []timedEvent
	for i := range perObject {
		for o := range objects {
			events = append(events, timedEvent{ev: &contract.TraceEvent{Type: fmt.Sprint(i), Resource: "pods", Namespace: "default", Name: fmt.Sprint("p", o)}})
		}
	}
	var mu sync.Mutex
	seen := map[string][]string{}
	var running, most atomic.Int32
	apply := func(_ context.Context, ev *contract.TraceEvent) error {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		mu.Lock()
		seen[ev.Name] = append(seen[ev.Name], ev.Type)
		mu.Unlock()
		return nil
	}
	var l lags
	var applied atomic.Int32
	if err := replay(t.Context(), clock.RealClock{}, time.Now(), events, 8, &l, apply, func(int, *contract.TraceEvent, error) { applied.Add(1) }); err != nil {
		t.Fatal(err)
	}
	if applied.Load() != objects*perObject || len(l.values) != objects*perObject {
		t.Errorf("%d events done, %d lags; want %d", applied.Load(), len(l.values), objects*perObject)
	}
	want := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	for o := range objects {
		if d := cmp.Diff(want, seen[fmt.Sprint("p", o)]); d != "" {
			t.Errorf("events of p%d (-want +got):\n%s", o, d)
		}
	}
	if most.Load() < 2 {
		t.Errorf("at most %d events applied at once, want several", most.Load())
	}
}

// TestReplayLag: an event applied when its time has come has no lag; one
// held up behind a slow event of the same object is late by as much.
func TestReplayLag(t *testing.T) {
	fc := testingclock.NewFakeClock(t0)
	events := []timedEvent{
		{offset: 0, ev: &contract.TraceEvent{Resource: "pods", Name: "a", Type: "slow"}},
		{offset: 10 * time.Millisecond, ev: &contract.TraceEvent{Resource: "pods", Name: "a", Type: "next"}},
	}
	apply := func(_ context.Context, ev *contract.TraceEvent) error {
		if ev.Type == "slow" {
			fc.Step(200 * time.Millisecond)
		}
		return nil
	}
	var l lags
	// Whether the dispatcher waits for the second event's time or finds it
	// past, the worker takes it once the slow event ends, at 200 ms.
	if err := replay(t.Context(), fc, t0, events, 4, &l, apply, func(int, *contract.TraceEvent, error) {}); err != nil {
		t.Fatal(err)
	}
	var r contract.ScenarioReport
	l.fill(&r)
	if r.LagMaxMilliseconds != 190 || r.Late != 1 {
		t.Errorf("max lag %d ms, late %d; want 190, 1 (lags %v)", r.LagMaxMilliseconds, r.Late, l.values)
	}
}

// TestReplayNotHeldUp: events of other objects go on while one object's
// event is slow: any free worker takes them.
func TestReplayNotHeldUp(t *testing.T) {
	const others = 10
	events := []timedEvent{{ev: &contract.TraceEvent{Resource: "pods", Name: "slow"}}}
	for i := range others {
		events = append(events, timedEvent{ev: &contract.TraceEvent{Resource: "pods", Name: fmt.Sprint("p", i)}})
	}
	var applied atomic.Int32
	othersDone := make(chan struct{})
	apply := func(ctx context.Context, ev *contract.TraceEvent) error {
		if ev.Name != "slow" {
			if applied.Add(1) == others {
				close(othersDone)
			}
			return nil
		}
		select {
		case <-othersDone:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("held up")
		}
	}
	var failed atomic.Int32
	if err := replay(t.Context(), clock.RealClock{}, time.Now(), events, 4, &lags{}, apply, func(_ int, ev *contract.TraceEvent, err error) {
		if err != nil {
			failed.Add(1)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if failed.Load() != 0 || applied.Load() != others {
		t.Errorf("%d of %d other events applied while the slow one was in flight (it waited for them in vain: %d failed)", applied.Load(), others, failed.Load())
	}
}

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
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// timedEvent is a trace event and its offset from the run's start.
type timedEvent struct {
	offset time.Duration
	ev     *contract.TraceEvent
}

// schedule returns the events of trace by offset: its time less the
// earliest event's, divided by speed (1 when zero). Events seen at the same
// time keep their order: a trace's times come from several goroutines and
// may be a little out of order.
func schedule(trace []contract.TraceEvent, speed int32) []timedEvent {
	if len(trace) == 0 {
		return nil
	}
	if speed <= 0 {
		speed = 1
	}
	out := make([]timedEvent, len(trace))
	first := trace[0].Time
	for i := range trace {
		if trace[i].Time.Before(first) {
			first = trace[i].Time
		}
	}
	for i := range trace {
		out[i] = timedEvent{offset: trace[i].Time.Sub(first) / time.Duration(speed), ev: &trace[i]}
	}
	slices.SortStableFunc(out, func(a, b timedEvent) int { return int(a.offset - b.offset) })
	return out
}

// replay applies each event at start+offset on a pool of workers: a free
// worker takes the next event due, but one object's events are applied in
// order, one at a time: an event whose object has one in flight is applied
// after it, by the same worker. The lag of each event is taken when a
// worker starts applying it. apply's errors go to done, with every event's
// outcome; replay returns when all are applied, or ctx ends.
func replay(ctx context.Context, clk clock.Clock, start time.Time, events []timedEvent, workers int, l *lags,
	apply func(context.Context, *contract.TraceEvent) error, done func(int, *contract.TraceEvent, error)) error {
	type item struct {
		i   int
		at  time.Time
		ev  *contract.TraceEvent
		key string
	}
	var mu sync.Mutex
	// behind holds, for each object with an event in flight, its events
	// due since, in order.
	behind := map[string][]item{}
	// Room for a burst, so that the dispatcher keeps to the events' times
	// while every worker is busy.
	due := make(chan item, 1024)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for it := range due {
				for {
					if ctx.Err() == nil {
						l.add(it.at, clk.Now())
						done(it.i, it.ev, apply(ctx, it.ev))
					}
					mu.Lock()
					next := behind[it.key]
					if len(next) == 0 {
						delete(behind, it.key)
						mu.Unlock()
						break
					}
					it, behind[it.key] = next[0], next[1:]
					mu.Unlock()
				}
			}
		})
	}
	defer func() {
		close(due)
		wg.Wait()
	}()
	for i, e := range events {
		at := start.Add(e.offset)
		if err := sleepUntil(ctx, clk, at); err != nil {
			return err
		}
		it := item{i: i, at: at, ev: e.ev, key: e.ev.Resource + "/" + e.ev.Namespace + "/" + e.ev.Name}
		mu.Lock()
		if q, inFlight := behind[it.key]; inFlight {
			behind[it.key] = append(q, it)
			mu.Unlock()
			continue
		}
		behind[it.key] = nil
		mu.Unlock()
		select {
		case due <- it:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// applyEvent makes the inner cluster follow one traced change. Kinds the
// mirror copies go through its transforms and Writer (what belongs to the
// traced cluster goes; a Node becomes a kwok Node); a Pod loses its Node,
// for this simulator's scheduler to place it, and its later changes are
// left out (its binding is this scheduler's job) but for its end. Other
// kinds are written as they are, less their identity.
func (x *execution) applyEvent(ctx context.Context, ev *contract.TraceEvent) error {
	k := mirror.KindOf(ev.Resource)
	if k == nil {
		return x.applyOther(ctx, ev)
	}
	if ev.Type == string(watch.Deleted) {
		return x.writer.Delete(ctx, k, ev.Namespace, ev.Name)
	}
	obj := k.New()
	if err := json.Unmarshal(ev.Object, obj); err != nil {
		return fmt.Errorf("decoding the object: %w", err)
	}
	if obj.GetName() == "" {
		obj.SetName(ev.Name)
	}
	if k.Namespaced && obj.GetNamespace() == "" {
		obj.SetNamespace(ev.Namespace)
	}
	copied, ok := k.Transform(obj, nil)
	if !ok {
		// Ended or being deleted in the traced cluster.
		return x.writer.Delete(ctx, k, obj.GetNamespace(), obj.GetName())
	}
	if p, isPod := copied.(*corev1.Pod); isPod {
		if ev.Type != string(watch.Added) {
			return nil
		}
		p.Spec.NodeName = ""
		_, err := x.writer.Create(ctx, k, p)
		if apierrors.IsAlreadyExists(err) {
			// The trace saw it again (a relist): it is here already.
			return nil
		}
		return err
	}
	_, err := x.writer.Apply(ctx, k, copied)
	return err
}

// applyOther applies an event of a kind the mirror does not copy.
func (x *execution) applyOther(ctx context.Context, ev *contract.TraceEvent) error {
	var u *unstructured.Unstructured
	if ev.Type != string(watch.Deleted) {
		u = &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(ev.Object); err != nil {
			return fmt.Errorf("decoding the object: %w", err)
		}
	}
	gvr, namespaced, err := x.objects.traceResource(ev.Resource, u)
	if err != nil {
		return err
	}
	ri := x.cfg.Dynamic.Resource(gvr)
	var client interface {
		Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error)
		Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
		Update(context.Context, *unstructured.Unstructured, metav1.UpdateOptions, ...string) (*unstructured.Unstructured, error)
		Delete(context.Context, string, metav1.DeleteOptions, ...string) error
	} = ri
	namespace := ev.Namespace
	if namespaced {
		if namespace == "" && u != nil {
			namespace = u.GetNamespace()
		}
		if namespace == "" {
			namespace = metav1.NamespaceDefault
		}
		client = ri.Namespace(namespace)
	}
	if u == nil || u.GetDeletionTimestamp() != nil {
		err := client.Delete(ctx, ev.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	cleanForCopy(u)
	if u.GetName() == "" {
		u.SetName(ev.Name)
	}
	if namespaced {
		u.SetNamespace(namespace)
	}
	_, err = client.Create(ctx, u, metav1.CreateOptions{})
	if namespaced && apierrors.IsNotFound(err) {
		if err := x.objects.createNamespace(ctx, namespace); err != nil {
			return err
		}
		_, err = client.Create(ctx, u, metav1.CreateOptions{})
	}
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	existing, err := client.Get(ctx, u.GetName(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	u.SetResourceVersion(existing.GetResourceVersion())
	_, err = client.Update(ctx, u, metav1.UpdateOptions{})
	return err
}

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

// Package sink publishes finished scheduling attempts, off the scheduler's
// goroutines: the full result into a Store, the annotations onto the Pod,
// and an Event that says what happened in one line.
package sink

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/recorder"
)

// EventReason is the reason of the Events the sink writes for attempts
// that did not bind their Pod. A bound Pod's result is in the note of the
// scheduler's own Scheduled Event (see recorder.ScheduledReason).
const EventReason = "SchedulingResult"

// Sink is a recorder.Sink in two stages, each with a bounded queue: when
// one is full, results are dropped (and counted), never waited for, so
// recording can slow scheduling down only by the CPU it takes.
//
// Rendering (CPU) keeps up with the scheduler; the API calls (latency) may
// fall behind. So finished attempts, which hold every node's result, wait
// only for rendering: what waits for the API calls is their small patch
// and Event note, and the scheduler's memory does not grow with a backlog.
type Sink struct {
	client kubernetes.Interface
	pods   corelisters.PodLister
	events events.EventRecorder
	store  *Store
	queue  chan *recorder.Attempt
	calls  chan *apiCalls

	dropped   atomic.Int64
	published atomic.Int64

	// latest holds, by Pod UID, when its latest published attempt began
	// (see newest).
	mu        sync.Mutex
	latest    map[types.UID]time.Time
	lastSweep time.Time
}

const newestTTL = 10 * time.Minute

// apiCalls are what an attempt's result takes from the API: the Pod's
// annotations and, unless it bound the Pod, an Event.
type apiCalls struct {
	pod       *v1.Pod
	start     time.Time // of the attempt, as its Summary says
	patch     []byte
	eventType string
	note      string // none: no Event
}

// apiCallsPerAttempt sizes the second queue: its entries are small.
const apiCallsPerAttempt = 4

// New returns a Sink; Run publishes what it receives.
func New(client kubernetes.Interface, pods corelisters.PodLister, eventRecorder events.EventRecorder, store *Store, queueSize int) *Sink {
	return &Sink{client: client, pods: pods, events: eventRecorder, store: store,
		queue: make(chan *recorder.Attempt, queueSize), calls: make(chan *apiCalls, apiCallsPerAttempt*queueSize)}
}

// Record queues a finished attempt.
func (s *Sink) Record(a *recorder.Attempt) {
	select {
	case s.queue <- a:
	default:
		s.drop()
	}
}

func (s *Sink) drop() {
	if n := s.dropped.Add(1); n&(n-1) == 0 { // log at powers of two
		klog.Background().Info("Scheduling results dropped: the publishing queue is full", "dropped", n)
	}
}

// Dropped is the number of results dropped so far.
func (s *Sink) Dropped() int64 { return s.dropped.Load() }

// Published is the number of results published so far.
func (s *Sink) Published() int64 { return s.published.Load() }

// Run publishes until ctx ends: workers render, and four times as many
// make the API calls, which mostly wait.
func (s *Sink) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case a := <-s.queue:
					s.render(ctx, a)
				}
			}
		})
	}
	for range apiCallsPerAttempt * workers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case c := <-s.calls:
					s.call(ctx, c)
				}
			}
		})
	}
	wg.Wait()
}

// render stores the attempt's full result and queues its API calls.
func (s *Sink) render(ctx context.Context, a *recorder.Attempt) {
	if a.AnnotatedOnBinding && a.Outcome == recorder.Bound {
		// BindingAnnotations stored it, its Binding annotated the Pod and
		// the scheduler's Scheduled Event carries its note: nothing is left.
		s.published.Add(1)
		return
	}
	logger := klog.FromContext(ctx).WithValues("pod", klog.KRef(a.Pod.Namespace, a.Pod.Name), "uid", a.UID)
	pod, err := s.pods.Pods(a.Pod.Namespace).Get(a.Pod.Name)
	if err != nil || pod.UID != a.UID {
		// Gone (deleted, or the simulator was reset), or replaced by a Pod
		// of the same name: its result would be a stale one.
		s.published.Add(1)
		return
	}
	res := a.Result()
	c := &apiCalls{pod: pod, start: res.Summary.Time}
	if res.Summary.Outcome != string(recorder.Bound) {
		c.eventType, c.note = v1.EventTypeWarning, res.Summary.Text()
	}
	ann, err := s.publish(res, pod)
	if err != nil {
		logger.Error(err, "Rendering a scheduling result")
		return
	}
	if c.patch, err = json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":         a.UID, // a precondition: never annotate a new Pod of the same name
		"annotations": ann,
	}}); err != nil {
		logger.Error(err, "Encoding scheduling result annotations")
		return
	}
	s.enqueueCalls(c)
}

// publish renders res, stores its full result and returns the annotations
// of pod it sets (nil: removed), given the history pod has now; from then
// on, a patch of an earlier attempt of pod is stale (see newest).
func (s *Sink) publish(res *recorder.Result, pod *v1.Pod) (map[string]*string, error) {
	r, err := render(res)
	if err != nil {
		return nil, err
	}
	defer r.release()
	if err := s.store.Put(pod.Namespace, pod.Name, r.document()); err != nil {
		klog.Background().Error(err, "Storing a scheduling result", "pod", klog.KObj(pod))
	}
	ann, err := r.annotations(pod.Annotations)
	if err != nil {
		return nil, fmt.Errorf("annotations: %w", err)
	}
	s.newest(pod.UID, res.Summary.Time)
	return ann, nil
}

// enqueueCalls hands c to the API callers, or drops it when they are behind.
func (s *Sink) enqueueCalls(c *apiCalls) {
	select {
	case s.calls <- c:
	default:
		s.drop()
	}
}

// BindingAnnotations publishes a, about to be bound, and returns its
// annotations for the Binding: the same ones as its patch would set. A
// Binding cannot remove an annotation: when the Pod has one that this
// result removes (per-node results of an earlier attempt that no longer
// fit), the result is published after the binding, with a patch.
func (s *Sink) BindingAnnotations(res *recorder.Result, pod *v1.Pod) (map[string]string, bool) {
	ann, err := s.publish(res, pod)
	if err != nil {
		klog.Background().Error(err, "Rendering a scheduling result", "pod", klog.KObj(pod))
		return nil, false
	}
	out := make(map[string]string, len(ann))
	for k, v := range ann {
		if v == nil {
			if _, ok := pod.Annotations[k]; ok {
				return nil, false
			}
			continue
		}
		out[k] = *v
	}
	return out, true
}

// newest notes that an attempt of the Pod uid that began at start was
// published. Results reach the API out of order: the render and API
// workers run in parallel, and a Binding's annotations do not wait in the
// queues at all; so a patch is sent only if no later attempt of its Pod was
// published. Entries go after newestTTL, long past any queue's wait.
func (s *Sink) newest(uid types.UID, start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if now.Sub(s.lastSweep) > time.Minute {
		for u, t := range s.latest {
			if now.Sub(t) > newestTTL {
				delete(s.latest, u)
			}
		}
		s.lastSweep = now
	}
	if s.latest == nil {
		s.latest = map[types.UID]time.Time{}
	}
	if t, ok := s.latest[uid]; !ok || t.Before(start) {
		s.latest[uid] = start
	}
}

// superseded: a later attempt of the Pod than the one that began at start
// was published.
func (s *Sink) superseded(uid types.UID, start time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.latest[uid]
	return ok && start.Before(t)
}

func (s *Sink) call(ctx context.Context, c *apiCalls) {
	defer s.published.Add(1)
	if c.patch != nil && !s.superseded(c.pod.UID, c.start) {
		if _, err := s.client.CoreV1().Pods(c.pod.Namespace).Patch(ctx, c.pod.Name, types.MergePatchType, c.patch, metav1.PatchOptions{}); err != nil {
			if !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				klog.FromContext(ctx).Error(err, "Annotating a Pod with its scheduling result", "pod", klog.KObj(c.pod))
			}
		}
	}
	if c.note != "" {
		s.events.Eventf(c.pod, nil, c.eventType, EventReason, "Scheduling", "%s", c.note)
	}
}

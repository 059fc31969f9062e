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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"golang.org/x/sync/errgroup"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// validate checks what can be checked of spec before it runs.
func validate(spec *contract.ScenarioRun) error {
	var errs []error
	if spec.DurationMilliseconds < 0 {
		errs = append(errs, fmt.Errorf("durationMilliseconds: %d is negative", spec.DurationMilliseconds))
	}
	if spec.Speed < 0 {
		errs = append(errs, fmt.Errorf("speed: %d is negative", spec.Speed))
	}
	if spec.SampleMilliseconds < 0 {
		errs = append(errs, fmt.Errorf("sampleMilliseconds: %d is negative", spec.SampleMilliseconds))
	}
	prev := int64(0)
	for i, s := range spec.Steps {
		path := fmt.Sprintf("steps[%d]", i)
		if s.AtMilliseconds < prev {
			errs = append(errs, fmt.Errorf("%s.atMilliseconds: %d is before the previous step's %d", path, s.AtMilliseconds, prev))
		}
		prev = s.AtMilliseconds
		actions := 0
		for _, set := range []bool{len(s.Create) > 0, len(s.Delete) > 0, s.Scale != nil, s.Wait != nil} {
			if set {
				actions++
			}
		}
		if actions != 1 {
			errs = append(errs, fmt.Errorf("%s: %d of create, delete, scale and wait; want exactly one", path, actions))
		}
		for j, raw := range s.Create {
			if _, err := decodeObject(raw); err != nil {
				errs = append(errs, fmt.Errorf("%s.create[%d]: %w", path, j, err))
			}
		}
		for j, raw := range s.Delete {
			if u, err := decodeObject(raw); err != nil {
				errs = append(errs, fmt.Errorf("%s.delete[%d]: %w", path, j, err))
			} else if u.GetName() == "" {
				errs = append(errs, fmt.Errorf("%s.delete[%d]: no name", path, j))
			}
		}
		if sc := s.Scale; sc != nil {
			if _, ok := workloads[sc.Kind]; !ok && sc.Kind != contract.ScaleKindNodePool {
				errs = append(errs, fmt.Errorf("%s.scale.kind: %q: want %s, %s, %s or %s", path, sc.Kind,
					contract.ScaleKindNodePool, contract.ScaleKindDeployment, contract.ScaleKindReplicaSet, contract.ScaleKindStatefulSet))
			}
			if sc.Name == "" {
				errs = append(errs, fmt.Errorf("%s.scale.name: empty", path))
			}
			if sc.Replicas < 0 {
				errs = append(errs, fmt.Errorf("%s.scale.replicas: %d is negative", path, sc.Replicas))
			}
			if sc.Kind == contract.ScaleKindNodePool && len(sc.NodeSelector) == 0 {
				errs = append(errs, fmt.Errorf("%s.scale.nodeSelector: a NodePool's Nodes must be selected", path))
			}
		}
		if w := s.Wait; w != nil {
			if w.For != contract.WaitForPodsSettled && w.For != contract.WaitForNodesReady {
				errs = append(errs, fmt.Errorf("%s.wait.for: %q: want %s or %s", path, w.For, contract.WaitForPodsSettled, contract.WaitForNodesReady))
			}
			if w.TimeoutMilliseconds < 0 {
				errs = append(errs, fmt.Errorf("%s.wait.timeoutMilliseconds: %d is negative", path, w.TimeoutMilliseconds))
			}
		}
	}
	for i, ev := range spec.Trace {
		path := fmt.Sprintf("trace[%d]", i)
		switch ev.Type {
		case string(watch.Added), string(watch.Modified):
			if len(ev.Object) == 0 {
				errs = append(errs, fmt.Errorf("%s.object: a %s event needs its object", path, ev.Type))
			}
		case string(watch.Deleted):
		default:
			errs = append(errs, fmt.Errorf("%s.type: %q: want ADDED, MODIFIED or DELETED", path, ev.Type))
		}
		if ev.Resource == "" || ev.Name == "" {
			errs = append(errs, fmt.Errorf("%s: needs a resource and a name", path))
		}
		// Enough said: a broken trace has its errors on every line.
		if len(errs) > 20 {
			break
		}
	}
	return errors.Join(errs...)
}

// execution is one run under way.
type execution struct {
	cfg     *Config
	rn      *run
	m       *meter
	start   time.Time
	objects *objects
	writer  *mirror.Writer
}

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

// execute runs rn until it ends, stops, or ctx ends, and sets its final
// report.
func (r *Runner) execute(parent context.Context, rn *run) {
	spec := rn.spec
	logger := klog.FromContext(parent).WithValues("runID", spec.RunID, "generation", rn.generation)
	ctx, cancel := context.WithCancelCause(klog.NewContext(parent, logger))
	defer cancel(nil)
	clk := r.cfg.Clock
	x := &execution{cfg: &r.cfg, rn: rn, m: newMeter(clk, r.cfg.ResultsDir),
		objects: &objects{dynamic: r.cfg.Dynamic, mapper: r.cfg.Mapper}, writer: &mirror.Writer{Client: r.cfg.Client}}

	rn.mu.Lock()
	rn.stopRun = cancel
	if rn.stopped {
		cancel(errStopped)
	}
	rn.mu.Unlock()

	// The informers run until the run ends: its placements are then those
	// at its end.
	informerCtx, stopInformers := context.WithCancel(ctx)
	defer stopInformers()
	err := x.m.start(informerCtx, r.cfg.Client)
	if err == nil {
		rn.mu.Lock()
		rn.m = x.m
		rn.mu.Unlock()
		x.start = spec.StartTime
		if x.start.IsZero() {
			x.start = clk.Now()
		}
		err = sleepUntil(ctx, clk, x.start)
	}
	if err == nil {
		err = x.running(ctx)
	}
	stopInformers()

	switch {
	case errors.Is(context.Cause(ctx), errStopped):
		err = errStopped
	case parent.Err() != nil:
		err = errShutdown
	}
	end := clk.Now()
	rn.mu.Lock()
	defer rn.mu.Unlock()
	r2 := &rn.report
	if !rn.started.IsZero() {
		r2.ElapsedMilliseconds = max(end.Sub(rn.started).Milliseconds(), 0)
		rn.lags.fill(r2)
		x.m.fill(r2)
	}
	r2.Waiting = nil
	if err != nil {
		r2.Phase = contract.ScenarioRunFailed
		r2.Message = joinMessages(err.Error(), rn.messages)
		logger.Info("Scenario run failed", "err", err)
		return
	}
	r2.Phase = contract.ScenarioRunSucceeded
	r2.Message = joinMessages("", rn.messages)
	logger.Info("Scenario run succeeded", "elapsed", end.Sub(rn.started), "podsScheduled", r2.PodsScheduled,
		"lagP99Milliseconds", r2.LagP99Milliseconds, "late", r2.Late)
}

// running runs the steps and the trace side by side from x.start, samples
// the cluster all along, and returns once both are done and the duration
// has passed; or at the first error of a step.
func (x *execution) running(ctx context.Context) error {
	clk, spec := x.cfg.Clock, x.rn.spec
	x.m.markResults(ctx)
	x.rn.mu.Lock()
	x.rn.report.Phase = contract.ScenarioRunRunning
	x.rn.started = x.start
	x.rn.mu.Unlock()
	klog.FromContext(ctx).Info("Scenario run running", "lateBy", clk.Since(x.start))

	interval := ms(spec.SampleMilliseconds)
	if interval <= 0 {
		interval = time.Second
	}
	sampleCtx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		x.sampleEvery(sampleCtx, interval)
	}()

	g, gctx := errgroup.WithContext(ctx)
	if len(spec.Steps) > 0 {
		offsets := make([]time.Duration, len(spec.Steps))
		for i, s := range spec.Steps {
			offsets[i] = ms(s.AtMilliseconds)
		}
		g.Go(func() error { return timeline(gctx, clk, x.start, offsets, &x.rn.lags, x.step) })
	}
	if len(spec.Trace) > 0 {
		g.Go(func() error {
			apply := func(ctx context.Context, ev *contract.TraceEvent) error {
				// An event applied twice is applied: a create finds its
				// object, a delete finds it gone.
				return rideOut(ctx, clk, x.cfg.RideOut, func(bool) error { return x.applyEvent(ctx, ev) })
			}
			return replay(gctx, clk, x.start, schedule(spec.Trace, spec.Speed), x.cfg.Workers, &x.rn.lags, apply, x.eventDone)
		})
	}
	err := g.Wait()
	if err == nil {
		err = sleepUntil(ctx, clk, x.start.Add(ms(spec.DurationMilliseconds)))
	}
	stopSampling()
	<-sampled
	// The last sample is the end's, and the results are read to the end.
	x.m.sample(clk.Since(x.start))
	x.m.scanResults(ctx)
	x.m.countRejections(ctx)
	return err
}

// sampleEvery samples the cluster at every interval of the run's time
// until ctx ends, reading the scheduler's new results with each.
func (x *execution) sampleEvery(ctx context.Context, interval time.Duration) {
	clk := x.cfg.Clock
	for k := time.Duration(0); ; k++ {
		if sleepUntil(ctx, clk, x.start.Add(k*interval)) != nil {
			return
		}
		x.m.scanResults(ctx)
		x.m.sample(k * interval)
	}
}

// eventDone counts an event applied, or failed: the run goes on past a
// failed event, and says what failed first.
func (x *execution) eventDone(i int, ev *contract.TraceEvent, err error) {
	rn := x.rn
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if err == nil {
		rn.report.EventsApplied++
		return
	}
	rn.report.EventsFailed++
	if rn.report.EventsFailed == 1 {
		rn.messages = append(rn.messages, fmt.Sprintf("trace event %d (%s %s %s): %v", i, ev.Type, ev.Resource, podKey(ev.Namespace, ev.Name), err))
		rn.report.Message = joinMessages("", rn.messages)
	}
}

// timeline runs do for each offset in order, each at start+offset but
// never before the previous one ended, and records how late each started.
func timeline(ctx context.Context, clk clock.Clock, start time.Time, offsets []time.Duration, l *lags,
	do func(context.Context, int) error) error {
	for i, off := range offsets {
		at := start.Add(off)
		if err := sleepUntil(ctx, clk, at); err != nil {
			return err
		}
		l.add(at, clk.Now())
		if err := do(ctx, i); err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
	}
	return nil
}

// sleepUntil returns at t, or with ctx's error if it ends first.
func sleepUntil(ctx context.Context, clk clock.Clock, t time.Time) error {
	d := t.Sub(clk.Now())
	if d <= 0 {
		return ctx.Err()
	}
	timer := clk.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// step runs step i. Its writes are tried again while the control plane
// does not answer.
func (x *execution) step(ctx context.Context, i int) error {
	s := x.rn.spec.Steps[i]
	switch {
	case len(s.Create) > 0:
		return rideOut(ctx, x.cfg.Clock, x.cfg.RideOut, func(retried bool) error {
			for _, raw := range s.Create {
				if err := x.objects.create(ctx, raw, retried); err != nil {
					return err
				}
			}
			return nil
		})
	case len(s.Delete) > 0:
		return rideOut(ctx, x.cfg.Clock, x.cfg.RideOut, func(bool) error {
			for _, raw := range s.Delete {
				if err := x.objects.delete(ctx, raw); err != nil {
					return err
				}
			}
			return nil
		})
	case s.Scale != nil && s.Scale.Kind == contract.ScaleKindNodePool:
		return x.scaleNodePool(ctx, i, s.Scale)
	case s.Scale != nil:
		return rideOut(ctx, x.cfg.Clock, x.cfg.RideOut, func(bool) error {
			return x.objects.scale(ctx, s.Scale.Kind, s.Scale.Namespace, s.Scale.Name, s.Scale.Replicas)
		})
	case s.Wait != nil:
		return x.wait(ctx, i, s.Wait)
	}
	return nil
}

// scaleNodePool says in the report that the run waits for the server to
// scale a NodePool (out of the runner's reach, on the host), and waits
// until the Nodes it selects number its replicas, all Ready; past
// NodePoolTimeout it says so and goes on.
func (x *execution) scaleNodePool(ctx context.Context, i int, s *contract.ScenarioRunScale) error {
	sel := labels.SelectorFromSet(s.NodeSelector)
	w := *s
	x.rn.setWaiting(&w)
	defer x.rn.setWaiting(nil)
	timeout := x.cfg.NodePoolTimeout
	have := 0
	ok, err := x.until(ctx, timeout, 1, func(context.Context) bool {
		n, ready := x.m.nodesMatching(sel)
		have = n
		return n == int(s.Replicas) && ready
	})
	if err != nil {
		return err
	}
	if !ok {
		x.rn.note("step %d: NodePool %s did not reach %d Ready Nodes in %s (%d)", i, podKey(s.Namespace, s.Name), s.Replicas, timeout, have)
	}
	return nil
}

// wait waits for w's condition; past its timeout it says so and goes on.
// A condition holds once it held at two checks in a row: the informers
// and the controllers get a check's interval to show what was just
// created.
func (x *execution) wait(ctx context.Context, i int, w *contract.ScenarioRunWait) error {
	timeout := ms(w.TimeoutMilliseconds)
	if timeout <= 0 {
		timeout = DefaultWaitTimeout
	}
	cond := func(context.Context) bool { return x.m.nodesReady() }
	if w.For == contract.WaitForPodsSettled {
		cond = func(ctx context.Context) bool { return x.m.podsSettled() && x.workloadsSettled(ctx) }
	}
	ok, err := x.until(ctx, timeout, 2, cond)
	if err != nil {
		return err
	}
	if !ok {
		x.rn.note("step %d: wait %s timed out after %s", i, w.For, timeout)
	}
	return nil
}

// until checks cond every SettleInterval until it held times in a row
// (true), or timeout passed (false), or ctx ended (its error).
func (x *execution) until(ctx context.Context, timeout time.Duration, times int, cond func(context.Context) bool) (bool, error) {
	clk := x.cfg.Clock
	deadline := clk.Now().Add(timeout)
	held := 0
	for {
		if cond(ctx) {
			held++
		} else {
			held = 0
		}
		if held >= times {
			return true, nil
		}
		if !clk.Now().Before(deadline) {
			return false, nil
		}
		if err := sleepUntil(ctx, clk, clk.Now().Add(x.cfg.SettleInterval)); err != nil {
			return false, err
		}
	}
}

// workloadsSettled says whether every Deployment and ReplicaSet has made
// the Pods it wants: until then, a Pod still to be made is not pending
// yet. StatefulSets are left out: one makes its Pods one at a time, each
// once the one before is Ready, and never all of them if one finds no Node.
func (x *execution) workloadsSettled(ctx context.Context) bool {
	logger := klog.FromContext(ctx)
	// The watch cache's list: a check costs the apiserver no etcd read.
	opts := metav1.ListOptions{ResourceVersion: "0"}
	deploys, err := x.cfg.Client.AppsV1().Deployments("").List(ctx, opts)
	if err != nil {
		logger.V(2).Info("Listing deployments", "err", err)
		return false
	}
	for _, d := range deploys.Items {
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		if d.DeletionTimestamp == nil && (d.Status.ObservedGeneration < d.Generation || d.Status.Replicas != want) {
			return false
		}
	}
	sets, err := x.cfg.Client.AppsV1().ReplicaSets("").List(ctx, opts)
	if err != nil {
		logger.V(2).Info("Listing replicasets", "err", err)
		return false
	}
	for _, rs := range sets.Items {
		want := int32(1)
		if rs.Spec.Replicas != nil {
			want = *rs.Spec.Replicas
		}
		if rs.DeletionTimestamp == nil && (rs.Status.ObservedGeneration < rs.Generation || rs.Status.Replicas != want) {
			return false
		}
	}
	return true
}

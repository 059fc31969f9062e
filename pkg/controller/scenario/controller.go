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

// Package scenario is the reconciler of scenarios. It makes one simulator
// per variant (and a second run of the first, the noise floor), owned by
// the scenario, each with the scenario's NodePools and its variant's
// scheduler configuration; once all are Available it starts the workload in
// every one at the same time, through their simulator servers (the runner
// lives in the simulator image); it follows their reports into the
// scenario's status, scaling a simulator's NodePool when its runner waits
// for that; and at the end it compares where each variant placed the Pods.
// A deleted scenario's simulators and NodePools go with it.
package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/worker"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions/sim/v1alpha1"
	simlisters "sigs.k8s.io/simulator-apiserver/pkg/generated/listers/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

const (
	// FieldManager names the reconciler in what it writes.
	FieldManager = "scenario-reconciler"
	// LabelScenario carries the scenario's name on the simulators and
	// NodePools it made.
	LabelScenario = "sim.x-k8s.io/scenario"
	// AgainSuffix names the noise floor's second run of the first variant.
	AgainSuffix = "-again"
	// pollInterval is how often a running scenario's runners are asked.
	pollInterval = time.Second
	// startDelay puts the common start far enough ahead for every
	// simulator to have its run before it.
	startDelay = 3 * time.Second
	// callTimeout bounds one call to a simulator server.
	callTimeout = 10 * time.Second
	// copyTimeout bounds the export and the upload of spec.initial's
	// simulator (up to contract.MaxImportBytes).
	copyTimeout = 2 * time.Minute
	maxReport   = 8 << 20
	maxAnswer   = 64 << 20
)

// Conditions of a scenario.
const (
	ConditionReady    = "Ready"
	ConditionComplete = "Complete"
)

// Runners reach simulator servers (an *inner.Access).
type Runners interface {
	Call(ctx context.Context, t inner.Target, method, path string, body []byte, want int, maxAnswer int64) ([]byte, error)
}

// Controller reconciles scenarios.
type Controller struct {
	sims       simclientset.Interface
	scenarios  simlisters.ScenarioLister
	simulators simlisters.SimulatorLister
	pools      simlisters.NodePoolLister
	synced     []cache.InformerSynced
	configMaps configMaps
	runners    Runners
	recorder   record.EventRecorder
	queue      worker.Queue
	now        func() time.Time

	mu sync.Mutex
	// workloads holds the built workload of each started scenario, by UID.
	workloads map[types.UID]*workload
	// gone holds the last state of deleted scenarios until cleaned up.
	gone map[string]*v1alpha1.Scenario
}

// New wires a Controller. sims reaches our own API (loopback); configMaps
// reads the ConfigMaps scenarios name (the caller's right to read them was
// checked when the scenario was made).
func New(sims simclientset.Interface, scenarios siminformers.ScenarioInformer, simulators siminformers.SimulatorInformer,
	pools siminformers.NodePoolInformer, read func(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error), runners Runners,
	recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{
		sims:       sims,
		scenarios:  scenarios.Lister(),
		simulators: simulators.Lister(),
		pools:      pools.Lister(),
		synced:     []cache.InformerSynced{scenarios.Informer().HasSynced, simulators.Informer().HasSynced, pools.Informer().HasSynced},
		configMaps: read,
		runners:    runners,
		recorder:   recorder,
		queue:      worker.NewQueue("scenario"),
		now:        time.Now,
		workloads:  map[types.UID]*workload{},
		gone:       map[string]*v1alpha1.Scenario{},
	}
	if _, err := scenarios.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		DeleteFunc: c.deleted,
	}); err != nil {
		return nil, err
	}
	// A simulator or pool of a scenario changing (Available, Ready) moves it on.
	owned := cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueOwner,
		UpdateFunc: func(_, obj any) { c.enqueueOwner(obj) },
		DeleteFunc: c.enqueueOwner,
	}
	if _, err := simulators.Informer().AddEventHandler(owned); err != nil {
		return nil, err
	}
	if _, err := pools.Informer().AddEventHandler(owned); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Controller) enqueue(obj any) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// deleted keeps the scenario's last state, for the cleanup of what it
// started in simulators it does not own.
func (c *Controller) deleted(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	scn, ok := obj.(*v1alpha1.Scenario)
	if !ok {
		return
	}
	key, err := cache.MetaNamespaceKeyFunc(scn)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.mu.Lock()
	c.gone[key] = scn
	c.mu.Unlock()
	c.queue.Add(key)
}

func (c *Controller) enqueueOwner(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if ref := scenarioOwner(m); ref != nil {
		c.queue.Add(m.GetNamespace() + "/" + ref.Name)
		return
	}
	// An existing simulator a scenario runs in names no owner.
	if s, ok := obj.(*v1alpha1.Simulator); ok {
		if name := s.Labels[LabelScenario]; name != "" {
			c.queue.Add(s.Namespace + "/" + name)
		}
	}
}

// scenarioOwner is the scenario controlling obj, if one does.
func scenarioOwner(obj metav1.Object) *metav1.OwnerReference {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != "Scenario" || !strings.HasPrefix(ref.APIVersion, v1alpha1.GroupName+"/") {
		return nil
	}
	return ref
}

// Run syncs scenarios with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	worker.Run(ctx, "scenario", c.queue, workers, c.sync, c.synced...)
}

// target is one simulator a scenario runs in.
type target struct {
	// variant names it in the status.
	variant string
	// simulator is its name; owned says the scenario made it.
	simulator string
	owned     bool
	// config is the variant's scheduler configuration, if any.
	config *runtime.RawExtension
}

func targets(scn *v1alpha1.Scenario) []target {
	if len(scn.Spec.Variants) == 0 {
		out := make([]target, 0, len(scn.Spec.Simulators))
		for _, name := range scn.Spec.Simulators {
			out = append(out, target{variant: name, simulator: name})
		}
		return out
	}
	out := make([]target, 0, len(scn.Spec.Variants)+1)
	for _, v := range scn.Spec.Variants {
		out = append(out, target{variant: v.Name, simulator: scn.Name + "-" + v.Name, owned: true, config: v.SchedulerConfiguration})
	}
	if ptr.Deref(scn.Spec.NoiseFloor, true) {
		first := out[0]
		first.variant += AgainSuffix
		first.simulator += AgainSuffix
		out = append(out, first)
	}
	return out
}

func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, err
	}
	scn, err := c.scenarios.Scenarios(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return 0, c.cleanUp(ctx, namespace, name)
	}
	if err != nil {
		return 0, err
	}
	if scn.DeletionTimestamp != nil {
		return 0, nil
	}
	if done(scn) {
		c.forget(scn.UID)
		return 0, nil
	}
	status := scn.Status.DeepCopy()
	status.ObservedGeneration = scn.Generation
	ts := targets(scn)
	requeue, err := c.step(ctx, scn, ts, status)
	if werr := c.writeStatus(ctx, scn, status); werr != nil {
		return 0, werr
	}
	if err != nil {
		return 0, err
	}
	if done(&v1alpha1.Scenario{Status: *status}) {
		c.forget(scn.UID)
		return 0, nil
	}
	return requeue, nil
}

func done(scn *v1alpha1.Scenario) bool {
	return scn.Status.Phase == v1alpha1.ScenarioSucceeded || scn.Status.Phase == v1alpha1.ScenarioFailed
}

func (c *Controller) forget(uid types.UID) {
	c.mu.Lock()
	delete(c.workloads, uid)
	c.mu.Unlock()
}

// step moves the scenario on by one look and sets status accordingly.
func (c *Controller) step(ctx context.Context, scn *v1alpha1.Scenario, ts []target, status *v1alpha1.ScenarioStatus) (time.Duration, error) {
	if status.StartTime == nil {
		ready, why, err := c.prepare(ctx, scn, ts)
		if err != nil {
			var failed *failure
			if asFailure(err, &failed) {
				reason := failed.reason
				if reason == "" {
					reason = "SimulatorConflict"
				}
				fail(status, scn.Generation, reason, failed.Error())
				return 0, nil
			}
			return 0, err
		}
		status.Phase = v1alpha1.ScenarioPending
		if !ready {
			setCondition(status, scn.Generation, ConditionReady, metav1.ConditionFalse, "Preparing", why)
			return pollInterval, nil
		}
		start := metav1.NewTime(c.now().Add(startDelay).Truncate(time.Second))
		w, err := buildWorkload(ctx, scn, c.configMaps, start.Time)
		if err != nil {
			// A ConfigMap named may yet appear.
			setCondition(status, scn.Generation, ConditionReady, metav1.ConditionFalse, "WorkloadUnreadable", err.Error())
			return 5 * pollInterval, nil
		}
		for _, t := range ts {
			if t.config == nil || len(t.config.Raw) == 0 {
				continue
			}
			if err := c.setSchedulerConfig(ctx, scn, t); err != nil {
				setCondition(status, scn.Generation, ConditionReady, metav1.ConditionFalse, "SchedulerConfiguration", err.Error())
				return pollInterval, nil
			}
		}
		c.mu.Lock()
		c.workloads[scn.UID] = w
		c.mu.Unlock()
		// The start is recorded before any simulator has the run, so that
		// a new leader never starts it twice; the runs are sent on the next
		// look (each simulator is asked whether it has this run).
		status.StartTime = &start
		status.Phase = v1alpha1.ScenarioRunning
		setCondition(status, scn.Generation, ConditionReady, metav1.ConditionTrue, "Available", "every simulator is Available")
		return time.Millisecond, nil
	}
	return c.follow(ctx, scn, ts, status)
}

// failure is a scenario that cannot go on.
type failure struct {
	msg string
	// reason is the Complete condition's; SimulatorConflict if empty.
	reason string
}

func (f *failure) Error() string { return f.msg }

func asFailure(err error, out **failure) bool {
	f, ok := err.(*failure)
	if ok {
		*out = f
	}
	return ok
}

func fail(status *v1alpha1.ScenarioStatus, generation int64, reason, msg string) {
	status.Phase = v1alpha1.ScenarioFailed
	setCondition(status, generation, ConditionComplete, metav1.ConditionTrue, reason, msg)
}

func setCondition(status *v1alpha1.ScenarioStatus, generation int64, typ string, s metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg, ObservedGeneration: generation})
}

// prepare makes the scenario's simulators and NodePools and says whether
// all are ready, or what is not.
func (c *Controller) prepare(ctx context.Context, scn *v1alpha1.Scenario, ts []target) (bool, string, error) {
	var waiting []string
	for _, t := range ts {
		s, err := c.simulators.Simulators(scn.Namespace).Get(t.simulator)
		switch {
		case apierrors.IsNotFound(err) && t.owned:
			if s, err = c.createSimulator(ctx, scn, t); err != nil {
				return false, "", err
			}
		case apierrors.IsNotFound(err):
			return false, "", &failure{msg: fmt.Sprintf("simulator %s does not exist", t.simulator)}
		case err != nil:
			return false, "", err
		case t.owned && !metav1.IsControlledBy(s, scn):
			return false, "", &failure{msg: fmt.Sprintf("simulator %s exists and is not this scenario's", t.simulator)}
		}
		if s.Status.Phase != v1alpha1.SimulatorAvailable {
			waiting = append(waiting, fmt.Sprintf("simulator %s is %s", s.Name, phaseOr(s.Status.Phase)))
		} else if scn.Spec.Initial != nil && scn.Spec.Initial.Source != nil &&
			(s.Status.Source == nil || s.Status.Source.Phase != v1alpha1.SourceSynced) {
			waiting = append(waiting, fmt.Sprintf("simulator %s is importing its source", s.Name))
		} else if scn.Spec.Initial != nil && scn.Spec.Initial.SimulatorName != "" {
			why, err := c.copyInitial(ctx, scn, t)
			if err != nil {
				return false, "", err
			}
			if why != "" {
				waiting = append(waiting, why)
			}
		}
		for _, p := range scn.Spec.NodePools {
			pool, err := c.pools.NodePools(scn.Namespace).Get(poolName(t.simulator, p.Name))
			switch {
			case apierrors.IsNotFound(err):
				if pool, err = c.createPool(ctx, scn, t, p); err != nil {
					return false, "", err
				}
			case err != nil:
				return false, "", err
			case !metav1.IsControlledBy(pool, scn):
				return false, "", &failure{msg: fmt.Sprintf("NodePool %s exists and is not this scenario's", pool.Name)}
			}
			want := ptr.Deref(p.Replicas, 1)
			if pool.Status.ObservedGeneration < pool.Generation || pool.Status.ReadyReplicas != want {
				waiting = append(waiting, fmt.Sprintf("NodePool %s has %d/%d Nodes ready", pool.Name, pool.Status.ReadyReplicas, want))
			}
		}
	}
	if len(waiting) > 0 {
		return false, strings.Join(waiting, "; "), nil
	}
	return true, "", nil
}

func phaseOr(p v1alpha1.SimulatorPhase) string {
	if p == "" {
		return "Pending"
	}
	return string(p)
}

func ownerRef(scn *v1alpha1.Scenario) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Scenario",
		Name: scn.Name, UID: scn.UID, Controller: ptr.To(true),
	}
}

func (c *Controller) createSimulator(ctx context.Context, scn *v1alpha1.Scenario, t target) (*v1alpha1.Simulator, error) {
	s := &v1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{
			Name: t.simulator, Namespace: scn.Namespace,
			Labels:          map[string]string{LabelScenario: scn.Name},
			OwnerReferences: []metav1.OwnerReference{ownerRef(scn)},
		},
		Spec: *scn.Spec.Simulator.DeepCopy(),
	}
	if in := scn.Spec.Initial; in != nil && in.Source != nil {
		s.Spec.Source = in.Source.DeepCopy()
	}
	created, err := c.sims.SimV1alpha1().Simulators(scn.Namespace).Create(ctx, s, metav1.CreateOptions{FieldManager: FieldManager})
	if apierrors.IsAlreadyExists(err) {
		// The cache is behind; the next look sees it.
		return c.sims.SimV1alpha1().Simulators(scn.Namespace).Get(ctx, t.simulator, metav1.GetOptions{})
	}
	if apierrors.IsInvalid(err) {
		return nil, &failure{msg: fmt.Sprintf("simulator %s: %v", t.simulator, err)}
	}
	if err != nil {
		return nil, fmt.Errorf("creating simulator %s: %w", t.simulator, err)
	}
	return created, nil
}

func (c *Controller) createPool(ctx context.Context, scn *v1alpha1.Scenario, t target, p v1alpha1.ScenarioNodePool) (*v1alpha1.NodePool, error) {
	pool := &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{
			Name: poolName(t.simulator, p.Name), Namespace: scn.Namespace,
			Labels:          map[string]string{LabelScenario: scn.Name},
			OwnerReferences: []metav1.OwnerReference{ownerRef(scn)},
		},
		Spec: v1alpha1.NodePoolSpec{SimulatorName: t.simulator, Replicas: ptr.To(ptr.Deref(p.Replicas, 1)), Template: *p.Template.DeepCopy()},
	}
	created, err := c.sims.SimV1alpha1().NodePools(scn.Namespace).Create(ctx, pool, metav1.CreateOptions{FieldManager: FieldManager})
	if apierrors.IsAlreadyExists(err) {
		return c.sims.SimV1alpha1().NodePools(scn.Namespace).Get(ctx, pool.Name, metav1.GetOptions{})
	}
	if apierrors.IsInvalid(err) {
		return nil, &failure{msg: fmt.Sprintf("NodePool %s: %v", pool.Name, err)}
	}
	if err != nil {
		return nil, fmt.Errorf("creating NodePool %s: %w", pool.Name, err)
	}
	return created, nil
}

// innerTarget addresses a target's simulator server.
func (c *Controller) innerTarget(namespace string, t target) (inner.Target, error) {
	s, err := c.simulators.Simulators(namespace).Get(t.simulator)
	if err != nil {
		return inner.Target{}, err
	}
	return inner.TargetOf(s, s.Spec.SimulatorServerPort), nil
}

func (c *Controller) call(ctx context.Context, namespace string, t target, method, path string, body []byte, want int, limit int64) ([]byte, error) {
	return c.callFor(ctx, callTimeout, namespace, t, method, path, body, want, limit)
}

func (c *Controller) callFor(ctx context.Context, timeout time.Duration, namespace string, t target, method, path string, body []byte, want int, limit int64) ([]byte, error) {
	it, err := c.innerTarget(namespace, t)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return c.runners.Call(ctx, it, method, path, body, want, limit)
}

// copyInitial puts the export of spec.initial.simulatorName into t's
// simulator, once, through the simulators' own import, and says what it
// waits for ("" once the import has succeeded). The scenario's creator was
// checked for the export (get simulators/api) when the scenario was made.
func (c *Controller) copyInitial(ctx context.Context, scn *v1alpha1.Scenario, t target) (string, error) {
	from := scn.Spec.Initial.SimulatorName
	raw, err := c.call(ctx, scn.Namespace, t, http.MethodGet, contract.PathImport, nil, http.StatusOK, maxReport)
	if err != nil {
		return "", fmt.Errorf("reading the import of simulator %s: %w", t.simulator, err)
	}
	var st contract.ImportStatus
	if err := json.Unmarshal(raw, &st); err != nil {
		return "", fmt.Errorf("reading the import of simulator %s: %w", t.simulator, err)
	}
	waiting := fmt.Sprintf("simulator %s is importing simulator %s", t.simulator, from)
	switch st.Phase {
	case contract.ImportSucceeded:
		return "", nil
	case contract.ImportImporting:
		return waiting, nil
	case contract.ImportFailed:
		return "", &failure{reason: "InitialImportFailed", msg: fmt.Sprintf("importing simulator %s into %s: %s", from, t.simulator, st.LastError)}
	}
	src, err := c.simulators.Simulators(scn.Namespace).Get(from)
	switch {
	case apierrors.IsNotFound(err):
		return "", &failure{reason: "InitialImportFailed", msg: fmt.Sprintf("simulator %s (spec.initial.simulatorName) does not exist", from)}
	case err != nil:
		return "", err
	case src.Status.Phase != v1alpha1.SimulatorAvailable:
		return fmt.Sprintf("simulator %s (spec.initial.simulatorName) is %s", from, phaseOr(src.Status.Phase)), nil
	}
	doc, err := c.callFor(ctx, copyTimeout, scn.Namespace, target{simulator: from}, http.MethodGet, contract.PathExport, nil, http.StatusOK, contract.MaxImportBytes)
	if err != nil {
		return "", fmt.Errorf("exporting simulator %s: %w", from, err)
	}
	_, err = c.callFor(ctx, copyTimeout, scn.Namespace, t, http.MethodPost, contract.PathImport, doc, http.StatusAccepted, maxReport)
	if err != nil && !inner.IsCallStatus(err, http.StatusConflict) {
		if inner.IsCallStatus(err, http.StatusBadRequest) || inner.IsCallStatus(err, http.StatusRequestEntityTooLarge) {
			return "", &failure{reason: "InitialImportFailed", msg: fmt.Sprintf("importing simulator %s into %s: %v", from, t.simulator, err)}
		}
		return "", fmt.Errorf("importing simulator %s into %s: %w", from, t.simulator, err)
	}
	return waiting, nil
}

func (c *Controller) setSchedulerConfig(ctx context.Context, scn *v1alpha1.Scenario, t target) error {
	if _, err := c.call(ctx, scn.Namespace, t, http.MethodPut, contract.PathSchedulerConfig, t.config.Raw, http.StatusOK, maxReport); err != nil {
		return fmt.Errorf("setting the scheduler configuration of %s: %w", t.simulator, err)
	}
	return nil
}

// follow sends the run to the simulators that lack it, reads their
// reports, scales the NodePools their runners wait for and, once all have
// ended, compares them.
func (c *Controller) follow(ctx context.Context, scn *v1alpha1.Scenario, ts []target, status *v1alpha1.ScenarioStatus) (time.Duration, error) {
	c.mu.Lock()
	w := c.workloads[scn.UID]
	c.mu.Unlock()
	if w == nil {
		// Another leader started it: the same workload, at the recorded start.
		var err error
		if w, err = buildWorkload(ctx, scn, c.configMaps, status.StartTime.Time); err != nil {
			fail(status, scn.Generation, "WorkloadUnreadable", err.Error())
			return 0, nil
		}
		c.mu.Lock()
		c.workloads[scn.UID] = w
		c.mu.Unlock()
	}
	variants := make([]v1alpha1.ScenarioVariantStatus, 0, len(ts))
	reports := make([]*contract.ScenarioReport, len(ts))
	ended := true
	var failed []string
	for i, t := range ts {
		r, err := c.report(ctx, scn, t, w)
		if err != nil {
			klog.FromContext(ctx).V(2).Info("No report from a scenario's simulator", "scenario", klog.KObj(scn), "simulator", t.simulator, "err", err)
			// Keep what the status said of it.
			ended = false
			if old := findVariant(status.Variants, t.variant); old != nil {
				variants = append(variants, *old)
			} else {
				variants = append(variants, v1alpha1.ScenarioVariantStatus{Name: t.variant, SimulatorName: t.simulator})
			}
			continue
		}
		reports[i] = r
		variants = append(variants, variantStatus(t.variant, t.simulator, w.run.DurationMilliseconds, r))
		switch r.Phase {
		case contract.ScenarioRunSucceeded:
		case contract.ScenarioRunFailed:
			failed = append(failed, fmt.Sprintf("%s: %s", t.variant, r.Message))
		default:
			ended = false
		}
		if r.Waiting != nil && r.Waiting.Kind == contract.ScaleKindNodePool {
			if err := c.scalePool(ctx, scn.Namespace, r.Waiting); err != nil {
				return 0, err
			}
		}
	}
	status.Variants = variants
	status.Progress = 100
	for _, v := range variants {
		status.Progress = min(status.Progress, v.Progress)
	}
	if !ended {
		return pollInterval, nil
	}
	comparisons, err := c.compareAll(ctx, scn, ts, reports)
	if err != nil {
		return 0, err
	}
	status.Comparisons = comparisons
	now := metav1.NewTime(c.now())
	status.CompletionTime = &now
	// kubectl describe shows it under Events.
	c.recorder.Event(scn, corev1.EventTypeNormal, "Compared", summary(variants, comparisons))
	if len(failed) > 0 {
		fail(status, scn.Generation, "VariantFailed", strings.Join(failed, "; "))
		return 0, nil
	}
	status.Phase = v1alpha1.ScenarioSucceeded
	setCondition(status, scn.Generation, ConditionComplete, metav1.ConditionTrue, "Succeeded", fmt.Sprintf("%d variants ran the workload", len(ts)))
	return 0, nil
}

func findVariant(vs []v1alpha1.ScenarioVariantStatus, name string) *v1alpha1.ScenarioVariantStatus {
	for i := range vs {
		if vs[i].Name == name {
			return &vs[i]
		}
	}
	return nil
}

// report reads t's report of this scenario's run, sending the run first if
// t does not have it.
func (c *Controller) report(ctx context.Context, scn *v1alpha1.Scenario, t target, w *workload) (*contract.ScenarioReport, error) {
	body, err := c.call(ctx, scn.Namespace, t, http.MethodGet, contract.PathScenario, nil, http.StatusOK, maxReport)
	if err != nil && !inner.IsCallStatus(err, http.StatusNotFound) {
		return nil, err
	}
	if err == nil {
		r := &contract.ScenarioReport{}
		if err := json.Unmarshal(body, r); err != nil {
			return nil, fmt.Errorf("%s of %s: %w", contract.PathScenario, t.simulator, err)
		}
		if r.RunID == string(scn.UID) {
			return r, nil
		}
		if r.Phase == contract.ScenarioRunWaiting || r.Phase == contract.ScenarioRunRunning {
			return nil, fmt.Errorf("simulator %s runs another scenario (%s)", t.simulator, r.RunID)
		}
	}
	run, err := json.Marshal(w.forSimulator(t.simulator))
	if err != nil {
		return nil, err
	}
	if _, err := c.call(ctx, scn.Namespace, t, http.MethodPost, contract.PathScenario, run, http.StatusAccepted, maxReport); err != nil {
		return nil, fmt.Errorf("starting the run in %s: %w", t.simulator, err)
	}
	return &contract.ScenarioReport{Phase: contract.ScenarioRunWaiting, RunID: string(scn.UID)}, nil
}

// scalePool sets a NodePool's replicas to what a runner waits for.
func (c *Controller) scalePool(ctx context.Context, namespace string, s *contract.ScenarioRunScale) error {
	pool, err := c.pools.NodePools(namespace).Get(s.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ptr.Deref(pool.Spec.Replicas, 1) == s.Replicas {
		return nil
	}
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, s.Replicas)
	_, err = c.sims.SimV1alpha1().NodePools(namespace).Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("scaling NodePool %s to %d: %w", s.Name, s.Replicas, err)
	}
	return nil
}

// compareAll compares each variant with the first, and the first with its
// second run.
func (c *Controller) compareAll(ctx context.Context, scn *v1alpha1.Scenario, ts []target, reports []*contract.ScenarioReport) ([]v1alpha1.ScenarioComparison, error) {
	if len(ts) < 2 {
		return nil, nil
	}
	got := make([]placements, len(ts))
	for i, t := range ts {
		body, err := c.call(ctx, scn.Namespace, t, http.MethodGet, contract.PathScenarioPlacements, nil, http.StatusOK, maxAnswer)
		if err != nil {
			return nil, fmt.Errorf("placements of %s: %w", t.simulator, err)
		}
		p := &contract.ScenarioPlacements{}
		if err := json.Unmarshal(body, p); err != nil {
			return nil, fmt.Errorf("placements of %s: %w", t.simulator, err)
		}
		got[i] = nodeNamer{simulator: t.simulator}.normalize(p)
	}
	out := make([]v1alpha1.ScenarioComparison, 0, len(ts)-1)
	for i := 1; i < len(ts); i++ {
		diff, onlyV, onlyB := compare(got[i], got[0])
		out = append(out, v1alpha1.ScenarioComparison{
			Variant: ts[i].variant, Baseline: ts[0].variant,
			NoiseFloor:        ts[i].variant == ts[0].variant+AgainSuffix && ts[i].owned,
			PlacedDifferently: diff, ScheduledOnlyInVariant: onlyV, ScheduledOnlyInBaseline: onlyB,
			NodesUsedDelta: reports[i].NodesUsed - reports[0].NodesUsed,
		})
	}
	return out, nil
}

func (c *Controller) writeStatus(ctx context.Context, scn *v1alpha1.Scenario, status *v1alpha1.ScenarioStatus) error {
	if apiequality.Semantic.DeepEqual(&scn.Status, status) {
		return nil
	}
	updated := scn.DeepCopy()
	updated.Status = *status
	_, err := c.sims.SimV1alpha1().Scenarios(scn.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: FieldManager})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("writing the status of scenario %s: %w", klog.KObj(scn), err)
	}
	return nil
}

// cleanUp deletes what a deleted scenario made, and stops its runs in the
// simulators it did not make.
func (c *Controller) cleanUp(ctx context.Context, namespace, name string) error {
	key := namespace + "/" + name
	c.mu.Lock()
	last := c.gone[key]
	c.mu.Unlock()
	// What a scenario of this name still living controls stays.
	var live types.UID
	if scn, err := c.scenarios.Scenarios(namespace).Get(name); err == nil {
		live = scn.UID
	}
	selector := labels.SelectorFromSet(labels.Set{LabelScenario: name})
	pools, err := c.pools.NodePools(namespace).List(selector)
	if err != nil {
		return err
	}
	for _, p := range pools {
		if ref := scenarioOwner(p); ref != nil && ref.Name == name && ref.UID != live {
			err := c.sims.SimV1alpha1().NodePools(namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &p.UID}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return fmt.Errorf("deleting NodePool %s of deleted scenario %s: %w", p.Name, key, err)
			}
		}
	}
	sims, err := c.simulators.Simulators(namespace).List(selector)
	if err != nil {
		return err
	}
	for _, s := range sims {
		if ref := scenarioOwner(s); ref != nil && ref.Name == name && ref.UID != live {
			err := c.sims.SimV1alpha1().Simulators(namespace).Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return fmt.Errorf("deleting simulator %s of deleted scenario %s: %w", s.Name, key, err)
			}
		}
	}
	if last != nil {
		c.forget(last.UID)
		for _, t := range targets(last) {
			if t.owned {
				continue
			}
			c.stop(ctx, last, t)
		}
	}
	c.mu.Lock()
	delete(c.gone, key)
	c.mu.Unlock()
	return nil
}

// stop ends the deleted scenario's run in a simulator it did not make, if
// that simulator still runs it.
func (c *Controller) stop(ctx context.Context, scn *v1alpha1.Scenario, t target) {
	body, err := c.call(ctx, scn.Namespace, t, http.MethodGet, contract.PathScenario, nil, http.StatusOK, maxReport)
	if err != nil {
		return
	}
	r := &contract.ScenarioReport{}
	if json.Unmarshal(body, r) != nil || r.RunID != string(scn.UID) {
		return
	}
	if _, err := c.call(ctx, scn.Namespace, t, http.MethodDelete, contract.PathScenario, nil, http.StatusOK, maxReport); err != nil {
		klog.FromContext(ctx).Info("Could not stop a deleted scenario's run", "scenario", klog.KObj(scn), "simulator", t.simulator, "err", err)
	}
}

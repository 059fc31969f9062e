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

// Package source brings what a simulator reports of its source (the mirror
// of spec.source, which runs in its Pod) into its record, where every
// replica's status reads it: the leader asks each simulator with a source,
// through its simulator server with the admin certificate, and writes the
// answer when it changed.
package source

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/worker"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions/sim/v1alpha1"
	simlisters "sigs.k8s.io/simulator-apiserver/pkg/generated/listers/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
)

const (
	// Interval is how often a simulator with a source is asked.
	Interval = 2 * time.Second
	// syncTimeRefresh is how far the source's last sync time may run ahead
	// of the one recorded before it alone is worth a write: a quiet Sync
	// source is synced all the time, and its record need not say so every
	// two seconds.
	syncTimeRefresh = 30 * time.Second
	// maxReport bounds the answer read from a simulator.
	maxReport = 64 << 10
)

// Controller copies the simulators' source reports into their records.
type Controller struct {
	sims      simclientset.Interface
	simLister simlisters.SimulatorLister
	simSynced cache.InformerSynced
	access    *inner.Access
	queue     worker.Queue
}

// New wires a Controller to the simulators' informer. sims reaches our own
// API (loopback).
func New(sims simclientset.Interface, simInformer siminformers.SimulatorInformer, access *inner.Access) (*Controller, error) {
	c := &Controller{
		sims:      sims,
		simLister: simInformer.Lister(),
		simSynced: simInformer.Informer().HasSynced,
		access:    access,
		queue:     worker.NewQueue("source"),
	}
	if _, err := simInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj interface{}) { c.enqueue(obj) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Controller) enqueue(obj interface{}) {
	s, ok := obj.(*v1alpha1.Simulator)
	if !ok || s.Spec.Source == nil {
		return
	}
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// Run asks the simulators with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	worker.Run(ctx, "source", c.queue, workers, c.sync, c.simSynced)
}

// sync asks one simulator for its source's report and records it; it
// comes back every Interval while the simulator has a source.
func (c *Controller) sync(ctx context.Context, key string) (time.Duration, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return 0, err
	}
	s, err := c.simLister.Simulators(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if s.Spec.Source == nil || s.DeletionTimestamp != nil {
		return 0, nil
	}
	report, err := c.ask(ctx, s)
	if err != nil {
		// Not up yet, or restarting: the status says so already.
		klog.FromContext(ctx).V(4).Info("No source report", "simulator", key, "err", err)
		return Interval, nil
	}
	if !worthWriting(backing.SourceStatusOf(s.Annotations), report) {
		return Interval, nil
	}
	value, err := json.Marshal(report)
	if err != nil {
		return 0, err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{sim.AnnotationSourceStatus: string(value)}}})
	if err != nil {
		return 0, err
	}
	_, err = c.sims.SimV1alpha1().Simulators(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "source-reconciler"})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("recording the source's report: %w", err)
	}
	return Interval, nil
}

// ask GETs the source's report from the simulator server of s's ready Pod.
func (c *Controller) ask(ctx context.Context, s *v1alpha1.Simulator) (*contract.SourceStatus, error) {
	t := inner.TargetOf(s, s.Spec.SimulatorServerPort)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	body, err := c.access.Call(ctx, t, http.MethodGet, contract.PathSource, nil, http.StatusOK, maxReport)
	if err != nil {
		return nil, err
	}
	report := &contract.SourceStatus{}
	if err := json.Unmarshal(body, report); err != nil {
		return nil, fmt.Errorf("%s: %w", contract.PathSource, err)
	}
	return report, nil
}

// worthWriting says whether report differs from the recorded one in more
// than its clock: the sync time moving by less than syncTimeRefresh, or the
// lag, are not worth a write of the record.
func worthWriting(recorded, report *contract.SourceStatus) bool {
	if recorded == nil {
		return true
	}
	a, b := *recorded, *report
	at, bt := a.LastSyncTime, b.LastSyncTime
	a.LastSyncTime, b.LastSyncTime, a.LagMilliseconds, b.LagMilliseconds = nil, nil, 0, 0
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		return true
	}
	switch {
	case at == nil && bt == nil:
		return false
	case at == nil || bt == nil:
		return true
	}
	return bt.Sub(*at) >= syncTimeRefresh
}

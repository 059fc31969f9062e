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

package simulator

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
)

// catchUpTimeout bounds a read's wait for its cache to catch up with the
// reconciler's (a list's in all), and catchUpInterval is how often it
// looks meanwhile.
const (
	catchUpTimeout  = 3 * time.Second
	catchUpInterval = 10 * time.Millisecond
)

// statusReader computes a simulator's status on every read (the store's
// Decorator), from its Pod where its site is.
//
// Each replica of the server reads its own host cache, and one (the
// leader) writes on the record the digest of the status it saw change
// (sim.AnnotationObservedStatus), so that watchers get an event. That
// event can reach another replica before the host's event of the Pod that
// caused it (two watches, in no order between them): decorated at once, it
// would carry the status from before the change, and no later write would
// correct it (`kubectl wait --for=…Available` would wait in vain). So the
// reconciler also records the resourceVersion of the Pod it computed the
// status from (sim.AnnotationObservedPodVersion), and a replica whose
// cache has that Pod older, or has not seen it yet, waits for it before it
// computes the status.
type statusReader struct {
	sites    *site.Resolver
	timeout  time.Duration
	interval time.Duration
}

func newStatusReader(sites *site.Resolver) *statusReader {
	return &statusReader{sites: sites, timeout: catchUpTimeout, interval: catchUpInterval}
}

// decorate fills in the status of a simulator or of each in a list.
func (r *statusReader) decorate(obj runtime.Object) {
	deadline := time.Now().Add(r.timeout)
	switch o := obj.(type) {
	case *sim.Simulator:
		if o.Name == "" {
			return // a watch bookmark: only a resourceVersion
		}
		o.Status = r.status(o, deadline)
	case *sim.SimulatorList:
		for i := range o.Items {
			o.Items[i].Status = r.status(&o.Items[i], deadline)
		}
	}
}

// status is s's status as its site shows it. One that differs from the
// reconciler's is computed again once the site's cache has the Pod the
// reconciler saw, as new as it saw it, or at deadline.
func (r *statusReader) status(s *sim.Simulator, deadline time.Time) sim.SimulatorStatus {
	where, err := r.sites.Of(site.InternalRefOf(s))
	if err != nil {
		return backing.Status(s, nil, err)
	}
	compute := func() sim.SimulatorStatus { return backing.Status(s, where.Pod(s.Name, s.Generation), nil) }
	st := compute()
	digest := s.Annotations[sim.AnnotationObservedStatus]
	if !owesWait(s) || backing.Digest(st) == digest {
		return st
	}
	seen := backing.ParseDigest(digest).Pod
	// Computed after the cache caught up: it only moves forward.
	for behind(where.Pods(s.Name), where.PodsVersion(), seen, s.Annotations[sim.AnnotationObservedPodVersion]) && time.Now().Before(deadline) {
		time.Sleep(min(r.interval, time.Until(deadline)))
	}
	return compute()
}

// owesWait says whether s's Pod decides its status and the reconciler
// recorded the Pod it saw: not when the record alone decides (deleted,
// or its names held by another owner).
func owesWait(s *sim.Simulator) bool {
	return s.Annotations[sim.AnnotationObservedPodVersion] != "" &&
		s.DeletionTimestamp == nil && s.Annotations[backing.AnnotationNotOwned] == ""
}

// behind says whether a cache has not yet seen the Pod named seen at
// version: it has it older, or it has not it and has not seen every change
// up to version (cached: how far it has). A Pod it has not, having seen
// further, was deleted since: waiting would not bring it back.
func behind(pods []*corev1.Pod, cached, seen, version string) bool {
	for _, p := range pods {
		if p.Name == seen {
			return older(p.ResourceVersion, version)
		}
	}
	return older(cached, version)
}

// older says whether resourceVersion a is before b (of one resource of one
// cluster); not when either cannot be read.
func older(a, b string) bool {
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c < 0
}

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

// Package source mirrors a real cluster (spec.source) into the simulator's:
// it reads the source gently (paginated consistent lists, then watches,
// at the source's QPS), copies what it reads in dependency order and in
// parallel, then, in Sync mode, follows the source's changes and compares
// the source's scheduler with the simulator's (shadow scheduling).
package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/mirror"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// Defaults of Config.
const (
	// DefaultWorkers write in parallel: as many as keep the inner
	// kube-apiserver busy without queueing in it.
	DefaultWorkers = 32
	// DefaultShadowWait bounds how long a Pod the source bound waits for
	// the simulator's scheduler to decide too.
	DefaultShadowWait = 10 * time.Second
	// pageSize is the source's list page.
	pageSize = 500
	// maxRetries bounds the writes of one change that the inner cluster
	// refuses (with backoff, about 5 s in all).
	maxRetries = 10
)

// Config is what a Mirror mirrors, from where, into what.
type Config struct {
	Source *contract.Source
	// SourceConfig returns the source's client configuration (RESTConfig);
	// called again, with backoff, until it succeeds: the Secret's volume
	// may not be there yet.
	SourceConfig func() (*rest.Config, error)
	// Inner is a client of the simulator's kube-apiserver, as its admin.
	Inner kubernetes.Interface
	// Store, when set, is the inner kube-apiserver's etcd: the first copy
	// writes Nodes and Pods straight into it (see copyStored).
	Store Store
	// Workers, TraceBytes and ShadowWait default to DefaultWorkers,
	// DefaultTraceBytes and DefaultShadowWait.
	Workers    int
	TraceBytes int
	ShadowWait time.Duration
}

// Mirror mirrors a source into the simulator.
type Mirror struct {
	cfg    Config
	filter Filter
	opts   mirror.Options
	writer *mirror.Writer
	status *status
	trace  *Trace
	queue  workqueue.TypedRateLimitingInterface[objKey]

	mu sync.Mutex
	// known is what the mirror wrote inside, by object.
	known  map[objKey]known
	counts map[string]int64
	// desired is what is left to write (nil obj: to delete).
	desired map[objKey]desired
	// writing are the objects a worker writes now: one it creates is not
	// known until its write returns, and its deletion, seen meanwhile,
	// must not be taken for that of an object never mirrored.
	writing map[objKey]bool
	// sawPending are the Pods the source showed unbound since the mirror
	// last wrote them: when the source binds one, the simulator's
	// scheduler gets to decide it too (shadow scheduling).
	sawPending map[objKey]bool
	// ownerUIDs are the UIDs inside of the workloads copied, by kind.
	ownerUIDs map[objKey]types.UID
	// shadowed are the decisions taken for Pods the source bound, until
	// each is written: a write that fails after the Pod inside was
	// deleted (RecreatePod) is tried again with what was decided, which
	// the Pod inside no longer shows.
	shadowed map[objKey]shadowDecision
	// namespacesInside are the namespaces known to exist inside: an
	// object goes straight into etcd only in one (see createStored).
	namespacesInside map[string]bool
	// undecidedSince are the Pods the source bound that wait for the
	// simulator's scheduler, since when (at most ShadowWait): a worker
	// does not wait with them, it looks again after shadowPoll.
	undecidedSince map[objKey]time.Time
}

// shadowDecision is what a Pod the source bound is written with.
type shadowDecision struct {
	// annotations are the simulator's on the Pod inside (its scheduler's
	// result) and the comparison (contract.AnnotationShadow*).
	annotations map[string]string
	// agreement is counted once the Pod is written; empty if not compared.
	agreement string
}

type objKey struct{ resource, namespace, name string }

func (k objKey) String() string {
	if k.namespace == "" {
		return k.resource + "/" + k.name
	}
	return k.resource + "/" + k.namespace + "/" + k.name
}

// known is what the mirror wrote of an object.
type known struct {
	// rv is the source's resourceVersion of what was written.
	rv string
	// node is the node a Pod was written on: empty when it was left to the
	// simulator's scheduler.
	node string
	// labels and annotations are those of the Pod's copy written: a
	// relabel is written as a patch from them (Writer.RelabelPod).
	labels, annotations map[string]string
}

// desired is a change to write.
type desired struct {
	kind *mirror.Kind
	// obj is the copy to write; nil to delete it.
	obj mirror.Object
	rv  string
	// received is when the source's change arrived.
	received time.Time
	// src is the source's object, for a first copy into etcd
	// (mirror.Stored): the list that holds it is kept until the copy is
	// done anyway.
	src mirror.Object
}

// New returns a mirror of cfg.Source.
func New(cfg Config) (*Mirror, error) {
	filter, err := NewFilter(cfg.Source)
	if err != nil {
		return nil, err
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.TraceBytes <= 0 {
		cfg.TraceBytes = DefaultTraceBytes
	}
	if cfg.ShadowWait <= 0 {
		cfg.ShadowWait = DefaultShadowWait
	}
	m := &Mirror{
		cfg:            cfg,
		filter:         filter,
		writer:         &mirror.Writer{Client: cfg.Inner},
		status:         newStatus(),
		trace:          NewTrace(cfg.TraceBytes),
		queue:          workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[objKey]()),
		known:          map[objKey]known{},
		counts:         map[string]int64{},
		desired:        map[objKey]desired{},
		writing:        map[objKey]bool{},
		sawPending:     map[objKey]bool{},
		ownerUIDs:      map[objKey]types.UID{},
		shadowed:       map[objKey]shadowDecision{},
		undecidedSince: map[objKey]time.Time{},

		namespacesInside: map[string]bool{},
	}
	m.opts = mirror.Options{Workloads: cfg.Source.Workloads, OwnerUID: m.ownerUID}
	return m, nil
}

// Status is how the mirror stands.
func (m *Mirror) Status() contract.SourceStatus {
	m.mu.Lock()
	counts := make(map[string]int64, len(m.counts))
	for r, n := range m.counts {
		if n > 0 {
			counts[r] = n
		}
	}
	m.mu.Unlock()
	return m.status.get(counts)
}

// WriteTrace writes the changes seen on the source, as JSON lines.
func (m *Mirror) WriteTrace(w io.Writer) error {
	_, err := m.trace.WriteTo(w)
	return err
}

// Run mirrors until ctx ends, or, in Once mode, until the copy is whole.
func (m *Mirror) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	client, kinds, err := m.connect(ctx)
	if err != nil {
		return err
	}
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	type reader struct {
		kind      *mirror.Kind
		namespace string
	}
	var readers []reader
	for _, k := range kinds {
		for _, ns := range m.filter.Scopes(k) {
			readers = append(readers, reader{k, ns})
		}
	}
	// Each reader hands its first list here, then waits for the copy.
	first := make(chan []desired, len(readers))
	copied := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, r := range readers {
		st := &store{m: m, kind: r.kind, namespace: r.namespace, first: first, copied: copied, done: readCtx.Done()}
		// A reader the source forbids stops (see Mirror.reflector).
		rctx, stop := context.WithCancel(readCtx)
		refl := m.reflector(client, r.kind, r.namespace, st, stop)
		wg.Go(func() {
			defer stop()
			refl.RunWithContext(klog.NewContext(rctx, logger.WithValues("reader", readerName(r.kind, r.namespace))))
			if !st.listed && readCtx.Err() == nil {
				// Forbidden before its first list: an empty one, so that the
				// copy does not wait for it.
				select {
				case first <- nil:
				case <-readCtx.Done():
				}
			}
		})
	}
	start := time.Now()
	var all []desired
	for range readers {
		select {
		case <-ctx.Done():
			return nil
		case items := <-first:
			all = append(all, items...)
		}
	}
	listed := time.Since(start)
	m.copyAll(ctx, all)
	logger.Info("Copied the source", "objects", len(all), "listed", listed.Round(time.Millisecond), "elapsed", time.Since(start).Round(time.Millisecond))

	var workers sync.WaitGroup
	defer func() {
		m.queue.ShutDown()
		workers.Wait()
	}()
	for range m.cfg.Workers {
		workers.Go(func() {
			for m.processNext(ctx) {
			}
		})
	}
	if m.cfg.Source.Mode == contract.SourceModeOnce {
		stopReading()
		// What failed in the copy is written again, with backoff, before
		// the copy is said whole.
		_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
			return m.pending() == 0, nil
		})
		m.status.setPhase(contract.SourceSynced)
		m.status.synced(time.Now(), -1)
		close(copied)
		logger.Info("Source imported")
		return nil
	}
	m.status.setPhase(contract.SourceSyncing)
	m.status.synced(time.Now(), -1)
	close(copied)
	<-ctx.Done()
	return nil
}

// connect makes the source's client and finds the kinds it serves, again
// and again until it can; until then the mirror is Failed with the
// source's error.
func (m *Mirror) connect(ctx context.Context) (kubernetes.Interface, []*mirror.Kind, error) {
	logger := klog.FromContext(ctx)
	var client kubernetes.Interface
	var kinds []*mirror.Kind
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 6, Cap: 30 * time.Second}
	delay := backoff.DelayWithReset(clock.RealClock{}, 5*time.Minute)
	err := delay.Until(ctx, true, true, func(ctx context.Context) (bool, error) {
		var err error
		client, kinds, err = m.discover(ctx)
		if err != nil {
			logger.Info("Cannot read the source", "err", err)
			m.status.readerFailed("", err)
			return false, nil
		}
		m.status.readerOK("")
		return true, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return client, kinds, nil
}

func (m *Mirror) discover(ctx context.Context) (kubernetes.Interface, []*mirror.Kind, error) {
	cfg, err := m.cfg.SourceConfig()
	if err != nil {
		return nil, nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("the source's client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("the source's discovery client: %w", err)
	}
	served := map[string]map[string]bool{}
	var kinds []*mirror.Kind
	for i := range mirror.Kinds {
		k := &mirror.Kinds[i]
		if k.Workload && !m.cfg.Source.Workloads {
			continue
		}
		gv := k.GroupVersion.String()
		resources, ok := served[gv]
		if !ok {
			list, err := disc.ServerResourcesForGroupVersion(gv)
			switch {
			case apierrors.IsNotFound(err):
				// The source does not serve the group: its kinds are
				// skipped, not waited for.
			case apierrors.IsForbidden(err):
				// Nor does it show it to these credentials: skipped, and
				// said so.
				m.status.skip(gv, err)
			case err != nil:
				return nil, nil, err
			default:
				resources = map[string]bool{}
				for _, r := range list.APIResources {
					resources[r.Name] = true
				}
			}
			served[gv] = resources
		}
		if resources[k.Resource] {
			kinds = append(kinds, k)
		} else {
			klog.FromContext(ctx).Info("The source does not serve a kind; skipped", "resource", k.Resource, "groupVersion", gv)
		}
	}
	return client, kinds, nil
}

func readerName(k *mirror.Kind, namespace string) string {
	if namespace == "" {
		return k.Resource
	}
	return k.Resource + "/" + namespace
}

// reflector lists and watches k in namespace (all if empty); a list or a
// watch the source forbids (403) skips the reader: it is noted in the
// status (not a failure: credentials of a namespace's user cannot list
// Nodes, and the rest is worth mirroring) and forbidden is called, to stop
// it; any other error is the mirror's failure until the reader reads
// again. Its first list
// is a consistent one ("" rather than the reflector's "0": the watch cache
// would answer "0" whole, ignoring the page size), paginated; the
// WatchListClient feature of client-go (on by default since 1.35) would
// replace the lists by a watch that streams the initial state, which the
// source's watch cache serves in one go: the reflector is told not to use
// it. Every list and watch notes in the status whether the source answered.
func (m *Mirror) reflector(client kubernetes.Interface, k *mirror.Kind, namespace string, st *store, forbidden func()) *cache.Reflector {
	rc := k.RESTClient(client)
	name := readerName(k, namespace)
	request := func(opts *metav1.ListOptions) *rest.Request {
		m.filter.ListOptions(k, opts)
		return rc.Get().Namespace(namespace).Resource(k.Resource).VersionedParams(opts, metav1.ParameterCodec)
	}
	note := func(ctx context.Context, err error) {
		switch {
		case apierrors.IsForbidden(err):
			klog.FromContext(ctx).Info("The source forbids reading a kind; skipped", "reader", name, "err", err)
			m.status.skip(name, err)
			forbidden()
		case err != nil && !errors.Is(err, context.Canceled):
			m.status.readerFailed(name, err)
		case err == nil:
			m.status.readerOK(name)
		}
	}
	lw := &listWatch{ListWatch: &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if opts.ResourceVersion == "0" {
				opts.ResourceVersion = ""
			}
			obj, err := request(&opts).Do(ctx).Get()
			note(ctx, err)
			return obj, err
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			w, err := request(&opts).Watch(ctx)
			note(ctx, err)
			return w, err
		},
	}}
	r := cache.NewReflectorWithOptions(lw, k.New(), st, cache.ReflectorOptions{Name: "source " + name})
	r.WatchListPageSize = pageSize
	return r
}

// listWatch opts out of WatchList (see Mirror.reflector).
type listWatch struct{ *cache.ListWatch }

func (*listWatch) IsWatchListSemanticsUnSupported() bool { return true }

// store receives a reader's lists and events.
type store struct {
	m         *Mirror
	kind      *mirror.Kind
	namespace string
	// first receives the first list's objects; copied closes when they
	// are copied, so that changes apply to a whole copy. done ends a wait
	// for it.
	first  chan<- []desired
	copied <-chan struct{}
	done   <-chan struct{}
	listed bool
}

func (s *store) Add(obj any) error { s.m.observe(s.kind, watch.Added, obj.(mirror.Object)); return nil }
func (s *store) Update(obj any) error {
	s.m.observe(s.kind, watch.Modified, obj.(mirror.Object))
	return nil
}
func (s *store) Delete(obj any) error {
	s.m.observe(s.kind, watch.Deleted, obj.(mirror.Object))
	return nil
}
func (s *store) Resync() error { return nil }

func (s *store) Replace(list []any, _ string) error {
	if s.listed {
		s.m.relist(s.kind, s.namespace, list)
		return nil
	}
	items := s.m.firstList(s.kind, list)
	select {
	case s.first <- items:
	case <-s.done:
		return errors.New("stopped")
	}
	s.listed = true
	select {
	case <-s.copied:
		return nil
	case <-s.done:
		return errors.New("stopped")
	}
}

// copy returns the copy of obj to write, if it is mirrored, typed for the
// trace.
func (m *Mirror) copy(k *mirror.Kind, obj mirror.Object) (mirror.Object, bool) {
	if !m.filter.Keep(k, obj) {
		return nil, false
	}
	out, ok := k.Transform(obj, &m.opts)
	if !ok {
		return nil, false
	}
	out.GetObjectKind().SetGroupVersionKind(k.GroupVersion.WithKind(k.Kind))
	return out, true
}

func keyOf(k *mirror.Kind, obj metav1.Object) objKey {
	return objKey{resource: k.Resource, namespace: obj.GetNamespace(), name: obj.GetName()}
}

// firstList returns the copies of a reader's first list.
func (m *Mirror) firstList(k *mirror.Kind, list []any) []desired {
	now := time.Now()
	out := make([]desired, 0, len(list))
	for _, item := range list {
		obj := item.(mirror.Object)
		c, ok := m.copy(k, obj)
		if !ok {
			continue
		}
		d := desired{kind: k, obj: c, rv: obj.GetResourceVersion(), received: now}
		if m.stored(k) {
			d.src = obj
		}
		out = append(out, d)
		m.traceEvent(now, watch.Added, k, obj, c)
	}
	return out
}

// relist queues what a later list (the watch could not resume) shows
// changed, and deletes what it no longer shows.
func (m *Mirror) relist(k *mirror.Kind, namespace string, list []any) {
	seen := make(map[objKey]bool, len(list))
	for _, item := range list {
		obj := item.(mirror.Object)
		seen[keyOf(k, obj)] = true
		m.mu.Lock()
		kn, ok := m.known[keyOf(k, obj)]
		m.mu.Unlock()
		if ok && kn.rv == obj.GetResourceVersion() {
			continue
		}
		m.observe(k, watch.Modified, obj)
	}
	var gone []objKey
	m.mu.Lock()
	for key := range m.known {
		if key.resource == k.Resource && (namespace == "" || key.namespace == namespace) && !seen[key] {
			gone = append(gone, key)
		}
	}
	m.mu.Unlock()
	for _, key := range gone {
		obj := k.New()
		obj.SetNamespace(key.namespace)
		obj.SetName(key.name)
		m.observe(k, watch.Deleted, obj)
	}
}

// observe queues a change seen on the source.
func (m *Mirror) observe(k *mirror.Kind, t watch.EventType, obj mirror.Object) {
	now := time.Now()
	key := keyOf(k, obj)
	var c mirror.Object
	ok := false
	if t != watch.Deleted {
		c, ok = m.copy(k, obj)
	}
	m.mu.Lock()
	_, isKnown := m.known[key]
	_, isQueued := m.desired[key]
	if !ok && !isKnown && !isQueued && !m.writing[key] {
		// Neither mirrored nor to be.
		m.mu.Unlock()
		return
	}
	if p, isPod := c.(*corev1.Pod); ok && isPod && p.Spec.NodeName == "" {
		m.sawPending[key] = true
	}
	d := desired{kind: k, rv: obj.GetResourceVersion(), received: now}
	switch {
	case !ok:
		t = watch.Deleted
	case !isKnown:
		t = watch.Added
		d.obj = c
		if m.stored(k) {
			d.src = obj
		}
	default:
		t = watch.Modified
		d.obj = c
	}
	m.desired[key] = d
	m.mu.Unlock()
	m.traceEvent(now, t, k, obj, c)
	m.queue.Add(key)
}

func (m *Mirror) traceEvent(now time.Time, t watch.EventType, k *mirror.Kind, obj, c mirror.Object) {
	ev := contract.TraceEvent{Time: now, Type: string(t), Resource: k.Resource, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if t != watch.Deleted && c != nil {
		data, err := json.Marshal(c)
		if err == nil {
			ev.Object = data
		}
	}
	m.trace.Add(ev)
}

// settled says whether nothing is left to write but Pods the source bound
// that the simulator's scheduler has yet to decide (written within
// ShadowWait): the mirror is synced with the source but for those.
func (m *Mirror) settled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key := range m.desired {
		if _, undecided := m.undecidedSince[key]; !undecided {
			return false
		}
	}
	return true
}

// pending counts the changes left to write.
func (m *Mirror) pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.desired)
}

func (m *Mirror) ownerUID(kind, namespace, name string) (types.UID, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	uid, ok := m.ownerUIDs[objKey{resource: kind, namespace: namespace, name: name}]
	return uid, ok
}

// wrote notes that d was written as out (nil: deleted).
func (m *Mirror) wrote(key objKey, d desired, out mirror.Object) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, was := m.known[key]
	delete(m.shadowed, key)
	switch {
	case key.resource == "namespaces":
		m.namespacesInside[key.name] = out != nil
	case out != nil && key.namespace != "":
		// Written through the API, which made its namespace if missing.
		m.namespacesInside[key.namespace] = true
	}
	if out == nil {
		delete(m.undecidedSince, key)
		if was {
			m.counts[key.resource]--
		}
		delete(m.known, key)
		delete(m.sawPending, key)
		delete(m.ownerUIDs, objKey{resource: d.kind.Kind, namespace: key.namespace, name: key.name})
		return
	}
	if !was {
		m.counts[key.resource]++
	}
	kn := known{rv: d.rv}
	if p, ok := out.(*corev1.Pod); ok {
		kn.node = d.obj.(*corev1.Pod).Spec.NodeName
		kn.labels, kn.annotations = d.obj.GetLabels(), d.obj.GetAnnotations()
		if p.Spec.NodeName != "" && kn.node != "" {
			delete(m.sawPending, key)
		}
		if kn.node != "" {
			delete(m.undecidedSince, key)
		}
	}
	m.known[key] = kn
	if d.kind.Workload {
		m.ownerUIDs[objKey{resource: d.kind.Kind, namespace: key.namespace, name: key.name}] = out.GetUID()
	}
}

// copyAll writes the first copy: tier after tier, each in parallel. What
// fails is left to the workers, which write it again with backoff.
func (m *Mirror) copyAll(ctx context.Context, all []desired) {
	logger := klog.FromContext(ctx)
	tiers := map[int][]desired{}
	maxTier := 0
	for _, d := range all {
		t := d.kind.TierOf(d.obj)
		tiers[t] = append(tiers[t], d)
		maxTier = max(maxTier, t)
	}
	for t := 0; t <= maxTier; t++ {
		items := tiers[t]
		if len(items) == 0 {
			continue
		}
		start := time.Now()
		items, direct := m.copyTierStored(ctx, items)
		next := make(chan desired)
		var wg sync.WaitGroup
		var failed sync.Map
		for range min(m.cfg.Workers, len(items)) {
			wg.Go(func() {
				for d := range next {
					key := keyOf(d.kind, d.obj)
					out, err := m.writer.Apply(ctx, d.kind, d.obj)
					if err != nil {
						failed.Store(key, d)
						logger.V(2).Info("Copying an object failed; it is tried again", "object", key, "err", err)
						continue
					}
					m.wrote(key, d, out)
				}
			})
		}
		for _, d := range items {
			select {
			case next <- d:
			case <-ctx.Done():
			}
		}
		close(next)
		wg.Wait()
		n := 0
		failed.Range(func(k, v any) bool {
			n++
			m.keep(k.(objKey), v.(desired))
			m.queue.AddRateLimited(k.(objKey))
			return true
		})
		logger.Info("Copied a tier", "tier", t, "objects", len(items)+direct, "intoEtcd", direct, "failed", n, "elapsed", time.Since(start).Round(time.Millisecond))
	}
}

// processNext writes the next change; false once the queue shuts down.
func (m *Mirror) processNext(ctx context.Context) bool {
	key, quit := m.queue.Get()
	if quit {
		return false
	}
	defer m.queue.Done(key)
	m.mu.Lock()
	d, ok := m.desired[key]
	delete(m.desired, key)
	kn, isKnown := m.known[key]
	sawPending := m.sawPending[key]
	if ok {
		m.writing[key] = true
	}
	m.mu.Unlock()
	if !ok {
		m.queue.Forget(key)
		return true
	}
	defer func() {
		m.mu.Lock()
		delete(m.writing, key)
		m.mu.Unlock()
	}()
	if err := m.write(ctx, key, d, kn, isKnown, sawPending); err != nil {
		if ctx.Err() != nil {
			return true
		}
		if errors.Is(err, errUndecided) {
			m.keep(key, d)
			m.queue.AddAfter(key, shadowPoll)
			if m.settled() {
				m.status.synced(time.Now(), -1)
			}
			return true
		}
		logger := klog.FromContext(ctx)
		if m.queue.NumRequeues(key) >= maxRetries {
			// The inner cluster refuses it: the mirror goes on without,
			// until the source changes it.
			logger.Error(err, "Not mirroring an object", "object", key, "tries", maxRetries+1)
			m.queue.Forget(key)
			return true
		}
		m.keep(key, d)
		logger.V(2).Info("Writing a change failed; it is tried again", "object", key, "err", err)
		m.queue.AddRateLimited(key)
		return true
	}
	m.queue.Forget(key)
	now := time.Now()
	if m.settled() {
		m.status.synced(now, now.Sub(d.received))
	} else {
		m.status.applied(now.Sub(d.received))
	}
	return true
}

// keep queues d again for key unless a newer change of it came meanwhile.
func (m *Mirror) keep(key objKey, d desired) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, newer := m.desired[key]; !newer {
		m.desired[key] = d
	}
}

func (m *Mirror) write(ctx context.Context, key objKey, d desired, kn known, isKnown, sawPending bool) error {
	if d.obj == nil {
		if err := m.writer.Delete(ctx, d.kind, key.namespace, key.name); err != nil {
			return err
		}
		m.wrote(key, d, nil)
		return nil
	}
	if p, ok := d.obj.(*corev1.Pod); ok && p.Spec.NodeName != "" && m.cfg.Source.Mode == contract.SourceModeSync {
		// The source bound a Pod it showed pending: the simulator's
		// scheduler decides it too, if it has not yet.
		if (isKnown && kn.node == "") || (!isKnown && sawPending) {
			return m.shadow(ctx, key, d, isKnown)
		}
	}
	if p, ok := d.obj.(*corev1.Pod); ok && isKnown && kn.node == p.Spec.NodeName {
		// Where it was: only its labels and annotations can have changed.
		out, err := m.writer.RelabelPod(ctx, p, kn.labels, kn.annotations)
		if err != nil {
			return err
		}
		m.wrote(key, d, out)
		return nil
	}
	if !isKnown && d.src != nil && m.namespaceInside(key.namespace) {
		// A new Node or Pod goes straight into etcd, as the first copy's.
		out, err := m.createStored(ctx, d)
		if err == nil {
			m.wrote(key, d, out)
			return nil
		}
		klog.FromContext(ctx).V(2).Info("Not storing an object directly; it goes through the API", "object", key, "err", err)
	}
	write := m.writer.Apply
	if isKnown {
		write = m.writer.Update
	}
	out, err := write(ctx, d.kind, d.obj)
	if err != nil {
		return err
	}
	m.wrote(key, d, out)
	return nil
}

// shadow writes a Pod the source bound, once the simulator's scheduler
// decided it too (or after ShadowWait): on the source's node, with the
// simulator's choice beside (contract.AnnotationShadow*).
func (m *Mirror) shadow(ctx context.Context, key objKey, d desired, exists bool) error {
	logger := klog.FromContext(ctx)
	pod := d.obj.(*corev1.Pod)
	m.mu.Lock()
	dec, decidedBefore := m.shadowed[key]
	m.mu.Unlock()
	if decidedBefore {
		inner, err := m.innerPod(ctx, pod)
		if err != nil {
			return err
		}
		return m.writeShadowed(ctx, key, d, inner, dec)
	}
	if !exists {
		// Unseen inside: it is made pending, for the scheduler to decide,
		// and known so (with no resourceVersion of the source's: a relist
		// writes it again), so that the next look only reads it.
		pending := pod.DeepCopy()
		pending.Spec.NodeName = ""
		out, err := m.writer.Apply(ctx, d.kind, pending)
		if err != nil {
			return err
		}
		m.wrote(key, desired{kind: d.kind, obj: pending, received: d.received}, out)
	}
	inner, decided, err := m.decision(ctx, key, pod)
	if err != nil {
		return err
	}
	if inner == nil {
		out, err := m.writer.Apply(ctx, d.kind, pod)
		if err != nil {
			return err
		}
		m.wrote(key, d, out)
		return nil
	}
	dec = shadowDecision{annotations: mirror.SimulatorAnnotations(inner)}
	switch {
	case !decided:
		// Not compared: written where the source put it.
	case inner.Spec.NodeName == pod.Spec.NodeName:
		dec.agreement = contract.ShadowSame
	case inner.Spec.NodeName == "":
		dec.agreement = contract.ShadowUnschedulable
	default:
		dec.agreement = contract.ShadowOther
	}
	if dec.agreement != "" {
		maps.Copy(dec.annotations, shadowAnnotations(inner.Spec.NodeName, dec.agreement))
	}
	m.mu.Lock()
	m.shadowed[key] = dec
	m.mu.Unlock()
	logger.V(2).Info("Shadow scheduling", "pod", klog.KObj(pod), "source", pod.Spec.NodeName, "simulator", inner.Spec.NodeName, "agreement", dec.agreement)
	return m.writeShadowed(ctx, key, d, inner, dec)
}

// writeShadowed writes the Pod the source bound where the source put it,
// with what was decided: inner is the Pod inside, nil if gone.
func (m *Mirror) writeShadowed(ctx context.Context, key objKey, d desired, inner *corev1.Pod, dec shadowDecision) error {
	pod := d.obj.(*corev1.Pod)
	var out *corev1.Pod
	var err error
	if inner != nil && inner.Spec.NodeName == pod.Spec.NodeName {
		out, err = m.writer.AnnotatePod(ctx, inner, dec.annotations)
	} else {
		out, err = m.writer.RecreatePod(ctx, inner, pod, dec.annotations)
	}
	if err != nil {
		return err
	}
	if dec.agreement != "" {
		m.status.countShadow(dec.agreement)
	}
	m.wrote(key, d, out)
	return nil
}

func shadowAnnotations(node, agreement string) map[string]string {
	return map[string]string{contract.AnnotationShadowNode: node, contract.AnnotationShadowAgreement: agreement}
}

// shadowPoll is how often a Pod is looked at while the simulator's
// scheduler decides it.
const shadowPoll = 100 * time.Millisecond

// errUndecided is a Pod the source bound that the simulator's scheduler
// has not decided yet: its change is looked at again after shadowPoll,
// and the worker goes on with others meanwhile (a source's scale-up of
// pending Pods held every worker up to ShadowWait).
var errUndecided = errors.New("the simulator's scheduler has not decided the pod yet")

// decision returns the Pod inside (nil if it is gone) once the simulator's
// scheduler decided it (bound it, or found it unschedulable) and published
// its result, or, past ShadowWait, as it is, with whether it was decided;
// before that errUndecided.
func (m *Mirror) decision(ctx context.Context, key objKey, pod *corev1.Pod) (*corev1.Pod, bool, error) {
	inner, err := m.innerPod(ctx, pod)
	if err != nil || inner == nil {
		return nil, false, err
	}
	if Decided(inner) && inner.Annotations[schedulingresult.SummaryAnnotation] != "" {
		return inner, true, nil
	}
	m.mu.Lock()
	since, waiting := m.undecidedSince[key]
	if !waiting {
		since = time.Now()
		m.undecidedSince[key] = since
	}
	m.mu.Unlock()
	if time.Since(since) < m.cfg.ShadowWait {
		return nil, false, errUndecided
	}
	// Past the wait, a decision without its result published counts.
	return inner, Decided(inner), nil
}

// innerPod reads the copy of pod inside; nil if there is none.
func (m *Mirror) innerPod(ctx context.Context, pod *corev1.Pod) (*corev1.Pod, error) {
	inner, err := m.cfg.Inner.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return inner, nil
}

// Decided says whether the simulator's scheduler decided a Pod: bound it,
// or found no node for it.
func Decided(p *corev1.Pod) bool {
	if p.Spec.NodeName != "" {
		return true
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

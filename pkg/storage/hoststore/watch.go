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

package hoststore

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"
	"k8s.io/utils/ptr"
)

// outgoingBuffer is how many events a watcher holds for a slow reader, as
// etcd3's watchers do.
const outgoingBuffer = 100

// Watch follows the host's watch of the records in the key's scope. Label
// selection is done by the host (records carry the object's labels), so an
// object whose labels start or stop matching arrives as ADDED or DELETED, as
// from etcd. A ConfigMap watch has no previous object, so for a field
// selector (or a label selector the host cannot apply) the watcher keeps the
// objects that match and computes those transitions itself. Initial events
// (resourceVersion unset or 0, or sendInitialEvents=true) come in key order,
// as etcd's: the host's are collected up to its initial-events-end bookmark
// and sorted.
func (s *store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	sc, err := keyFor(s.prefix, key, s.namespaced, opts.Recursive)
	if err != nil {
		return nil, err
	}
	rv := opts.ResourceVersion
	initial := ptr.Deref(opts.SendInitialEvents, rv == "" || rv == "0")
	selector, pushed := hostSelector(s.resource, sc, opts.Predicate.Label)
	w := &watcher{
		store:           s,
		pred:            opts.Predicate,
		result:          make(chan watch.Event, outgoingBuffer),
		initial:         initial,
		sendEndBookmark: ptr.Deref(opts.SendInitialEvents, false) && opts.Predicate.AllowWatchBookmarks,
	}
	if !pushed || (opts.Predicate.Field != nil && !opts.Predicate.Field.Empty()) {
		w.matching = map[string]runtime.Object{}
	}
	// Every host watch asks for bookmarks: the initial-events-end one ends
	// the initial events; the others go on only if the caller asked.
	hostOpts := metav1.ListOptions{LabelSelector: selector, ResourceVersion: rv, AllowWatchBookmarks: true}
	switch {
	case initial:
		hostOpts.SendInitialEvents = ptr.To(true)
		hostOpts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	case w.matching != nil:
		// Start from a list, so the watcher knows what matches at its start.
		if hostOpts.ResourceVersion, err = w.seed(ctx, key, opts); err != nil {
			return nil, err
		}
	case rv == "" || rv == "0":
		// From now, without initial events.
		hostOpts.SendInitialEvents = ptr.To(false)
		hostOpts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	}
	if deadline, ok := ctx.Deadline(); ok {
		// The host then sends a bookmark before the watch times out, as
		// kube's watch cache does, so the watcher resumes from a fresh
		// revision.
		hostOpts.TimeoutSeconds = ptr.To(int64(math.Ceil(time.Until(deadline).Seconds())))
	}
	ctx, cancel := context.WithCancel(ctx)
	w.cancel = cancel
	go func() {
		select {
		case <-s.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	hw, err := s.client.Watch(ctx, hostOpts)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			// The caller gave up: an empty, closed watch, as etcd3's.
			close(w.result)
			return w, nil
		}
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) || apierrors.IsBadRequest(err) || apierrors.IsTimeout(err) {
			return nil, err
		}
		return nil, hostError("watching", stringer(s.resource), err)
	}
	w.host = hw
	// The watch is set up: its API Priority and Fairness seat goes back, as
	// etcd3's watches give it back, instead of being held for its life.
	utilflowcontrol.WatchInitialized(ctx)
	go w.run(ctx)
	return w, nil
}

type watcher struct {
	store  *store
	host   watch.Interface
	pred   storage.SelectionPredicate
	result chan watch.Event
	cancel context.CancelFunc
	// initial says the host is sending initial events, until its
	// initial-events-end bookmark.
	initial bool
	// sendEndBookmark says the caller wants that bookmark.
	sendEndBookmark bool
	// matching holds, by key, the objects that match the predicate now,
	// when the watcher computes transitions itself; nil when the host does.
	matching map[string]runtime.Object
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

func (w *watcher) Stop() { w.cancel() }

// seed lists what matches at the watch's start into w.matching and returns
// the revision to watch from.
func (w *watcher) seed(ctx context.Context, key string, opts storage.ListOptions) (string, error) {
	listOpts := storage.ListOptions{
		ResourceVersion: opts.ResourceVersion,
		Predicate:       storage.SelectionPredicate{Label: w.pred.Label, Field: w.pred.Field, GetAttrs: w.pred.GetAttrs},
		Recursive:       opts.Recursive,
	}
	switch opts.ResourceVersion {
	case "", "0":
		listOpts.ResourceVersion = ""
	default:
		listOpts.ResourceVersionMatch = metav1.ResourceVersionMatchExact
	}
	list := w.store.newList()
	if err := w.store.GetList(ctx, key, listOpts, list); err != nil {
		return "", err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", err
	}
	for _, obj := range items {
		m, err := meta.Accessor(obj)
		if err != nil {
			return "", err
		}
		w.matching[objectRef{namespace: m.GetNamespace(), name: m.GetName()}.key(w.store.prefix)] = obj
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return "", err
	}
	return lm.GetResourceVersion(), nil
}

// keyedEvent is an event with the key of its object, for ordering.
type keyedEvent struct {
	key string
	ev  watch.Event
}

func (w *watcher) run(ctx context.Context) {
	defer close(w.result)
	defer w.host.Stop()
	var initial []keyedEvent
	for {
		var ev watch.Event
		select {
		case <-ctx.Done():
			return
		case e, ok := <-w.host.ResultChan():
			if !ok {
				return
			}
			ev = e
		}
		if w.initial && ev.Type == watch.Bookmark && isInitialEventsEnd(ev.Object) {
			w.initial = false
			slices.SortFunc(initial, func(a, b keyedEvent) int { return strings.Compare(a.key, b.key) })
			for _, ke := range initial {
				if !w.send(ctx, ke.ev) {
					return
				}
			}
			initial = nil
			if w.sendEndBookmark && !w.send(ctx, w.bookmark(ev.Object, true)) {
				return
			}
			continue
		}
		out, key, emit, stop := w.convert(ctx, ev)
		if emit && w.initial && out.Type == watch.Added {
			initial = append(initial, keyedEvent{key: key, ev: out})
			continue
		}
		if w.initial && out.Type == watch.Bookmark {
			// No progress to report before the initial events are out.
			continue
		}
		if emit && !w.send(ctx, out) {
			return
		}
		if stop {
			return
		}
	}
}

// send delivers ev unless the watch ends first. A stopped watch delivers
// nothing more: once Stop cancelled ctx, the host watch ends with an error of
// its own ("context canceled"), which is not news, and a select with both
// cases ready could still pick it.
func (w *watcher) send(ctx context.Context, ev watch.Event) bool {
	if ctx.Err() != nil {
		return false
	}
	select {
	case w.result <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// isInitialEventsEnd says whether a bookmark ends the initial events.
func isInitialEventsEnd(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}

// bookmark is a bookmark of our type at the host bookmark's revision.
func (w *watcher) bookmark(host runtime.Object, initialEnd bool) watch.Event {
	obj := w.store.newFunc()
	om, _ := meta.Accessor(obj)
	if m, err := meta.Accessor(host); err == nil {
		om.SetResourceVersion(m.GetResourceVersion())
	}
	if initialEnd {
		om.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}
}

// convert turns a host event about a record into an event about the object:
// emit says whether there is one, stop says the watch ends after it.
func (w *watcher) convert(ctx context.Context, ev watch.Event) (out watch.Event, key string, emit, stop bool) {
	switch ev.Type {
	case watch.Error:
		// 410 Gone and friends: the client relists, as with etcd.
		return ev, "", true, true
	case watch.Bookmark:
		return w.bookmark(ev.Object, false), "", w.pred.AllowWatchBookmarks, false
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		return errorEvent(apierrors.NewInternalError(fmt.Errorf("unexpected host watch event %q", ev.Type))), "", true, true
	}
	cm, ok := ev.Object.(*corev1.ConfigMap)
	if !ok || !isRecord(cm, w.store.resource) {
		return watch.Event{}, "", false, false
	}
	key = objectKey(w.store.prefix, cm)
	obj, _, err := w.store.decode(ctx, cm)
	if err != nil {
		w.store.keeper.damaged(labelledRef(cm), cm)
		// A watcher must not miss a change: it gets an error, and relists.
		if ev.Type == watch.Deleted {
			return errorEvent(&apierrors.StatusError{ErrStatus: metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonStoreReadError,
				Message: fmt.Sprintf("saw a DELETED event, but object data is corrupt - %v", err),
			}}), key, true, true
		}
		return errorEvent(apierrors.NewInternalError(err)), key, true, true
	}
	if ev.Type == watch.Deleted && deletedBehindBack(obj) {
		gone, err := w.store.confirmGone(ctx, cm, obj, w.pred)
		if err != nil {
			// Not known: the client relists.
			return errorEvent(apierrors.NewInternalError(err)), key, true, true
		}
		if !gone {
			return watch.Event{}, key, false, false
		}
	}
	matches, err := w.pred.Matches(obj)
	if err != nil {
		return errorEvent(apierrors.NewInternalError(err)), key, true, true
	}
	if w.matching == nil {
		return watch.Event{Type: ev.Type, Object: obj}, key, matches, false
	}
	prev, had := w.matching[key]
	switch {
	case ev.Type == watch.Deleted:
		delete(w.matching, key)
		return watch.Event{Type: watch.Deleted, Object: obj}, key, had, false
	case matches:
		w.matching[key] = obj
		if had {
			return watch.Event{Type: watch.Modified, Object: obj}, key, true, false
		}
		return watch.Event{Type: watch.Added, Object: obj}, key, true, false
	case had:
		// It stopped matching: deleted, as its last matching state at the
		// new revision, as etcd3 says it.
		delete(w.matching, key)
		gone := prev.DeepCopyObject()
		if err := w.store.versioner.UpdateObject(gone, mustParseRV(cm.ResourceVersion)); err != nil {
			return errorEvent(apierrors.NewInternalError(err)), key, true, true
		}
		return watch.Event{Type: watch.Deleted, Object: gone}, key, true, false
	}
	return watch.Event{}, key, false, false
}

func errorEvent(err *apierrors.StatusError) watch.Event {
	status := err.Status()
	return watch.Event{Type: watch.Error, Object: &status}
}

package hoststore

import (
	"context"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/klog/v2"
)

// Watch follows the host's watch of the records in the key's scope. Label
// selection is done by the host (records carry the object's labels), so an
// object whose labels start or stop matching arrives as ADDED or DELETED, as
// from etcd. Field selectors are applied here; every selectable field of our
// resources is immutable, so they need no such transitions.
func (s *store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	sc, err := keyFor(s.prefix, key, s.namespaced, opts.Recursive)
	if err != nil {
		return nil, storage.NewInternalError(err)
	}
	selector, _ := hostSelector(s.resource, sc, opts.Predicate.Label)
	hostOpts := metav1.ListOptions{
		LabelSelector:        selector,
		ResourceVersion:      opts.ResourceVersion,
		ResourceVersionMatch: opts.ResourceVersionMatch,
		AllowWatchBookmarks:  opts.Predicate.AllowWatchBookmarks,
		SendInitialEvents:    opts.SendInitialEvents,
	}
	// The generic layer validated the request and does not hand the match
	// down for watches; the host needs it with sendInitialEvents.
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		hostOpts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	}
	ctx, cancel := context.WithCancel(ctx)
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
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) || apierrors.IsBadRequest(err) {
			return nil, err
		}
		return nil, hostError("watching", stringer(s.resource), err)
	}
	w := &watcher{store: s, host: hw, pred: opts.Predicate, result: make(chan watch.Event), cancel: cancel}
	go w.run(ctx)
	return w, nil
}

type watcher struct {
	store  *store
	host   watch.Interface
	pred   storage.SelectionPredicate
	result chan watch.Event
	cancel context.CancelFunc
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

func (w *watcher) Stop() { w.cancel() }

func (w *watcher) run(ctx context.Context) {
	defer close(w.result)
	defer w.host.Stop()
	logger := klog.FromContext(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.host.ResultChan():
			if !ok {
				return
			}
			out, ok := w.convert(logger, ev)
			if !ok {
				continue
			}
			select {
			case w.result <- out:
			case <-ctx.Done():
				return
			}
		}
	}
}

// convert turns a host event about a record into an event about the object.
func (w *watcher) convert(logger klog.Logger, ev watch.Event) (watch.Event, bool) {
	switch ev.Type {
	case watch.Error:
		// 410 Gone and friends: the client relists, as with etcd.
		return ev, true
	case watch.Bookmark:
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			return watch.Event{}, false
		}
		obj := w.store.newFunc()
		om, _ := meta.Accessor(obj)
		om.SetResourceVersion(m.GetResourceVersion())
		if v, ok := m.GetAnnotations()[metav1.InitialEventsAnnotationKey]; ok {
			om.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: v})
		}
		return watch.Event{Type: watch.Bookmark, Object: obj}, true
	case watch.Added, watch.Modified, watch.Deleted:
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if !ok || !isRecord(cm, w.store.resource) {
			return watch.Event{}, false
		}
		obj := w.store.newFunc()
		if err := w.store.decode(cm, obj); err != nil {
			logger.Error(err, "Skipping a watch event of a record that cannot be decoded", "resource", w.store.resource, "record", cm.Name)
			return watch.Event{}, false
		}
		if ok, err := w.pred.Matches(obj); err != nil || !ok {
			return watch.Event{}, false
		}
		return watch.Event{Type: ev.Type, Object: obj}, true
	}
	return watch.Event{Type: watch.Error, Object: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Message: fmt.Sprintf("unexpected host watch event %q", ev.Type),
	}}, true
}

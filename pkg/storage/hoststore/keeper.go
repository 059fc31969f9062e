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
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Eventer posts an Event about an object of resource (e.g.
// simulators.sim.x-k8s.io) namespace/name; uid is empty when unknown.
type Eventer func(resource, namespace, name string, uid types.UID, eventType, reason, message string)

// Reasons of the keeper's Events.
const (
	// ReasonRecordLost: the record was deleted behind the server's back;
	// it is back as a deleted object, so that its finalizer's cleanup runs.
	ReasonRecordLost = "RecordLost"
	// ReasonRecordRelabelled: the record's labels were edited; they are back.
	ReasonRecordRelabelled = "RecordRelabelled"
	// ReasonRecordDamaged: the record cannot be read; the object answers an
	// error, and its host objects are kept, until someone repairs it.
	ReasonRecordDamaged = "RecordDamaged"
)

// keeper puts back what is done to records behind the server's back: only
// the server writes them (records-policy.yaml), but a break-glass, a bug or
// an administrator may still delete, relabel or garble one. The host's
// garbage collector deletes an object's dependents (a simulator's Pod,
// credentials, NodePools) as soon as a GET of the owner answers NotFound,
// without the owner's finalizer: so a record must never vanish unnoticed.
//   - Relabelled: the store still finds it by its name (getRecord), and the
//     keeper writes its labels back, so lists and watches see it again.
//   - Deleted while its object was live and held a finalizer: the keeper
//     creates it again from the last state the cache saw, as a deleted
//     object (deletionTimestamp set, finalizers kept, same UID). It is
//     then deleted as if through the API: its finalizer's cleanup runs
//     (backing objects, an external etcd's keys, a pool's Nodes), with the
//     durability of any record, and the name answers GET and CREATE alike
//     (the object, Terminating; AlreadyExists) until it is gone. Bringing
//     it back alive would undo an administrator's deletion; letting it go
//     would skip the cleanup.
//   - Damaged (cannot be decoded): left as it is, since the last good data
//     may be older than what the server wrote; a GET says what is wrong
//     and how to fix it, and the owner answering an error (not NotFound)
//     keeps the garbage collector from its dependents.
//
// Every replica runs one: writes are conditional (create, or update at a
// resourceVersion), so one replica acts and posts the Event.
type keeper struct {
	client    configMaps
	namespace string
	queue     workqueue.TypedRateLimitingInterface[objectRef]

	mu     sync.Mutex
	stores map[string]*store
	// last holds, by record name, the last state the cache saw of a record
	// that went or whose labels changed, until the keeper looked at it.
	last map[string]*corev1.ConfigMap
	// reported holds, by record name, the resourceVersion of a damaged
	// record last reported, so that each damage is told once.
	reported map[string]string
	eventer  Eventer
}

func newKeeper(client configMaps, namespace string) *keeper {
	return &keeper{
		client:    client,
		namespace: namespace,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[objectRef](),
			workqueue.TypedRateLimitingQueueConfig[objectRef]{Name: "records-keeper"}),
		stores:   map[string]*store{},
		last:     map[string]*corev1.ConfigMap{},
		reported: map[string]string{},
	}
}

func (k *keeper) addStore(s *store) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stores[s.resource] = s
}

func (k *keeper) setEventer(e Eventer) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.eventer = e
}

// handler follows the records' cache: a record that goes, or whose own
// labels change, is looked at.
func (k *keeper) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj interface{}) {
			prev, ok1 := oldObj.(*corev1.ConfigMap)
			cur, ok2 := newObj.(*corev1.ConfigMap)
			// Only the record's own labels matter: its object's labels
			// change with every write of them.
			if ok1 && ok2 && labelledRef(prev) != labelledRef(cur) {
				k.remember(prev)
			}
		},
		DeleteFunc: func(obj interface{}) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if cm, ok := obj.(*corev1.ConfigMap); ok {
				k.remember(cm)
			}
		},
	}
}

// remember queues a record with its last state; a ConfigMap not named for
// what its labels say was never a record of ours (planted), and is ignored.
func (k *keeper) remember(cm *corev1.ConfigMap) {
	ref := labelledRef(cm)
	if ref.resource == "" || cm.Name != ref.recordName() {
		return
	}
	k.mu.Lock()
	k.last[cm.Name] = cm
	k.mu.Unlock()
	k.queue.Add(ref)
}

// keeps says whether a record that left the cache, obj, held an object
// that went without the server (deletedBehindBack): the keeper repairs or
// restores it, so that it comes back.
func (k *keeper) keeps(ref objectRef, obj interface{}) bool {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if k == nil || !ok {
		return false
	}
	k.mu.Lock()
	s := k.stores[ref.resource]
	k.mu.Unlock()
	if s == nil {
		return false
	}
	held, _, err := s.decodeAs(context.Background(), cm, ref)
	return err == nil && deletedBehindBack(held)
}

// check queues the record of ref to be looked at.
func (k *keeper) check(ref objectRef) {
	if k != nil {
		k.queue.Add(ref)
	}
}

// damaged queues the record of ref, cm, which cannot be read, unless that
// damage was reported already. A ConfigMap not named for ref was never a
// record of ours (planted): no get finds it, nothing to tell.
func (k *keeper) damaged(ref objectRef, cm *corev1.ConfigMap) {
	if k == nil || ref.resource == "" || cm.Name != ref.recordName() {
		return
	}
	k.mu.Lock()
	told := k.reported[cm.Name] == cm.ResourceVersion
	k.mu.Unlock()
	if !told {
		k.queue.Add(ref)
	}
}

// run looks at queued records until ctx ends.
func (k *keeper) run(ctx context.Context) {
	go func() {
		<-ctx.Done()
		k.queue.ShutDown()
	}()
	for {
		ref, shutdown := k.queue.Get()
		if shutdown {
			return
		}
		func() {
			defer k.queue.Done(ref)
			if err := k.keep(ctx, ref); err != nil {
				klog.FromContext(ctx).Error(err, "Keeping a record", "record", klog.KRef(k.namespace, ref.recordName()), "object", ref.String())
				k.queue.AddRateLimited(ref)
				return
			}
			k.queue.Forget(ref)
		}()
	}
}

// keep looks at the record of ref as the host has it now.
func (k *keeper) keep(ctx context.Context, ref objectRef) error {
	name := ref.recordName()
	k.mu.Lock()
	s := k.stores[ref.resource]
	last := k.last[name]
	delete(k.last, name)
	k.mu.Unlock()
	if s == nil {
		return nil
	}
	cm, err := k.client.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if last == nil {
			return nil
		}
		_, err := k.restore(ctx, s, ref, last)
		return err
	case err != nil:
		return err
	}
	obj, _, err := s.decodeAs(ctx, cm, ref)
	if err != nil {
		k.reportDamage(ctx, s, ref, cm, last, err)
		return nil
	}
	k.mu.Lock()
	delete(k.reported, name)
	k.mu.Unlock()
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	want := recordLabels(ref, m)
	if maps.Equal(cm.Labels, want) {
		return nil
	}
	repaired := cm.DeepCopy()
	repaired.Labels = want
	// At the record's resourceVersion: a conflict is a newer write, looked at again.
	if _, err := k.client.Update(ctx, repaired, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile: its delete event brings it back
		}
		return fmt.Errorf("writing back the labels of record %s: %w", name, err)
	}
	klog.FromContext(ctx).Info("Put back the labels of a record edited outside sim-apiserver", "record", klog.KRef(k.namespace, name), "object", ref.String(), "labels", cm.Labels)
	k.event(ref, m.GetUID(), corev1.EventTypeWarning, ReasonRecordRelabelled,
		fmt.Sprintf("The labels of its record (ConfigMap %s/%s) were changed outside sim-apiserver; they are put back", k.namespace, name))
	return nil
}

// deletedBehindBack says whether a record whose last state held obj went
// without the server: genericregistry deletes a record only once its
// object is being deleted with its finalizers done, or when it has none. A
// host watch with a label selector also says DELETED, with that same last
// state, of a record whose labels were edited so that it left the
// selection.
func deletedBehindBack(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err == nil && m.GetDeletionTimestamp() == nil && len(m.GetFinalizers()) > 0
}

// restore creates again the record of ref, deleted outside the server, from
// its last state, as a deleted object, when that object was live and held
// a finalizer (deletedBehindBack); otherwise it went through the API and
// stays gone. back says the record is there again (restored now, or by
// another replica or watcher before).
func (k *keeper) restore(ctx context.Context, s *store, ref objectRef, last *corev1.ConfigMap) (back bool, err error) {
	logger := klog.FromContext(ctx)
	obj, _, err := s.decodeAs(ctx, last, ref)
	if err != nil {
		// Nothing to restore from: e.g. kube's unsafe deletion of a damaged record.
		logger.Info("A record that could not be read was deleted", "record", klog.KRef(k.namespace, last.Name), "object", ref.String())
		return false, nil
	}
	if !deletedBehindBack(obj) {
		return false, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false, err
	}
	now := metav1.NewTime(time.Now())
	zero := int64(0)
	m.SetDeletionTimestamp(&now)
	m.SetDeletionGracePeriodSeconds(&zero)
	cm, _, err := s.encode(ctx, ref.key(s.prefix), ref, obj)
	if err != nil {
		return false, err
	}
	_, err = k.client.Create(ctx, cm, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		// Another replica or watcher restored it.
		return true, nil
	case apierrors.IsForbidden(err):
		// The records' namespace is being deleted (an uninstall).
		logger.Info("Cannot restore a record deleted outside sim-apiserver", "record", klog.KRef(k.namespace, cm.Name), "object", ref.String(), "err", err)
		return false, nil
	case err != nil:
		return false, fmt.Errorf("restoring record %s: %w", cm.Name, err)
	}
	logger.Info("Restored a record deleted outside sim-apiserver as deleted, so that its finalizers run", "record", klog.KRef(k.namespace, cm.Name), "object", ref.String(), "uid", m.GetUID(), "finalizers", m.GetFinalizers())
	k.event(ref, m.GetUID(), corev1.EventTypeWarning, ReasonRecordLost,
		fmt.Sprintf("Its record (ConfigMap %s/%s) was deleted outside sim-apiserver: it is being deleted, and its finalizers %v clean up what it had before it goes", k.namespace, cm.Name, m.GetFinalizers()))
	return true, nil
}

// confirmGone says whether the object a record held, last, is really gone
// from a watch of pred, when the host said DELETED of a record that went
// behind the server's back or left the host's selection. A watcher told
// DELETED of an object that still exists would act on it: the host's
// garbage collector, for one, deletes the object's dependents at once,
// without its finalizer's cleanup. So the record is read again by its name:
//   - gone from the host: it is restored as deleted (its finalizers then
//     run), and its ADDED follows; not gone;
//   - there, holding the same object (its labels edited, repaired by the
//     keeper, or changed by its user): gone only if it no longer matches;
//   - there, holding another object of that name: gone.
func (s *store) confirmGone(ctx context.Context, lastCM *corev1.ConfigMap, last runtime.Object, pred storage.SelectionPredicate) (bool, error) {
	ref := labelledRef(lastCM)
	current, err := s.client.Get(ctx, lastCM.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if s.keeper == nil {
			return true, nil
		}
		back, err := s.keeper.restore(ctx, s, ref, lastCM)
		return !back, err
	}
	if err != nil {
		return false, fmt.Errorf("reading record %s of %s again: %w", lastCM.Name, ref, err)
	}
	obj, _, err := s.decodeAs(ctx, current, ref)
	if err != nil {
		s.keeper.damaged(ref, current)
		return false, err
	}
	was, err := meta.Accessor(last)
	if err != nil {
		return false, err
	}
	is, err := meta.Accessor(obj)
	if err != nil {
		return false, err
	}
	if is.GetUID() != was.GetUID() {
		return true, nil
	}
	if !labelsSay(current, ref) {
		s.keeper.check(ref)
	}
	matches, err := pred.Matches(obj)
	return !matches, err
}

// reportDamage tells, once per resourceVersion, that the record of ref
// cannot be read.
func (k *keeper) reportDamage(ctx context.Context, s *store, ref objectRef, cm, last *corev1.ConfigMap, err error) {
	k.mu.Lock()
	told := k.reported[cm.Name] == cm.ResourceVersion
	k.reported[cm.Name] = cm.ResourceVersion
	k.mu.Unlock()
	if told {
		return
	}
	klog.FromContext(ctx).Error(err, "A record cannot be read; its object and host objects are kept until it is repaired", "record", klog.KRef(k.namespace, cm.Name), "object", ref.String())
	var uid types.UID
	if last != nil {
		if obj, _, err := s.decodeAs(ctx, last, ref); err == nil {
			if m, err := meta.Accessor(obj); err == nil {
				uid = m.GetUID()
			}
		}
	}
	k.event(ref, uid, corev1.EventTypeWarning, ReasonRecordDamaged,
		fmt.Sprintf("Its record (ConfigMap %s/%s) cannot be read (%v): it answers an error and keeps its host objects until an administrator restores the record's data", k.namespace, cm.Name, err))
}

func (k *keeper) event(ref objectRef, uid types.UID, eventType, reason, message string) {
	k.mu.Lock()
	e := k.eventer
	k.mu.Unlock()
	if e != nil {
		e(ref.resource, ref.namespace, ref.name, uid, eventType, reason, message)
	}
}

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
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// TestRecordTampering: a record changed behind the server's back never
// leaves its object answering NotFound while its name is taken. Relabelled,
// it is still served and its labels are put back; deleted while its object
// was live with a finalizer, it comes back as deleted (same UID, the
// finalizer kept) so that the cleanup runs; damaged, a get names the record
// and the way out. Each is told once, with an Event on the object. Records
// that went through the API stay gone.
func TestRecordTampering(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	const ns = "sim-system"
	client := fake.NewClientset()
	// The fake keeps no resourceVersions in objects; records need them.
	var rv atomic.Int64
	rv.Store(100)
	client.PrependReactor("*", "configmaps", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if a, ok := action.(interface{ GetObject() runtime.Object }); ok && (action.GetVerb() == "create" || action.GetVerb() == "update") {
			if cm, ok := a.GetObject().(*corev1.ConfigMap); ok {
				cm.ResourceVersion = strconv.FormatInt(rv.Add(1), 10)
			}
		}
		return false, nil, nil
	})
	records := NewRecords(client, ns)
	type event struct{ Object, UID, Type, Reason string }
	var mu sync.Mutex
	var events []event
	records.SetEventer(func(resource, namespace, name string, uid types.UID, eventType, reason, _ string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, event{resource + " " + namespace + "/" + name, string(uid), eventType, reason})
	})
	scheme := runtime.NewScheme()
	install.Install(scheme)
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(v1alpha1.SchemeGroupVersion)
	const prefix = "/sim.x-k8s.io/simulators"
	s, _, err := records.Decorator(&storagebackend.ConfigForResource{
		Config:        storagebackend.Config{Codec: codec},
		GroupResource: sim.Resource("simulators"),
	}, prefix, nil, func() runtime.Object { return &sim.Simulator{} }, func() runtime.Object { return &sim.SimulatorList{} }, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	records.Start(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), records.HasSynced) {
		t.Fatal("the records' cache did not sync")
	}
	cms := client.CoreV1().ConfigMaps(ns)

	// create stores simulator a/name and returns its record's name.
	create := func(name string, mutate func(*sim.Simulator)) string {
		t.Helper()
		obj := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: name, UID: types.UID("uid-" + name),
			Labels: map[string]string{"team": "x"}, Finalizers: []string{sim.FinalizerCleanup}}}
		if mutate != nil {
			mutate(obj)
		}
		if err := s.Create(ctx, prefix+"/a/"+name, obj, &sim.Simulator{}, 0); err != nil {
			t.Fatal(err)
		}
		return objectRef{resource: "simulators.sim.x-k8s.io", namespace: "a", name: name}.recordName()
	}
	get := func(name string) (*sim.Simulator, error) {
		out := &sim.Simulator{}
		return out, s.Get(ctx, prefix+"/a/"+name, storage.GetOptions{}, out)
	}
	poll := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
	}
	eventsOf := func(name string) []event {
		mu.Lock()
		defer mu.Unlock()
		var out []event
		for _, e := range events {
			if e.Object == "simulators.sim.x-k8s.io a/"+name {
				out = append(out, e)
			}
		}
		return out
	}
	// settled returns once the keeper has looked at everything queued
	// before: its queue is worked in order, by one worker.
	// The marker's record loses its name label, which the keeper puts back.
	marker := create("marker", nil)
	settled := func() {
		t.Helper()
		cm, err := cms.Get(ctx, marker, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		delete(cm.Labels, LabelName)
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		poll("the keeper to put back the marker's labels", func() bool {
			cm, err := cms.Get(ctx, marker, metav1.GetOptions{})
			return err == nil && cm.Labels[LabelName] == "marker"
		})
	}

	t.Run("relabelled", func(t *testing.T) {
		name := create("relabelled", nil)
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := maps.Clone(cm.Labels)
		cm.Labels = map[string]string{"someone": "else"}
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		// Found by its name meanwhile: never NotFound while its name is taken.
		if got, err := get("relabelled"); err != nil || got.UID != "uid-relabelled" {
			t.Errorf("get of a relabelled record: %v, %v; want the object", got.UID, err)
		}
		if err := s.Create(ctx, prefix+"/a/relabelled", &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "relabelled"}}, nil, 0); !storage.IsExist(err) {
			t.Errorf("create over a relabelled record: %v, want a key-exists error", err)
		}
		poll("the labels to be put back", func() bool {
			cm, err := cms.Get(ctx, name, metav1.GetOptions{})
			return err == nil && maps.Equal(cm.Labels, want)
		})
		// The Event follows the write.
		poll("the relabelling to be told", func() bool { return len(eventsOf("relabelled")) > 0 })
		settled()
		if diff := cmp.Diff([]event{{"simulators.sim.x-k8s.io a/relabelled", "uid-relabelled", corev1.EventTypeWarning, ReasonRecordRelabelled}}, eventsOf("relabelled")); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})

	t.Run("its object's labels changed", func(t *testing.T) {
		// The store rewrites a record's labels with its object's: no
		// business of the keeper, which reads nothing for it.
		name := create("labels", nil)
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Labels["team"] = "y"
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		settled()
		reads := 0
		for _, a := range client.Actions() {
			if g, ok := a.(clienttesting.GetAction); ok && g.GetName() == name {
				reads++
			}
		}
		// The test's own Get above.
		if reads != 1 {
			t.Errorf("%d reads of record %s, want only the test's: the keeper looked at a change of its object's labels", reads, name)
		}
	})

	t.Run("deleted", func(t *testing.T) {
		name := create("deleted", nil)
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		var got *sim.Simulator
		poll("the record to be back", func() bool {
			got, err = get("deleted")
			return err == nil
		})
		if got.UID != "uid-deleted" || got.DeletionTimestamp == nil || !slices.Equal(got.Finalizers, []string{sim.FinalizerCleanup}) ||
			got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 0 {
			t.Errorf("restored as uid %s, deletionTimestamp %v, grace %v, finalizers %v; want the same UID, deleted at once, its finalizer kept",
				got.UID, got.DeletionTimestamp, got.DeletionGracePeriodSeconds, got.Finalizers)
		}
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil || cm.Labels["team"] != "x" || cm.Labels[LabelName] != "deleted" {
			t.Errorf("restored record %v: %v, want it labelled as before", cm.Labels, err)
		}
		// The Event follows the write: the record can be read back first.
		poll("the loss to be told", func() bool { return len(eventsOf("deleted")) > 0 })
		settled()
		if diff := cmp.Diff([]event{{"simulators.sim.x-k8s.io a/deleted", "uid-deleted", corev1.EventTypeWarning, ReasonRecordLost}}, eventsOf("deleted")); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})

	t.Run("gone through the API", func(t *testing.T) {
		// Deleted with its finalizers done (the store deletes the record
		// as it was, deletionTimestamp set), or never holding one.
		terminated := create("terminated", func(s *sim.Simulator) { now := metav1.Now(); s.DeletionTimestamp = &now })
		unfinalized := create("unfinalized", func(s *sim.Simulator) { s.Finalizers = nil })
		for _, name := range []string{terminated, unfinalized} {
			if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		settled()
		for _, name := range []string{"terminated", "unfinalized"} {
			if _, err := get(name); !storage.IsNotFound(err) {
				t.Errorf("get of %s after its record went: %v, want not found", name, err)
			}
			if e := eventsOf(name); len(e) != 0 {
				t.Errorf("events of %s: %v, want none", name, e)
			}
		}
	})

	// A watcher told DELETED of an object that is still there acts on it:
	// the host's garbage collector deletes its dependents at once. The host
	// says DELETED, with the record's last state, of a record relabelled out
	// of a watch's selection as of one deleted.
	t.Run("watchers", func(t *testing.T) {
		st := s.(*store)
		deletedEvent := func(pred storage.SelectionPredicate, last *corev1.ConfigMap) (watch.Event, bool) {
			t.Helper()
			w := &watcher{store: st, pred: pred}
			out, _, emit, stop := w.convert(ctx, watch.Event{Type: watch.Deleted, Object: last})
			if stop {
				t.Fatalf("the watch ended: %v", out.Object)
			}
			return out, emit
		}
		everything := storage.Everything
		recordOf := func(name string) *corev1.ConfigMap {
			t.Helper()
			cm, err := cms.Get(ctx, objectRef{resource: "simulators.sim.x-k8s.io", namespace: "a", name: name}.recordName(), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return cm
		}

		create("watched-relabelled", nil)
		last := recordOf("watched-relabelled")
		relabelled := last.DeepCopy()
		relabelled.Labels = map[string]string{"someone": "else"}
		if _, err := cms.Update(ctx, relabelled, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if out, emit := deletedEvent(everything, last); emit {
			t.Errorf("relabelled record: the watcher says %s, want nothing", out.Type)
		}

		create("watched-deleted", nil)
		last = recordOf("watched-deleted")
		if err := cms.Delete(ctx, last.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if out, emit := deletedEvent(everything, last); emit {
			t.Errorf("record deleted behind the server's back: the watcher says %s, want nothing", out.Type)
		}
		// Restored before the watcher went on: its ADDED (as deleted) follows.
		if got, err := get("watched-deleted"); err != nil || got.UID != "uid-watched-deleted" || got.DeletionTimestamp == nil {
			t.Errorf("after the watcher's DELETED: %v; want the object back as deleted", err)
		}

		// What a user changed, and what went through the API, is told.
		create("watched-selected", nil)
		last = recordOf("watched-selected")
		if err := s.GuaranteedUpdate(ctx, prefix+"/a/watched-selected", &sim.Simulator{}, false, nil, func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, *uint64, error) {
			in.(*sim.Simulator).Labels = map[string]string{"team": "y"}
			return in, nil, nil
		}, nil); err != nil {
			t.Fatal(err)
		}
		teamX := storage.SelectionPredicate{Label: labels.SelectorFromSet(labels.Set{"team": "x"}), Field: fields.Everything(), GetAttrs: storage.DefaultNamespaceScopedAttr}
		if out, emit := deletedEvent(teamX, last); !emit || out.Type != watch.Deleted {
			t.Errorf("an object whose labels left the selection: emit %v %s, want DELETED", emit, out.Type)
		}
		if out, emit := deletedEvent(everything, last); emit {
			t.Errorf("an object still selected: the watcher says %s, want nothing", out.Type)
		}
		terminated := create("watched-terminated", func(s *sim.Simulator) { now := metav1.Now(); s.DeletionTimestamp = &now })
		last = recordOf("watched-terminated")
		if err := cms.Delete(ctx, terminated, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if out, emit := deletedEvent(everything, last); !emit || out.Type != watch.Deleted {
			t.Errorf("an object deleted through the API: emit %v %s, want DELETED", emit, out.Type)
		}
		// The name holds another object (another UID): the one watched went.
		create("watched-replaced", nil)
		ref := objectRef{resource: "simulators.sim.x-k8s.io", namespace: "a", name: "watched-replaced"}
		older := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "watched-replaced", UID: "uid-older", Finalizers: []string{sim.FinalizerCleanup}}}
		last, _, err := st.encode(ctx, prefix+"/a/watched-replaced", ref, older)
		if err != nil {
			t.Fatal(err)
		}
		last.ResourceVersion = "1"
		if out, emit := deletedEvent(everything, last); !emit || out.Type != watch.Deleted {
			t.Errorf("an object whose name holds another now: emit %v %s, want DELETED", emit, out.Type)
		}
	})

	t.Run("lists", func(t *testing.T) {
		st := s.(*store)
		// A list that left out a damaged record would tell informers its
		// object was deleted: it fails instead, naming the record.
		name := create("listed-damaged", nil)
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data[dataKey] = "{"
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		err = s.GetList(ctx, prefix+"/a", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, &sim.SimulatorList{})
		if !storage.IsCorruptObject(err) || !strings.Contains(err.Error(), name) {
			t.Errorf("list with a damaged record: %v; want a corrupt-object error naming it", err)
		}
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// A ConfigMap labelled as a record but not named for it, or
		// named and labelled for one object but holding another, was
		// never that object's record (planted): skipped.
		planted := cm.DeepCopy()
		planted.Name, planted.ResourceVersion, planted.UID = "rec-planted", "", ""
		if _, err := cms.Create(ctx, planted, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		ref := objectRef{resource: "simulators.sim.x-k8s.io", namespace: "a", name: "listed-other"}
		other, _, err := st.encode(ctx, prefix+"/b/other", objectRef{resource: ref.resource, namespace: "b", name: "other"},
			&sim.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "other", UID: "uid-other"}})
		if err != nil {
			t.Fatal(err)
		}
		other.Name, other.Labels = ref.recordName(), recordLabels(ref, &metav1.ObjectMeta{})
		if _, err := cms.Create(ctx, other, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		list := &sim.SimulatorList{}
		if err := s.GetList(ctx, prefix+"/a", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
			t.Errorf("list with planted ConfigMaps: %v, want them skipped", err)
		}
		for _, item := range list.Items {
			if item.Name == "other" || item.Name == "listed-other" {
				t.Errorf("a planted ConfigMap is listed as %s/%s", item.Namespace, item.Name)
			}
		}
		for _, name := range []string{planted.Name, other.Name} {
			if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("damaged", func(t *testing.T) {
		name := create("damaged", nil)
		cm, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data[dataKey] = "{"
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			_, err := get("damaged")
			if !storage.IsCorruptObject(err) || !strings.Contains(err.Error(), "cannot be decoded") ||
				!strings.Contains(err.Error(), "ConfigMap sim-system/"+name) || !strings.Contains(err.Error(), "sim-apiserver-records") {
				t.Errorf("get of a damaged record: %v; want a corrupt-object error naming the record and the break-glass", err)
			}
		}
		if err := s.Create(ctx, prefix+"/a/damaged", &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "damaged"}}, nil, 0); !storage.IsExist(err) {
			t.Errorf("create over a damaged record: %v, want a key-exists error", err)
		}
		poll("the damage to be told", func() bool { return len(eventsOf("damaged")) > 0 })
		settled()
		if diff := cmp.Diff([]event{{"simulators.sim.x-k8s.io a/damaged", "", corev1.EventTypeWarning, ReasonRecordDamaged}}, eventsOf("damaged")); diff != "" {
			t.Errorf("events, told once (-want +got):\n%s", diff)
		}
		// Left as it is: the keeper does not guess the data back.
		if cm, err := cms.Get(ctx, name, metav1.GetOptions{}); err != nil || cm.Data[dataKey] != "{" {
			t.Errorf("damaged record after the keeper: %v %v", cm.Data, err)
		}
		// Kube's unsafe deletion removes it for good.
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		settled()
		if _, err := cms.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("a damaged record deleted: %v, want it gone", err)
		}
	})
}

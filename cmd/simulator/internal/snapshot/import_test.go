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

package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// document is a scenario as another cluster exports it: identities,
// finalizers, owners, a deletion under way, a finished Pod, another
// scheduler's results.
func document(t *testing.T, schedulerConfig string) string {
	t.Helper()
	gone := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	rs := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "rs-uid", Controller: new(true)}
	pod := func(name, node string, phase corev1.PodPhase) corev1.Pod {
		return corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, UID: types.UID("uid-" + name), ResourceVersion: "9",
				Labels: map[string]string{"app": "web"}, Finalizers: []string{"example.com/hold"}, OwnerReferences: []metav1.OwnerReference{rs},
				Annotations: map[string]string{schedulingresult.SummaryAnnotation: "{}", "team": "a"}},
			Spec:   corev1.PodSpec{NodeName: node, PriorityClassName: "high"},
			Status: corev1.PodStatus{Phase: phase},
		}
	}
	deleting := pod("deleting", "n1", corev1.PodRunning)
	deleting.DeletionTimestamp = &gone
	doc := map[string]any{
		"namespaces": []corev1.Namespace{
			{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
			{ObjectMeta: metav1.ObjectMeta{Name: "team", UID: "ns-uid", Finalizers: []string{"example.com/ns"}},
				Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}},
		},
		"priorityClasses": []schedulingv1.PriorityClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: 2000001000},
			{ObjectMeta: metav1.ObjectMeta{Name: "high", UID: "pc-uid"}, Value: 1000},
		},
		"nodes": []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "node-uid", ResourceVersion: "7"},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}}}},
		"podDisruptionBudgets": []policyv1.PodDisruptionBudget{{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"},
			Status: policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 3}}},
		"pods":        []corev1.Pod{pod("bound", "n1", corev1.PodRunning), pod("pending", "", corev1.PodPending), pod("done", "n1", corev1.PodSucceeded), deleting},
		"replicaSets": []appsv1.ReplicaSet{{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web-1", UID: "rs-uid"}}},
		"unknown":     []string{"ignored"},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if schedulerConfig != "" {
		// As kube-scheduler-simulator writes it: the configuration first.
		return `{"schedulerConfig":` + schedulerConfig + "," + string(data[1:])
	}
	return string(data)
}

// wantCounts are what importing document into an empty cluster does.
var wantCounts = map[string]contract.ImportCounts{
	"namespaces":           {Total: 2, Created: 1, Skipped: 1},
	"priorityclasses":      {Total: 2, Created: 1, Skipped: 1},
	"nodes":                {Total: 1, Created: 1},
	"poddisruptionbudgets": {Total: 1, Created: 1},
	"pods":                 {Total: 4, Created: 2, Skipped: 2},
	"replicasets":          {Total: 1, Created: 1},
}

// existing is wantCounts once everything exists.
func existing() map[string]contract.ImportCounts {
	out := map[string]contract.ImportCounts{}
	for r, c := range wantCounts {
		out[r] = contract.ImportCounts{Total: c.Total, Existing: c.Created, Skipped: c.Skipped}
	}
	return out
}

func newImporter(t *testing.T, dir string, c *fake.Clientset) *Importer {
	t.Helper()
	im, err := New(Config{Client: c, Dir: dir, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// run runs im until the test ends.
func run(t *testing.T, im *Importer) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { im.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// waitDone waits for the import to end and returns its status.
func waitDone(t *testing.T, im *Importer) contract.ImportStatus {
	t.Helper()
	var st contract.ImportStatus
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		st = im.Status()
		return st.Phase != contract.ImportImporting, nil
	})
	if err != nil {
		t.Fatalf("the import did not end: %+v", st)
	}
	return st
}

// writes are the writes a fake cluster saw.
func writes(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

// TestImport: the import is accepted at once and runs in the background,
// one at a time; what it writes is the mirror's copy; done again it
// changes nothing; a refusal fails it, with the cluster's words.
func TestImport(t *testing.T) {
	c := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	dir := t.TempDir()
	var applied []string
	im, err := New(Config{Client: c, Dir: dir, Workers: 4, SchedulerConfig: func(_ context.Context, data []byte) error {
		applied = append(applied, string(data))
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	doc := document(t, `{"kind":"KubeSchedulerConfiguration"}`)

	st, err := im.Start(t.Context(), strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != contract.ImportImporting || st.StartTime == nil || st.Resources["pods"].Total != 4 {
		t.Errorf("accepted: %+v, want Importing since now, with the document's totals", st)
	}
	// Not run yet: a second import waits for none, it is refused.
	if _, err := im.Start(t.Context(), strings.NewReader(doc)); !errors.Is(err, ErrBusy) {
		t.Errorf("a second import while one runs: %v, want ErrBusy", err)
	}
	run(t, im)
	st = waitDone(t, im)
	if st.Phase != contract.ImportSucceeded || st.CompletionTime == nil || st.LastError != "" {
		t.Errorf("after: %+v, want Succeeded", st)
	}
	if d := cmp.Diff(wantCounts, st.Resources); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`{"kind":"KubeSchedulerConfiguration"}`}, applied); d != "" {
		t.Errorf("scheduler configurations applied (-want +got):\n%s", d)
	}

	// What was written is the mirror's copy.
	ctx := t.Context()
	p, err := c.CoreV1().Pods("team").Get(ctx, "bound", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.ManagedFields = nil
	wantMeta := metav1.ObjectMeta{Namespace: "team", Name: "bound", Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"team": "a"}}
	if d := cmp.Diff(wantMeta, p.ObjectMeta); d != "" {
		t.Errorf("imported pod's metadata (-want +got):\n%s", d)
	}
	if p.Spec.NodeName != "n1" || p.Status.Phase != "" {
		t.Errorf("imported pod on %q in phase %q, want bound to n1 without status", p.Spec.NodeName, p.Status.Phase)
	}
	for _, name := range []string{"done", "deleting"} {
		if _, err := c.CoreV1().Pods("team").Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("pod %s: %v, want it skipped", name, err)
		}
	}
	ns, err := c.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ns.UID != "" || len(ns.Finalizers) != 0 {
		t.Errorf("imported namespace keeps uid %q, finalizers %v", ns.UID, ns.Finalizers)
	}
	n, err := c.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Status.Allocatable.Cpu().String() != "8" || n.Annotations["kwok.x-k8s.io/node"] != "fake" {
		t.Errorf("imported node: allocatable %v, annotations %v; want the source's status, as a kwok node", n.Status.Allocatable, n.Annotations)
	}

	// Again: everything exists, nothing is written but the attempts.
	before := len(c.Actions())
	if _, err := im.Start(ctx, strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	st = waitDone(t, im)
	if st.Phase != contract.ImportSucceeded {
		t.Errorf("imported again: %+v, want Succeeded", st)
	}
	if d := cmp.Diff(existing(), st.Resources); d != "" {
		t.Errorf("counts imported again (-want +got):\n%s", d)
	}
	for _, a := range c.Actions()[before:] {
		if a.GetVerb() != "create" {
			t.Errorf("imported again: %s %s, want only creates that find the object there", a.GetVerb(), a.GetResource().Resource)
		}
	}

	// A refusal fails the import, in the cluster's words; the rest is
	// written.
	c2 := fake.NewClientset()
	c2.PrependReactor("create", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("pods"), "x", errors.New("exceeded quota"))
	})
	im2 := newImporter(t, t.TempDir(), c2)
	run(t, im2)
	if _, err := im2.Start(ctx, strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	st = waitDone(t, im2)
	if st.Phase != contract.ImportFailed || !strings.Contains(st.LastError, "2 objects were refused") || !strings.Contains(st.LastError, "exceeded quota") || !strings.Contains(st.LastError, "?resume=true") {
		t.Errorf("refused: %+v, want Failed saying why", st)
	}
	if got := st.Resources["pods"]; got.Failed != 2 || got.Created != 0 {
		t.Errorf("pods refused: %+v, want 2 failed", got)
	}
	if got := st.Resources["nodes"]; got.Created != 1 {
		t.Errorf("nodes despite refused pods: %+v, want 1 created", got)
	}
}

// TestImportRefused: a document that cannot be read is refused at once
// and leaves the last import's status as it was; nothing stored cannot be
// resumed.
func TestImportRefused(t *testing.T) {
	c := fake.NewClientset()
	im := newImporter(t, t.TempDir(), c)
	if _, err := im.Start(t.Context(), nil); !errors.Is(err, ErrNothingToResume) {
		t.Errorf("resume with nothing stored: %v, want ErrNothingToResume", err)
	}
	for _, doc := range []string{`[]`, `{"pods":{}}`, `{"pods":[{"metadata":{"name":1}}]}`, `{"nodes":[`} {
		_, err := im.Start(t.Context(), strings.NewReader(doc))
		var invalid *InvalidError
		if !errors.As(err, &invalid) {
			t.Errorf("document %s: %v, want an InvalidError", doc, err)
		}
	}
	if st := im.Status(); st.Phase != "" {
		t.Errorf("status after refusals: %+v, want none", st)
	}
	// Not left busy by the refusals.
	if _, err := im.Start(t.Context(), strings.NewReader(`{"pods":null}`)); err != nil {
		t.Errorf("a document after refusals: %v", err)
	}
	if w := writes(c); len(w) != 0 {
		t.Errorf("writes: %v, want none", w)
	}
}

// TestImportResume: an import a restart cut short shows as Failed; resumed
// from the stored document, it creates what is missing and counts what the
// first run made as existing.
func TestImportResume(t *testing.T) {
	dir := t.TempDir()
	doc := document(t, "")
	// The first run: accepted, then the simulator stops before it ends,
	// having written the namespace and the node.
	first := newImporter(t, dir, fake.NewClientset())
	if _, err := first.Start(t.Context(), strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}

	c := fake.NewClientset(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
	)
	im := newImporter(t, dir, c)
	st := im.Status()
	if st.Phase != contract.ImportFailed || !strings.Contains(st.LastError, "?resume=true") {
		t.Errorf("after a restart: %+v, want Failed, saying how to resume", st)
	}
	run(t, im)
	if _, err := im.Start(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	st = waitDone(t, im)
	want := map[string]contract.ImportCounts{}
	for r, c := range wantCounts {
		want[r] = c
	}
	want["namespaces"] = contract.ImportCounts{Total: 2, Existing: 1, Skipped: 1}
	want["nodes"] = contract.ImportCounts{Total: 1, Existing: 1}
	if st.Phase != contract.ImportSucceeded {
		t.Errorf("resumed: %+v, want Succeeded", st)
	}
	if d := cmp.Diff(want, st.Resources); d != "" {
		t.Errorf("resumed counts (-want +got):\n%s", d)
	}
	pods, err := c.CoreV1().Pods("team").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 {
		t.Errorf("%d pods after the resumed import, want 2", len(pods.Items))
	}

	// The same file posted again instead: the same, with nothing to create.
	if _, err := im.Start(t.Context(), strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	st = waitDone(t, im)
	if d := cmp.Diff(existing(), st.Resources); d != "" {
		t.Errorf("counts posted again (-want +got):\n%s", d)
	}
}

// TestImportHoldsControllers: every object is written while
// kube-controller-manager is held, which is released once the import
// ends; a hold refused fails the import before it writes.
func TestImportHoldsControllers(t *testing.T) {
	c := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	var mu sync.Mutex
	var held bool
	var holds, releases, unheldWrites, written int
	c.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if v := a.GetVerb(); v == "get" || v == "list" || v == "watch" {
			return false, nil, nil
		}
		mu.Lock()
		defer mu.Unlock()
		written++
		if !held {
			unheldWrites++
		}
		return false, nil, nil
	})
	hold := func(ctx context.Context) (context.Context, func(), error) {
		mu.Lock()
		defer mu.Unlock()
		held = true
		holds++
		return ctx, func() {
			mu.Lock()
			defer mu.Unlock()
			held = false
			releases++
		}, nil
	}
	im, err := New(Config{Client: c, Dir: t.TempDir(), Workers: 4, HoldControllers: hold})
	if err != nil {
		t.Fatal(err)
	}
	run(t, im)
	if _, err := im.Start(t.Context(), strings.NewReader(document(t, ""))); err != nil {
		t.Fatal(err)
	}
	if st := waitDone(t, im); st.Phase != contract.ImportSucceeded {
		t.Fatalf("import: %+v, want Succeeded", st)
	}
	mu.Lock()
	if written == 0 || unheldWrites != 0 || holds != 1 || releases != 1 || held {
		t.Errorf("%d writes, %d of them unheld; %d holds, %d releases, held at the end %v: want every write held, one hold released", written, unheldWrites, holds, releases, held)
	}
	mu.Unlock()

	refused := fake.NewClientset()
	im, err = New(Config{Client: refused, Dir: t.TempDir(), Workers: 4, HoldControllers: func(context.Context) (context.Context, func(), error) {
		return nil, nil, errors.New("no socket")
	}})
	if err != nil {
		t.Fatal(err)
	}
	run(t, im)
	if _, err := im.Start(t.Context(), strings.NewReader(document(t, ""))); err != nil {
		t.Fatal(err)
	}
	st := waitDone(t, im)
	if st.Phase != contract.ImportFailed || !strings.Contains(st.LastError, "no socket") || len(writes(refused)) != 0 {
		t.Errorf("a refused hold: %+v after %v, want Failed, naming it, before any write", st, writes(refused))
	}

	// The hold ends at the first write (the control plane's process
	// restarted): the import stops with the tier it was writing, saying why.
	lost := fake.NewClientset()
	heldCtx, lose := context.WithCancelCause(t.Context())
	lost.PrependReactor("create", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		lose(errors.New("the hold ended"))
		return false, nil, nil
	})
	im, err = New(Config{Client: lost, Dir: t.TempDir(), Workers: 4, HoldControllers: func(context.Context) (context.Context, func(), error) {
		return heldCtx, func() {}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	run(t, im)
	if _, err := im.Start(t.Context(), strings.NewReader(document(t, ""))); err != nil {
		t.Fatal(err)
	}
	st = waitDone(t, im)
	var workloads []string
	for _, w := range writes(lost) {
		if strings.Contains(w, "replicasets") {
			workloads = append(workloads, w)
		}
	}
	if st.Phase != contract.ImportFailed || !strings.Contains(st.LastError, "the hold ended") || len(workloads) != 0 {
		t.Errorf("a hold lost at the first write: %+v, workloads written %v; want Failed, naming it, and no later tier written", st, workloads)
	}
}

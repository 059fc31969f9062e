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

package limits

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

const ns = "team-a"

// fixture is a plugin over caches the test fills, as the informers would.
type fixture struct {
	t      *testing.T
	plugin *Plugin
	usage  *Usage
	sims   cache.Indexer
	pools  cache.Indexer
	quotas cache.Indexer
	rv     int
	now    time.Time
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	f := &fixture{t: t, now: time.Unix(1000, 0)}
	newIndexer := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	f.sims, f.pools = newIndexer(), newIndexer()
	f.usage = newUsage(f.sims, f.pools, func() bool { return true })
	f.usage.now = func() time.Time { return f.now }

	host := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	f.plugin = NewPlugin(opts)
	f.plugin.SetExternalKubeInformerFactory(host)
	f.quotas = host.Core().V1().ResourceQuotas().Informer().GetIndexer()
	f.plugin.synced = func() bool { return true }
	NewInitializer(f.usage).Initialize(f.plugin)
	if err := f.plugin.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	return f
}

// store puts obj in its cache at the next resourceVersion, as the watch
// brings a write.
func (f *fixture) store(obj runtime.Object) {
	f.t.Helper()
	f.rv++
	resource := "nodepools"
	indexer := f.pools
	switch o := obj.(type) {
	case *v1alpha1.NodePool:
		o.ResourceVersion = strconv.Itoa(f.rv)
	case *v1alpha1.Simulator:
		o.ResourceVersion = strconv.Itoa(f.rv)
		resource, indexer = "simulators", f.sims
	}
	if err := indexer.Add(obj); err != nil {
		f.t.Fatal(err)
	}
	f.usage.observed(resource, obj)
}

func (f *fixture) remove(obj runtime.Object) {
	f.t.Helper()
	indexer := f.pools
	if _, ok := obj.(*v1alpha1.Simulator); ok {
		indexer = f.sims
	}
	if err := indexer.Delete(obj); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) quota(name string, hard corev1.ResourceList, scopes ...corev1.ResourceQuotaScope) {
	f.t.Helper()
	q := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard, Scopes: scopes},
		Status:     corev1.ResourceQuotaStatus{Hard: hard},
	}
	if err := f.quotas.Add(q); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) admit(a admission.Attributes) error {
	return f.plugin.Validate(context.Background(), a, nil)
}

func pool(name string, replicas int32) *v1alpha1.NodePool {
	return &v1alpha1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: v1alpha1.NodePoolSpec{Replicas: ptr.To(replicas)}}
}

func internalPool(name, rv string, replicas int32) *sim.NodePool {
	return &sim.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: rv}, Spec: sim.NodePoolSpec{SimulatorName: "s", Replicas: ptr.To(replicas)}}
}

func createPool(name string, replicas int32, dryRun bool) admission.Attributes {
	np := internalPool(name, "", replicas)
	return admission.NewAttributesRecord(np, nil, sim.Kind("NodePool").WithVersion("v1alpha1"), ns, name,
		nodePools.WithVersion("v1alpha1"), "", admission.Create, &metav1.CreateOptions{}, dryRun, nil)
}

func updatePool(name, rv string, from, to int32) admission.Attributes {
	return admission.NewAttributesRecord(internalPool(name, rv, to), internalPool(name, rv, from), sim.Kind("NodePool").WithVersion("v1alpha1"), ns, name,
		nodePools.WithVersion("v1alpha1"), "", admission.Update, &metav1.UpdateOptions{}, false, nil)
}

func scalePool(name, rv string, from, to int32) admission.Attributes {
	scale := func(r int32) *autoscalingv1.Scale {
		return &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: rv}, Spec: autoscalingv1.ScaleSpec{Replicas: r}}
	}
	return admission.NewAttributesRecord(scale(to), scale(from), autoscalingv1.SchemeGroupVersion.WithKind("Scale"), ns, name,
		nodePools.WithVersion("v1alpha1"), "scale", admission.Update, &metav1.UpdateOptions{}, false, nil)
}

func createSimulator(name string) admission.Attributes {
	s := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	return admission.NewAttributesRecord(s, nil, sim.Kind("Simulator").WithVersion("v1alpha1"), ns, name,
		simulators.WithVersion("v1alpha1"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
}

// refused fails unless err is a 403 whose message holds every part.
func refused(t *testing.T, err error, parts ...string) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Fatalf("want a 403 Forbidden, got %v", err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("the refusal %q does not say %q", err, p)
		}
	}
}

func TestSimulatorsDefaultLimit(t *testing.T) {
	f := newFixture(t, Options{MaxSimulators: 2})
	for _, name := range []string{"a", "b"} {
		if err := f.admit(createSimulator(name)); err != nil {
			t.Fatalf("simulator %s: %v", name, err)
		}
		f.store(&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
	}
	refused(t, f.admit(createSimulator("c")), "limit of 2 simulators per namespace", "--max-simulators-per-namespace", "count/simulators.sim.x-k8s.io")

	// Another namespace has its own count.
	other := admission.NewAttributesRecord(&sim.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "team-b"}}, nil,
		sim.Kind("Simulator").WithVersion("v1alpha1"), "team-b", "c", simulators.WithVersion("v1alpha1"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	if err := f.plugin.Validate(context.Background(), other, nil); err != nil {
		t.Errorf("a simulator of another namespace: %v", err)
	}
}

func TestQuotaReplacesDefaultLimit(t *testing.T) {
	f := newFixture(t, Options{MaxSimulators: 1, MaxNodePools: 1})
	f.store(&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}})
	f.store(pool("a", 1))

	// A quota of other resources, or scoped (object counts match no
	// scope), does not count them: the default holds.
	f.quota("pods", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")})
	f.quota("scoped", corev1.ResourceList{"count/nodepools.sim.x-k8s.io": resource.MustParse("10")}, corev1.ResourceQuotaScopeBestEffort)
	refused(t, f.admit(createPool("b", 1, false)), "limit of 1 nodepools per namespace")
	refused(t, f.admit(createSimulator("b")), "limit of 1 simulators per namespace")

	// One that counts nodepools replaces their default; simulators' holds.
	f.quota("pools", corev1.ResourceList{"count/nodepools.sim.x-k8s.io": resource.MustParse("10")})
	if err := f.admit(createPool("b", 1, false)); err != nil {
		t.Errorf("a nodepool under a ResourceQuota of nodepools: %v", err)
	}
	refused(t, f.admit(createSimulator("b")), "limit of 1 simulators per namespace")
}

func TestNoLimit(t *testing.T) {
	f := newFixture(t, Options{})
	for i := range 5 {
		name := strconv.Itoa(i)
		if err := f.admit(createSimulator(name)); err != nil {
			t.Fatal(err)
		}
		if err := f.admit(createPool(name, 10000, false)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAdmittedCountsBeforeTheCache: writes admitted one after another are
// counted before the watch brings them, and only until it does.
func TestAdmittedCountsBeforeTheCache(t *testing.T) {
	f := newFixture(t, Options{MaxNodePools: 2, MaxNodePoolReplicas: 10})
	if err := f.admit(createPool("a", 4, false)); err != nil {
		t.Fatal(err)
	}
	// A dry run counts nothing.
	if err := f.admit(createPool("b", 4, true)); err != nil {
		t.Fatal(err)
	}
	if err := f.admit(createPool("b", 4, false)); err != nil {
		t.Fatal(err)
	}
	refused(t, f.admit(createPool("c", 1, false)), "limit of 2 nodepools", "the namespace has 2")
	refused(t, f.admit(updatePool("a", "", 4, 7)), "requested 7, the namespace's other nodepools have 4")

	// The cache shows them: counted once, from the cache.
	f.store(pool("a", 4))
	f.store(pool("b", 4))
	if got := len(f.usage.admitted); got != 0 {
		t.Errorf("%d namespaces with admitted writes the cache shows", got)
	}
	refused(t, f.admit(createPool("c", 1, false)), "the namespace has 2")

	// A create refused after admission (or failed) counts until it expires.
	f.remove(pool("b", 4))
	if err := f.admit(createPool("c", 6, false)); err != nil {
		t.Fatal(err)
	}
	refused(t, f.admit(createPool("d", 1, false)), "the namespace has 2")
	f.now = f.now.Add(admittedFor + time.Second)
	if err := f.admit(createPool("d", 1, false)); err != nil {
		t.Errorf("once the admitted create expired: %v", err)
	}
}

func TestReplicasCap(t *testing.T) {
	f := newFixture(t, Options{MaxNodePoolReplicas: 10})
	// The cap holds under a ResourceQuota too.
	f.quota("pools", corev1.ResourceList{"count/nodepools.sim.x-k8s.io": resource.MustParse("10")})
	refused(t, f.admit(createPool("big", 11, false)), "limit of 10 nodepool replicas per namespace", "--max-nodepool-replicas-per-namespace", "requested 11")

	f.store(pool("a", 6))
	refused(t, f.admit(createPool("b", 5, false)), "requested 5, the namespace's other nodepools have 6")
	if err := f.admit(createPool("b", 4, false)); err != nil {
		t.Fatal(err)
	}
	f.store(pool("b", 4))

	// Updates and scale count the growth; the pool's own replicas are not
	// counted twice.
	rv := strconv.Itoa(f.rv)
	refused(t, f.admit(updatePool("b", rv, 4, 5)), "requested 5, the namespace's other nodepools have 6")
	refused(t, f.admit(scalePool("b", rv, 4, 5)), "requested 5")
	if err := f.admit(scalePool("b", rv, 4, 3)); err != nil {
		t.Fatal(err)
	}
	// A scale down makes room once the cache shows it: until then it may
	// yet fail, and the limits count high rather than low.
	refused(t, f.admit(scalePool("a", "1", 6, 7)), "requested 7, the namespace's other nodepools have 4")
	f.store(pool("b", 3))
	if err := f.admit(scalePool("a", "1", 6, 7)); err != nil {
		t.Fatalf("scaling a up into the room b's scale down left: %v", err)
	}

	// Over a cap lowered since, what does not grow passes.
	f = newFixture(t, Options{MaxNodePoolReplicas: 5})
	f.store(pool("a", 8))
	if err := f.admit(updatePool("a", "1", 8, 8)); err != nil {
		t.Errorf("an update that keeps replicas: %v", err)
	}
	if err := f.admit(scalePool("a", "1", 8, 6)); err != nil {
		t.Errorf("a scale down: %v", err)
	}
	refused(t, f.admit(createPool("b", 1, false)), "the namespace's other nodepools have 8")
}

// TestOtherRequestsPass: subresources other than scale, status writes and
// other resources are not the limits' business.
func TestOtherRequestsPass(t *testing.T) {
	f := newFixture(t, Options{MaxSimulators: 1, MaxNodePools: 1, MaxNodePoolReplicas: 1})
	f.store(pool("a", 1))
	status := admission.NewAttributesRecord(internalPool("a", "1", 5), internalPool("a", "1", 1), sim.Kind("NodePool").WithVersion("v1alpha1"), ns, "a",
		nodePools.WithVersion("v1alpha1"), "status", admission.Update, &metav1.UpdateOptions{}, false, nil)
	if err := f.admit(status); err != nil {
		t.Errorf("status: %v", err)
	}
	pod := admission.NewAttributesRecord(&corev1.Pod{}, nil, corev1.SchemeGroupVersion.WithKind("Pod"), ns, "p",
		corev1.SchemeGroupVersion.WithResource("pods"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	if err := f.admit(pod); err != nil {
		t.Errorf("a pod: %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	if errs := NewOptions().Validate(); len(errs) != 0 {
		t.Errorf("defaults: %v", errs)
	}
	if o := NewOptions(); o.MaxNodePoolReplicas < 10000 {
		t.Errorf("the default cap %d holds less than one pool of the largest size", o.MaxNodePoolReplicas)
	}
	if errs := (&Options{MaxNodePools: -1}).Validate(); len(errs) == 0 {
		t.Error("a negative limit passes")
	}
}

func TestTrim(t *testing.T) {
	np := pool("a", 3)
	np.Labels = map[string]string{"big": strings.Repeat("x", 1000)}
	np.Spec.SimulatorName = "s"
	got, err := Trim(np)
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*v1alpha1.NodePool); g.Labels != nil || g.Spec.SimulatorName != "" || *g.Spec.Replicas != 3 || g.Name != "a" {
		t.Errorf("trimmed to %+v", g)
	}
}

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
	"bytes"
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	siminstall "sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/backing/backingtest"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	simfake "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned/fake"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/hosting"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
)

// hostedFixture is a reconciler over a fake serving cluster whose one
// simulator, team-a/example, is hosted in namespace sims of a fake hosting
// cluster.
type hostedFixture struct {
	c        *Controller
	serving  *kubefake.Clientset
	hosting  *kubefake.Clientset
	sims     *simfake.Clientset
	signer   *backing.Signer
	recorder *record.FakeRecorder
	clock    *clocktesting.FakePassiveClock
}

const hostedKey = "team-a/example"

func hostingKubeconfig(t *testing.T) []byte {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["b"] = &clientcmdapi.Cluster{Server: "https://hosting.example"}
	kc.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	kc.Contexts["b"] = &clientcmdapi.Context{Cluster: "b", AuthInfo: "u"}
	kc.CurrentContext = "b"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// newHostedFixture is the fixture; without the hosting Secret, the
// simulator names one that is not there.
func newHostedFixture(t *testing.T, withSecret bool) *hostedFixture {
	t.Helper()
	ctx := t.Context()
	var secrets []k8sruntime.Object
	if withSecret {
		secrets = append(secrets, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "hosting"},
			Data:       map[string][]byte{contract.SourceKeyKubeconfig: hostingKubeconfig(t)},
		})
	}
	f := &hostedFixture{
		serving:  kubefake.NewClientset(secrets...),
		hosting:  kubefake.NewClientset(),
		recorder: record.NewFakeRecorder(100),
		clock:    clocktesting.NewFakePassiveClock(time.Now()),
	}
	// The fakes give no UIDs, and a signature covers one; nor the objects
	// resourceVersions, which the status records: they get them, above
	// the fakes' lists' (which count from 1), growing as an apiserver's.
	var uids atomic.Int64
	versions := atomic.Int64{}
	versions.Store(1000)
	for _, cs := range []*kubefake.Clientset{f.serving, f.hosting} {
		cs.PrependReactor("create", "*", func(action clienttesting.Action) (bool, k8sruntime.Object, error) {
			if m, err := meta.Accessor(action.(clienttesting.CreateAction).GetObject()); err == nil {
				if m.GetUID() == "" {
					m.SetUID(types.UID(fmt.Sprintf("uid-%d", uids.Add(1))))
				}
				m.SetResourceVersion(strconv.FormatInt(versions.Add(1), 10))
			}
			return false, nil, nil
		})
	}
	signer, err := backing.NewSigner(bytes.Repeat([]byte{7}, backing.MinOwnershipKeyBytes))
	if err != nil {
		t.Fatal(err)
	}
	f.signer = signer
	controlled := func(obj metav1.Object) bool { _, ok := signer.Claimed(obj); return ok }
	reg, err := hosting.NewRegistry(f.serving, hosting.Options{
		Cache: hostcache.Options{SyncTimeout: 10 * time.Second, Controlled: controlled},
		NewClients: func(*rest.Config) (kubernetes.Interface, metadata.Interface, error) {
			return f.hosting, metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	regCtx, cancel := context.WithCancel(ctx)
	regDone := make(chan struct{})
	go func() {
		defer close(regDone)
		reg.Run(regCtx)
	}()
	t.Cleanup(func() {
		cancel()
		<-regDone
	})

	hostCache, err := hostcache.New(f.serving, metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), hostcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := hostCache.Follow(func(added, _ func(namespace, name string)) (func() bool, error) {
		added("team-a", "example")
		return func() bool { return true }, nil
	}); err != nil {
		t.Fatal(err)
	}
	hostCache.Start(ctx)

	scheme := k8sruntime.NewScheme()
	siminstall.Install(scheme)
	s := &v1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "example", UID: "sim-uid", Generation: 1,
			Finalizers: []string{sim.FinalizerCleanup}},
		Spec: v1alpha1.SimulatorSpec{Hosting: &v1alpha1.SimulatorHosting{SecretName: "hosting", Namespace: "sims"}},
	}
	scheme.Default(s)
	f.sims = simfake.NewClientset(s)
	factory := siminformers.NewSharedInformerFactory(f.sims, 0)
	f.c, err = New(scheme, f.sims, factory.Sim().V1alpha1().Simulators(), f.serving, hostCache, "sim-system", nil, f.recorder)
	if err != nil {
		t.Fatal(err)
	}
	f.c.clock = f.clock
	f.c.EnableHosting(reg, func() *backing.Signer { return signer })
	// As every replica does, from the records: a stored simulator follows
	// its hosting cluster.
	follower := site.NewFollower(&site.Resolver{Hosting: reg, Signer: func() *backing.Signer { return signer }},
		func(ctx context.Context, namespace, name string) (site.Ref, bool, error) {
			s, err := f.sims.SimV1alpha1().Simulators(namespace).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return site.Ref{}, false, nil
			}
			if err != nil {
				return site.Ref{}, false, err
			}
			return site.RefOf(s), true, nil
		})
	changed := func(obj any) {
		if name, err := cache.DeletionHandlingObjectToName(obj); err == nil {
			follower.Changed(name.Namespace, name.Name)
		}
	}
	if _, err := factory.Sim().V1alpha1().Simulators().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: changed, UpdateFunc: func(_, obj any) { changed(obj) }, DeleteFunc: changed,
	}); err != nil {
		t.Fatal(err)
	}
	go follower.Run(regCtx)
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	if !cache.WaitForCacheSync(ctx.Done(), factory.Sim().V1alpha1().Simulators().Informer().HasSynced, hostCache.HasSynced) {
		t.Fatal("caches did not sync")
	}
	return f
}

// syncUntil syncs the simulator until done says so: the fixture runs no
// queue (HostingRecheck's adds wait), the test drives each sync.
func (f *hostedFixture) syncUntil(t *testing.T, what string, done func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := f.c.sync(ctx, hostedKey)
		if err != nil {
			t.Logf("sync: %v", err)
		}
		return done(), nil
	})
	if err != nil {
		t.Fatalf("never %s", what)
	}
}

// hostedObjects are the objects the simulator has in a namespace of cs,
// by kind and name, and whether each is signed for it.
func hostedObjects(t *testing.T, cs kubernetes.Interface, namespace string, owner backing.Owner) map[string]bool {
	t.Helper()
	objs, err := backingtest.Objects(t.Context(), cs, namespace, "example")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for k, obj := range objs {
		out[k] = owner.Owns(obj) && len(obj.GetOwnerReferences()) == 0
	}
	return out
}

// TestHosted: a hosted simulator's Pod, Service, Secret and NetworkPolicy
// are made in its hosting namespace, signed for it and without owner
// references, and none of them here (its kubeconfig accounts stay here);
// a sync again changes nothing; the status speaks of the hosted Pod; the
// finalizer removes what is there, then lets the simulator go.
func TestHosted(t *testing.T) {
	f := newHostedFixture(t, true)
	owner := f.signer.Owner(backing.Claim{Namespace: "team-a", Name: "example", UID: "sim-uid"})
	want := map[string]bool{
		"Pod/" + sim.SimulatorPodName("example", 1): true, "Service/" + sim.SimulatorServiceName("example"): true,
		"Secret/" + sim.SimulatorSecretName("example"): true, "NetworkPolicy/" + sim.SimulatorNetworkPolicyName("example"): true,
	}
	f.syncUntil(t, "made the hosted objects, signed", func() bool {
		return maps.Equal(hostedObjects(t, f.hosting, "sims", owner), want)
	})
	if here := hostedObjects(t, f.serving, "team-a", backing.ReferenceOwner("sim-uid")); len(here) != 0 {
		t.Errorf("objects here: %v, want none (they are hosted)", here)
	}
	accounts, err := f.serving.CoreV1().ServiceAccounts("team-a").List(t.Context(), metav1.ListOptions{})
	if err != nil || len(accounts.Items) != 2 {
		t.Errorf("kubeconfig accounts here: %v, %v; want 2", accounts, err)
	}
	// Once the caches hold them, a sync finds them the simulator's: no
	// notOwned error, nothing made again, the status of the hosted Pod.
	f.syncUntil(t, "the status speaks of the hosted Pod", func() bool {
		s, err := f.sims.SimV1alpha1().Simulators("team-a").Get(t.Context(), "example", metav1.GetOptions{})
		return err == nil && strings.Contains(s.Annotations[AnnotationObservedStatus], "/sim-example-g1/")
	})
	s, _ := f.sims.SimV1alpha1().Simulators("team-a").Get(t.Context(), "example", metav1.GetOptions{})
	if msg, ok := s.Annotations[backing.AnnotationNotOwned]; ok {
		t.Errorf("the simulator finds its own objects not its own: %s", msg)
	}
	pods, _ := f.hosting.CoreV1().Pods("sims").List(t.Context(), metav1.ListOptions{})
	if len(pods.Items) != 1 {
		t.Fatalf("%d Pods in the hosting namespace, want 1", len(pods.Items))
	}
	// The status was computed from the hosted Pod: its version is recorded.
	if got, want := s.Annotations[sim.AnnotationObservedPodVersion], pods.Items[0].ResourceVersion; got != want || got == "" {
		t.Errorf("observed Pod version %q, want the hosted Pod's %q", got, want)
	}

	// Deleted: everything there goes, then the finalizer.
	now := metav1.Now()
	s.DeletionTimestamp = &now
	if _, err := f.sims.SimV1alpha1().Simulators("team-a").Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.syncUntil(t, "let the simulator go", func() bool {
		s, err := f.sims.SimV1alpha1().Simulators("team-a").Get(t.Context(), "example", metav1.GetOptions{})
		return err == nil && len(s.Finalizers) == 0
	})
	if left := hostedObjects(t, f.hosting, "sims", owner); len(left) != 0 {
		t.Errorf("left in the hosting namespace: %v", left)
	}
	// (The accounts here go as a local simulator's do: the fake metadata
	// client of this fixture's host cache does not see them.)
}

// TestHostedPlanted: objects of the simulator's names in the hosting
// namespace that the server did not sign (planted, or with a signature
// copied from another object) are never adopted: nothing is made over
// them and the simulator says which one is in the way.
func TestHostedPlanted(t *testing.T) {
	f := newHostedFixture(t, true)
	name := sim.SimulatorSecretName("example")
	planted := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "sims", Name: name, UID: "planted",
		Labels:      map[string]string{sim.LabelSimulator: "example"},
		Annotations: map[string]string{sim.AnnotationOwner: "team-a/example/sim-uid", sim.AnnotationOwnerSignature: strings.Repeat("ab", 32)}}}
	if _, err := f.hosting.CoreV1().Secrets("sims").Create(t.Context(), planted, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.syncUntil(t, "said the Secret is in the way", func() bool {
		s, err := f.sims.SimV1alpha1().Simulators("team-a").Get(t.Context(), "example", metav1.GetOptions{})
		return err == nil && strings.Contains(s.Annotations[backing.AnnotationNotOwned], "Secret "+name+" exists and is not controlled by this simulator")
	})
	if pods, _ := f.hosting.CoreV1().Pods("sims").List(t.Context(), metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("a Pod was made beside a planted Secret: %d", len(pods.Items))
	}
	got, err := f.hosting.CoreV1().Secrets("sims").Get(t.Context(), name, metav1.GetOptions{})
	if err != nil || got.Annotations[sim.AnnotationOwnerSignature] != strings.Repeat("ab", 32) || len(got.Data) != 0 {
		t.Errorf("the planted Secret was changed: %+v, %v", got, err)
	}
}

// TestHostedUnreachable: while the hosting kubeconfig gives no clients
// (its Secret is not there), nothing is made and the status says
// HostingClusterUnreachable; a deleted simulator waits, with an Event,
// then goes HostedCleanupGiveUpAfter after its deletion, saying what it
// left behind.
func TestHostedUnreachable(t *testing.T) {
	f := newHostedFixture(t, false)
	f.syncUntil(t, "said the hosting cluster is unreachable", func() bool {
		s, err := f.sims.SimV1alpha1().Simulators("team-a").Get(t.Context(), "example", metav1.GetOptions{})
		return err == nil && strings.Contains(s.Annotations[AnnotationObservedStatus], sim.SimulatorReasonHostingClusterUnreachable)
	})
	if n := len(hostedObjects(t, f.hosting, "sims", backing.ReferenceOwner(""))); n != 0 {
		t.Errorf("%d objects made in an unreachable hosting cluster", n)
	}
	s, _ := f.sims.SimV1alpha1().Simulators("team-a").Get(t.Context(), "example", metav1.GetOptions{})
	if v, ok := s.Annotations[sim.AnnotationObservedPodVersion]; ok {
		t.Errorf("observed Pod version %q in a cluster that cannot be read, want none", v)
	}
	now := metav1.NewTime(f.clock.Now())
	s.DeletionTimestamp = &now
	if _, err := f.sims.SimV1alpha1().Simulators("team-a").Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return cond(), nil
		}); err != nil {
			t.Fatalf("never %s", what)
		}
	}
	// The informer sees the deletion; then the finalizer waits.
	eventually("the reconciler sees the deletion", func() bool {
		s, err := f.c.simLister.Simulators("team-a").Get("example")
		return err == nil && s.DeletionTimestamp != nil
	})
	if _, err := f.c.sync(t.Context(), hostedKey); err == nil || !strings.Contains(err.Error(), "hosting cluster") {
		t.Errorf("sync of a deleted simulator with its hosting cluster away: %v, want an error that it waits", err)
	}
	if s, _ := f.sims.SimV1alpha1().Simulators("team-a").Get(t.Context(), "example", metav1.GetOptions{}); len(s.Finalizers) == 0 {
		t.Fatal("the finalizer went at once")
	}
	f.clock.SetTime(now.Add(HostedCleanupGiveUpAfter))
	if _, err := f.c.sync(t.Context(), hostedKey); err != nil {
		t.Fatalf("sync after HostedCleanupGiveUpAfter: %v", err)
	}
	if s, _ := f.sims.SimV1alpha1().Simulators("team-a").Get(t.Context(), "example", metav1.GetOptions{}); len(s.Finalizers) != 0 {
		t.Error("the finalizer stayed past HostedCleanupGiveUpAfter")
	}
	var events []string
	for len(f.recorder.Events) > 0 {
		events = append(events, <-f.recorder.Events)
	}
	joined := strings.Join(events, "\n")
	for _, want := range []string{"Warning " + sim.SimulatorReasonHostingClusterUnreachable + " Waiting to delete", "Warning HostedCleanupAbandoned", "namespace sims of the hosting cluster"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no Event says %q in:\n%s", want, joined)
		}
	}
}

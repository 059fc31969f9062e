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

// Package simulator is the reconciler of simulators: from each record it
// keeps the simulator's credentials Secret, Service, NetworkPolicy and Pod
// in its site (the host, or the hosting cluster spec.hosting names),
// replaces the Pod when the spec changes, removes everything on deletion,
// and touches the record when the status it computes changes.
package simulator

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/metadata/metadatalister"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/worker"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions/sim/v1alpha1"
	simlisters "sigs.k8s.io/simulator-apiserver/pkg/generated/listers/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/hosting"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
)

// AnnotationObservedStatus is the digest of the status the reconciler last
// saw. Writing it when the status changes is what makes watchers of the
// record (kubectl get -w, kubectl wait) see the change.
const AnnotationObservedStatus = sim.AnnotationObservedStatus

// fieldManager is the reconciler's, on the simulators it writes.
const fieldManager = "simulator-reconciler"

// namespaceSyncTimeout bounds a sync's wait for the host cache of its
// namespace; the simulator is then retried with backoff.
const namespaceSyncTimeout = 10 * time.Second

// EtcdPurger removes a simulator's keys from an external etcd.
type EtcdPurger func(ctx context.Context, etcdURL, prefix string, tlsConfig *tls.Config) error

// Controller reconciles simulators.
type Controller struct {
	scheme    *runtime.Scheme
	sims      simclientset.Interface
	simLister simlisters.SimulatorLister
	simSynced cache.InformerSynced
	host      kubernetes.Interface
	hostCache *hostcache.Cache
	accounts  metadatalister.Lister
	roles     rbaclisters.RoleLister
	bindings  metadatalister.Lister
	// serverNamespace is sim-apiserver's own, which the NetworkPolicies admit.
	serverNamespace string
	purgeEtcd       EtcdPurger
	queue           worker.Queue
	retryAfter      time.Duration
	// recorder posts Events on the simulator: what the reconciler did and
	// saw (kubectl describe simulator).
	recorder record.EventRecorder
	// clock tells when a purge is given up (abandonPurge).
	clock clock.PassiveClock
	// sites finds where each simulator's Pod, Service, Secret and
	// NetworkPolicy are; its Hosting is set by EnableHosting.
	sites *site.Resolver
}

// New wires a Controller to its informers. sims reaches our own API (loopback);
// host reaches the host cluster.
func New(scheme *runtime.Scheme, sims simclientset.Interface, simInformer siminformers.SimulatorInformer,
	host kubernetes.Interface, hostCache *hostcache.Cache, serverNamespace string, purgeEtcd EtcdPurger, recorder record.EventRecorder,
) (*Controller, error) {
	c := &Controller{
		scheme:          scheme,
		sims:            sims,
		simLister:       simInformer.Lister(),
		simSynced:       simInformer.Informer().HasSynced,
		host:            host,
		hostCache:       hostCache,
		accounts:        hostCache.ServiceAccounts(),
		roles:           hostCache.Roles(),
		bindings:        hostCache.RoleBindings(),
		serverNamespace: serverNamespace,
		purgeEtcd:       purgeEtcd,
		retryAfter:      time.Second,
		queue:           worker.NewQueue("simulator"),
		recorder:        recorder,
		clock:           clock.RealClock{},
		sites:           &site.Resolver{Client: host, Cache: hostCache},
	}
	if _, err := simInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueSimulator,
		UpdateFunc: func(_, obj interface{}) { c.enqueueSimulator(obj) },
		DeleteFunc: c.enqueueSimulator,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// EnableHosting places the simulators that name a hosting cluster there,
// through reg, and signs what it makes there with signer's key (nil until
// it is read). Without it such a simulator gets nothing, and its status
// says hosting is off. Call it before Run.
func (c *Controller) EnableHosting(reg *hosting.Registry, signer func() *backing.Signer) {
	c.sites.Hosting, c.sites.Signer = reg, signer
}

func (c *Controller) enqueueSimulator(obj interface{}) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

func (c *Controller) enqueueOwner(obj interface{}) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	if name, ok := m.GetLabels()[sim.LabelSimulator]; ok {
		c.queue.Add(hostcache.Key(m.GetNamespace(), name))
	}
}

// enqueueClaimant is enqueueOwner for the objects of hosting clusters:
// their label names a simulator of another namespace, their signed claim
// says which. An object nobody signed brings nothing back.
func (c *Controller) enqueueClaimant(obj interface{}) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return
	}
	if key, ok := c.sites.Claimed(m); ok {
		c.queue.Add(key)
	}
}

// Run reconciles with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	// Any change to a host object of a simulator (a lost Pod, a Pod turning
	// ready, an object whose simulator is gone) brings its simulator back
	// here. The host cache outlives this reconciler (a lost lease ends its
	// term, and the next term makes a new one): its handlers go with it.
	owned := cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueOwner,
		UpdateFunc: func(_, obj interface{}) { c.enqueueOwner(obj) },
		DeleteFunc: c.enqueueOwner,
	}
	registration, err := c.hostCache.AddEventHandler(owned)
	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Watching the host cache")
		return
	}
	defer c.hostCache.RemoveEventHandler(registration)
	if reg := c.sites.Hosting; reg != nil {
		// On the caches of the hosting clusters, those made later too;
		// taken off when the term ends, as from the host cache.
		remove, err := reg.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueueClaimant,
			UpdateFunc: func(_, obj interface{}) { c.enqueueClaimant(obj) },
			DeleteFunc: c.enqueueClaimant,
		})
		defer remove()
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Watching the hosting clusters")
			return
		}
	}
	worker.Run(ctx, "simulator", c.queue, workers, c.syncKey, c.simSynced, c.hostCache.HasSynced)
}

// syncKey is sync for the workers: a simulator to look at again comes back
// after retryAfter.
func (c *Controller) syncKey(ctx context.Context, key string) (time.Duration, error) {
	requeue, err := c.sync(ctx, key)
	if requeue {
		return c.retryAfter, err
	}
	return 0, err
}

// sync converges one simulator. It is idempotent: any step may have been
// done before a crash, and doing it again changes nothing.
func (c *Controller) sync(ctx context.Context, key string) (requeue bool, err error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return false, err
	}
	logger := klog.FromContext(ctx).WithValues("simulator", key)
	ctx = klog.NewContext(ctx, logger)

	s, err := c.simLister.Simulators(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Confirm with a live read before removing anything: the informer may lag.
		if _, err := c.sims.SimV1alpha1().Simulators(namespace).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return err == nil, err
		}
		// Its objects are those a simulator of this name controlled,
		// whatever its UID was. (A hosted one's are removed before its
		// record goes: its finalizer waits for them.)
		local := c.sites.Local(site.Ref{Namespace: namespace, Name: name})
		owned := func(obj metav1.Object) bool { return backing.OwnedByName(obj, name) }
		_, err := c.removeHostObjects(ctx, local, namespace, name, owned, owned)
		return false, err
	}
	if err != nil {
		return false, err
	}
	// The host cache watches a namespace from its first simulator on: act
	// on what it holds only once it holds all of it.
	waitCtx, cancel := context.WithTimeout(ctx, namespaceSyncTimeout)
	defer cancel()
	if !c.hostCache.WaitForNamespace(waitCtx, namespace) {
		return false, fmt.Errorf("the host cache of namespace %s has not synced", namespace)
	}
	st, siteErr := c.siteOf(ctx, s)
	if s.DeletionTimestamp != nil {
		return c.finalize(ctx, s, st, siteErr)
	}
	if siteErr != nil {
		// Nothing is made or deleted there; the status says why, and the
		// simulator is looked at again every HostingRecheck (a hosting
		// cluster's events do not reach here while it is away).
		c.queue.AddAfter(key, HostingRecheck)
		return false, c.touchStatus(ctx, s, st, siteErr)
	}
	requeue, err = c.ensureHostObjects(ctx, s, st)
	if notOwned := (*notOwnedError)(nil); errors.As(err, &notOwned) {
		// Retried with backoff: the object that is in the way carries no
		// label of ours, so no event of it brings the simulator back.
		return false, errors.Join(err, c.markNotOwned(ctx, s, notOwned.Error()))
	}
	if err != nil {
		return false, err
	}
	return requeue, c.touchStatus(ctx, s, st, nil)
}

// siteOf is where s's objects are (site.Resolver.Of). A hosted
// simulator's cache there must have synced the hosting namespace.
func (c *Controller) siteOf(ctx context.Context, s *v1alpha1.Simulator) (site.Site, error) {
	ref := site.RefOf(s)
	st, err := c.sites.Of(ref)
	if err != nil || !ref.Hosted() {
		return st, err
	}
	waitCtx, cancel := context.WithTimeout(ctx, namespaceSyncTimeout)
	defer cancel()
	if !st.Cache.WaitForNamespace(waitCtx, st.Place.Namespace) {
		return st, fmt.Errorf("the cache of the hosting namespace %s has not synced", st.Place.Namespace)
	}
	return st, nil
}

func (c *Controller) ensureHostObjects(ctx context.Context, s *v1alpha1.Simulator, st site.Site) (requeue bool, err error) {
	if err := c.ensureSecret(ctx, s, st); err != nil {
		return false, err
	}
	if err := c.ensureService(ctx, s, st); err != nil {
		return false, err
	}
	if err := c.ensureNetworkPolicy(ctx, s, st); err != nil {
		return false, err
	}
	if err := c.ensureProxyAccess(ctx, s); err != nil {
		return false, err
	}
	return c.ensurePod(ctx, s, st)
}

// notOwnedError is a host object that has one of a simulator's names but is
// not controlled by the simulator: a user's, made before it, maybe to be
// mounted or used as the simulator's. It is never used nor changed.
type notOwnedError struct {
	kind, name string
}

func (e *notOwnedError) Error() string {
	return fmt.Sprintf("%s %s exists and is not controlled by this simulator, so it is not used; delete it or recreate the simulator under another name", e.kind, e.name)
}

// ours checks that an object with one of the simulator's names is the
// simulator's, as its site tells.
func ours(st site.Site, kind string, obj metav1.Object) error {
	if st.Owner.Owns(obj) {
		return nil
	}
	return &notOwnedError{kind: kind, name: obj.GetName()}
}

// created interprets the error of creating one of the simulator's objects.
// AlreadyExists is either the cache being behind on our own object (the next
// event brings it) or a stranger's object, which the cache, seeing only
// labelled objects, may not hold: a live read tells them apart.
func created[T metav1.Object](ctx context.Context, st site.Site, kind, name string, err error, get func(context.Context, string, metav1.GetOptions) (T, error)) error {
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	obj, err := get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return ignoreNotFound(err)
	}
	return ours(st, kind, obj)
}

// patcher is a typed client's Patch.
type patcher[T any] func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)

// sign claims made, just created in a hosting cluster, for the simulator:
// the signature covers its UID, so it can only be patched in after the
// create (the patch carries the UID: it applies to that object alone).
// Here, the owner reference made made the simulator's already. Should the
// reconciler stop in between, the object stays unsigned, not the
// simulator's, and the simulator says so (notOwnedError) until it is
// deleted there: an object the server did not sign is never adopted.
func sign[T metav1.Object](ctx context.Context, st site.Site, kind string, made T, patch patcher[T]) error {
	if st.Signed == nil {
		return nil
	}
	if err := st.Signed.Sign(made); err != nil {
		return fmt.Errorf("signing %s %s: %w", kind, made.GetName(), err)
	}
	labels, annotations := made.GetLabels(), made.GetAnnotations()
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":    made.GetUID(),
		"labels": map[string]string{sim.LabelSimulator: labels[sim.LabelSimulator]},
		"annotations": map[string]string{
			sim.AnnotationOwner:          annotations[sim.AnnotationOwner],
			sim.AnnotationOwnerSignature: annotations[sim.AnnotationOwnerSignature],
		},
	}})
	if err != nil {
		return err
	}
	if _, err := patch(ctx, made.GetName(), types.MergePatchType, data, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
		return fmt.Errorf("signing %s %s: %w", kind, made.GetName(), err)
	}
	return nil
}

// markNotOwned puts on the simulator the error its status then shows.
func (c *Controller) markNotOwned(ctx context.Context, s *v1alpha1.Simulator, msg string) error {
	if s.Annotations[backing.AnnotationNotOwned] == msg {
		return nil
	}
	return c.patchAnnotations(ctx, s, map[string]any{backing.AnnotationNotOwned: msg})
}

// patchAnnotations merges annotations into the simulator's record (a nil
// value removes one); a record gone meanwhile is no error.
func (c *Controller) patchAnnotations(ctx context.Context, s *v1alpha1.Simulator, annotations map[string]any) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	_, err = c.sims.SimV1alpha1().Simulators(s.Namespace).Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (c *Controller) ensureSecret(ctx context.Context, s *v1alpha1.Simulator, st site.Site) error {
	current, err := st.Cache.Secrets().Secrets(st.Place.Namespace).Get(sim.SimulatorSecretName(s.Name))
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if current != nil {
		if err := ours(st, "Secret", current); err != nil {
			return err
		}
		if complete(current) {
			return nil
		}
	}
	want, err := backing.Secret(s, st.Place)
	if err != nil {
		return fmt.Errorf("making credentials: %w", err)
	}
	secrets := st.Client.CoreV1().Secrets(st.Place.Namespace)
	if current == nil {
		made, err := secrets.Create(ctx, want, metav1.CreateOptions{})
		if err != nil {
			return created(ctx, st, "Secret", want.Name, err, secrets.Get)
		}
		return sign(ctx, st, "Secret", made, secrets.Patch)
	}
	// Incomplete (edited by hand): make all of it anew, the Pod picks it up on restart.
	updated := current.DeepCopy()
	updated.Data = want.Data
	_, err = secrets.Update(ctx, updated, metav1.UpdateOptions{})
	return err
}

// complete asks for the files every simulator has: a Secret made before an
// optional one (contract.OptionalCredentialFiles) stays as it is.
func complete(secret *corev1.Secret) bool {
	for _, k := range contract.CredentialFiles {
		if len(secret.Data[k]) == 0 {
			return false
		}
	}
	return true
}

// hostClient is what ensureObject needs of a typed host client.
type hostClient[T any] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}

// ensureObject keeps the simulator's host object want: it is made when the
// cache has none of its name; one that is there must be the simulator's,
// and fix, if not nil, returns it brought back to want, or false when it
// is as wanted.
func ensureObject[T metav1.Object](ctx context.Context, st site.Site, kind string, want T,
	cached func(name string) (metav1.Object, error), client hostClient[T], fix func(current T) (T, bool),
) error {
	current, err := cached(want.GetName())
	if apierrors.IsNotFound(err) {
		made, err := client.Create(ctx, want, metav1.CreateOptions{})
		if err != nil {
			return created(ctx, st, kind, want.GetName(), err, client.Get)
		}
		return sign(ctx, st, kind, made, client.Patch)
	}
	if err != nil {
		return err
	}
	if err := ours(st, kind, current); err != nil {
		return err
	}
	if fix == nil {
		return nil
	}
	typed, ok := current.(T)
	if !ok {
		return fmt.Errorf("the host cache holds %s %s as a %T", kind, want.GetName(), current)
	}
	updated, changed := fix(typed)
	if !changed {
		return nil
	}
	if _, err := client.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating %s %s: %w", kind, want.GetName(), err)
	}
	return nil
}

// cachedAs is a lister's Get for ensureObject, which reads a kind's whole
// object or its metadata alone (metadata-only kinds of the host cache).
func cachedAs[T metav1.Object](get func(name string) (T, error)) func(name string) (metav1.Object, error) {
	return func(name string) (metav1.Object, error) { return get(name) }
}

func (c *Controller) ensureService(ctx context.Context, s *v1alpha1.Simulator, st site.Site) error {
	want := backing.Service(s, st.Place)
	ns := st.Place.Namespace
	return ensureObject(ctx, st, "Service", want, cachedAs(st.Cache.Services().Services(ns).Get), st.Client.CoreV1().Services(ns),
		func(current *corev1.Service) (*corev1.Service, bool) {
			if samePorts(current.Spec.Ports, want.Spec.Ports) && current.Spec.Selector[sim.LabelSimulator] == s.Name {
				return nil, false
			}
			updated := current.DeepCopy()
			updated.Spec.Ports = want.Spec.Ports
			updated.Spec.Selector = want.Spec.Selector
			return updated, true
		})
}

func samePorts(a, b []corev1.ServicePort) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Port != b[i].Port || a[i].TargetPort != b[i].TargetPort {
			return false
		}
	}
	return true
}

// ensureNetworkPolicy keeps the policy that admits to the Pod only what
// must reach it (backing.NetworkPolicy).
func (c *Controller) ensureNetworkPolicy(ctx context.Context, s *v1alpha1.Simulator, st site.Site) error {
	want := backing.NetworkPolicy(s, c.serverNamespace, st.Place)
	ns := st.Place.Namespace
	return ensureObject(ctx, st, "NetworkPolicy", want, cachedAs(st.Cache.NetworkPolicies().NetworkPolicies(ns).Get), st.Client.NetworkingV1().NetworkPolicies(ns),
		func(current *networkingv1.NetworkPolicy) (*networkingv1.NetworkPolicy, bool) {
			if equality.Semantic.DeepEqual(current.Spec, want.Spec) {
				return nil, false
			}
			// A port changed, or someone widened it by hand: ours again.
			updated := current.DeepCopy()
			updated.Spec = want.Spec
			return updated, true
		})
}

// ensurePod keeps exactly one live Pod, of the current generation: older
// generations are deleted, a lost or failed Pod is made anew. When the
// inner objects outlive the Pod (an external etcd, an etcd data claim) the
// new Pod waits until every older one on the same data has ended
// (backing.EtcdData): two control planes on one prefix would both act on
// the same objects (two schedulers binding, two controller-managers making
// Pods), and two etcds on one data directory would corrupt it.
func (c *Controller) ensurePod(ctx context.Context, s *v1alpha1.Simulator, st site.Site) (requeue bool, err error) {
	logger := klog.FromContext(ctx)
	haveCurrent := false
	// The Pods that have not ended yet, though deleted.
	var ending []*corev1.Pod
	// Why a new Pod is made, for its Event: none yet, a spec change, or the
	// last one failed or went.
	var replaced, failedPod *corev1.Pod
	for _, pod := range st.Pods(s.Name) {
		// A Pod that only carries our labels, or our owner reference under
		// another name, is not ours to keep or delete.
		if !backing.OwnedPod(pod, s.Name, st.Owner) {
			continue
		}
		if pod.DeletionTimestamp != nil {
			ending = append(ending, pod)
			continue
		}
		stale := backing.PodGeneration(pod) != s.Generation
		failed := pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
		if !stale && !failed {
			haveCurrent = true
			continue
		}
		logger.V(2).Info("Deleting Pod", "pod", klog.KObj(pod), "stale", stale, "phase", pod.Status.Phase)
		if err := deletePod(ctx, st, pod); err != nil {
			return false, err
		}
		ending = append(ending, pod)
		if failed {
			failedPod = pod
		} else {
			replaced = pod
		}
	}
	if haveCurrent {
		return false, nil
	}
	pod, err := backing.Pod(s, st.Place)
	if err != nil {
		return false, fmt.Errorf("building the Pod: %w", err)
	}
	if data := backing.EtcdData(pod); data != "" && slices.ContainsFunc(ending, func(p *corev1.Pod) bool { return backing.EtcdData(p) == data }) {
		// The Pod's deletion brings the simulator back here.
		logger.V(2).Info("Waiting for the simulator's other Pods to end: they share its etcd", "pod", klog.KObj(pod), "etcd", data)
		return true, nil
	}
	reason, message, kept := whyNewPod(s, pod, replaced, failedPod)
	if reason != "" && !kept {
		// Recorded before the Pod is made: once it is, nothing says the
		// state that went with the old Pod is gone.
		reset := backing.InnerStateReset{Time: metav1.Now(), Reason: reason, Message: message}
		if err := c.patchAnnotations(ctx, s, map[string]any{sim.AnnotationInnerStateReset: reset.String()}); err != nil {
			return false, fmt.Errorf("recording that the inner cluster starts over: %w", err)
		}
	}
	pods := st.Client.CoreV1().Pods(st.Place.Namespace)
	made, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// Ours: the Pod of this generation still terminates (it failed, or
		// was deleted): try again once it is gone.
		return true, created(ctx, st, "Pod", pod.Name, err, pods.Get)
	}
	if err != nil {
		return false, fmt.Errorf("creating Pod %s: %w", pod.Name, err)
	}
	if err := sign(ctx, st, "Pod", made, pods.Patch); err != nil {
		return false, err
	}
	logger.V(2).Info("Created Pod", "pod", klog.KObj(pod))
	if c.recorder != nil {
		eventType, reason := newPodEvent(reason, kept)
		c.recorder.Event(s, eventType, reason, message)
	}
	return false, nil
}

// newPodEvent is the type and reason of a new Pod's Event, given whyNewPod's
// reason: a Warning when what was made inside is gone.
func newPodEvent(reason string, kept bool) (eventType, eventReason string) {
	switch {
	case reason == "":
		return corev1.EventTypeNormal, "PodCreated"
	case kept:
		return corev1.EventTypeNormal, reason
	}
	return corev1.EventTypeWarning, reason
}

// whyNewPod says why pod is made, for its Event: a reason and a message
// saying whether the inner cluster keeps its objects (kept) or starts over.
// The reason is empty for the simulator's first Pod. A replaced or failed
// Pod the same sync deleted is the why, and kept if its objects were where
// pod's are (EtcdData: a changed claim or etcdURL starts over too); else
// the Pod the status last showed, which may have gone since.
func whyNewPod(s *v1alpha1.Simulator, pod *corev1.Pod, replaced, failed *corev1.Pod) (reason, message string, kept bool) {
	name, data := pod.Name, backing.EtcdData(pod)
	kept = data != ""
	if old := cmp.Or(replaced, failed); old != nil {
		kept = kept && backing.EtcdData(old) == data
	}
	lost := "the inner cluster starts empty (its etcd was the Pod's)"
	switch {
	case kept && s.Spec.EtcdURL != "":
		lost = "the inner cluster keeps its objects (external etcd), and the new Pod starts once the old one has ended"
	case kept:
		lost = fmt.Sprintf("the inner cluster keeps its objects (its etcd data is on claim %s), and the new Pod starts once the old one has ended", s.Spec.EtcdPersistentVolumeClaimName)
	case data != "":
		lost = fmt.Sprintf("the inner cluster starts from what %s holds, not from the old Pod's etcd data", data)
	}
	switch last := observedStatus(s).Pod; {
	case replaced != nil:
		return "PodReplaced", fmt.Sprintf("The spec changed (generation %d to %d): Pod %s replaces %s; %s", backing.PodGeneration(replaced), s.Generation, name, replaced.Name, lost), kept
	case failed != nil:
		return "PodRecreated", fmt.Sprintf("Pod %s %s (%s): Pod %s replaces it; %s", failed.Name, failed.Status.Phase, failed.Status.Reason, name, lost), kept
	case last == name:
		return "PodRecreated", fmt.Sprintf("Pod %s was gone: made it again; %s", name, lost), kept
	case last != "":
		return "PodReplaced", fmt.Sprintf("Pod %s replaces %s (generation %d); %s", name, last, s.Generation, lost), kept
	}
	return "", "Created Pod " + name, false
}

func deletePod(ctx context.Context, st site.Site, pod *corev1.Pod) error {
	err := st.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &pod.UID},
	})
	return ignoreNotFound(err)
}

// touchStatus writes the digest of the computed status on the record when
// it changed, so the change reaches watchers with the status computed anew.
// siteErr is why its site cannot be read (backing.Status).
func (c *Controller) touchStatus(ctx context.Context, s *v1alpha1.Simulator, st site.Site, siteErr error) error {
	internal := &sim.Simulator{}
	if err := c.scheme.Convert(s, internal, nil); err != nil {
		return err
	}
	// Every host object is the simulator's again: no conflict to report.
	_, conflict := internal.Annotations[backing.AnnotationNotOwned]
	// A copy: conversion shares the map with the informer's object.
	internal.Annotations = maps.Clone(internal.Annotations)
	delete(internal.Annotations, backing.AnnotationNotOwned)
	var pod *corev1.Pod
	// The version of the Pod the status is computed from: none without one.
	var podVersion any
	if siteErr == nil {
		if pod = st.Pod(s.Name, s.Generation); pod != nil && pod.ResourceVersion != "" {
			podVersion = pod.ResourceVersion
		}
	}
	status := backing.Status(internal, pod, siteErr)
	// The reason too: a Pending simulator turning Unschedulable is news.
	digest := backing.Digest(status)
	if s.Annotations[AnnotationObservedStatus] == digest && !conflict {
		return nil
	}
	c.phaseEvent(s, status)
	annotations := map[string]any{AnnotationObservedStatus: digest, sim.AnnotationObservedPodVersion: podVersion}
	if conflict {
		annotations[backing.AnnotationNotOwned] = nil
	}
	return c.patchAnnotations(ctx, s, annotations)
}

// observedStatus is what the reconciler last recorded of s's status.
func observedStatus(s *v1alpha1.Simulator) backing.Observed {
	return backing.ParseDigest(s.Annotations[AnnotationObservedStatus])
}

// phaseEvent posts an Event when the simulator becomes Available, or
// Failed with its reason, as the reconciler first sees it.
func (c *Controller) phaseEvent(s *v1alpha1.Simulator, st sim.SimulatorStatus) {
	if c.recorder == nil {
		return
	}
	if observedStatus(s).Phase == st.Phase {
		return
	}
	switch st.Phase {
	case sim.SimulatorAvailable:
		c.recorder.Eventf(s, corev1.EventTypeNormal, "Available", "Pod %s serves the inner cluster", st.PodName)
	case sim.SimulatorFailed:
		c.recorder.Eventf(s, corev1.EventTypeWarning, "Failed", "%s: %s", st.Conditions[0].Reason, st.Message)
	}
}

// finalize removes everything the simulator had in its site and here,
// then lets it go. siteErr is why its hosting cluster cannot be reached:
// nothing there is removed then, and the simulator waits for it, up to
// HostedCleanupGiveUpAfter.
func (c *Controller) finalize(ctx context.Context, s *v1alpha1.Simulator, st site.Site, siteErr error) (requeue bool, err error) {
	if !slices.Contains(s.Finalizers, sim.FinalizerCleanup) {
		return false, nil
	}
	here := backing.ReferenceOwner(s.UID).Owns
	if siteErr != nil {
		if !c.abandonHostedCleanup(s, st, siteErr) {
			return false, fmt.Errorf("removing the simulator's objects from its hosting cluster: %w", siteErr)
		}
		// Given up there: what is here still goes.
		st = c.sites.Local(site.RefOf(s))
	}
	if _, err := c.removeHostObjects(ctx, st, s.Namespace, s.Name, st.Owner.Owns, here); err != nil {
		return false, err
	}
	// Purge only once no Pod runs: a running inner apiserver would write
	// its keys again. (Pod events bring the simulator back here.)
	if slices.ContainsFunc(st.Pods(s.Name), func(p *corev1.Pod) bool { return st.Owner.Owns(p) }) {
		return true, nil
	}
	if err := c.purgeExternalEtcd(ctx, s); err != nil {
		if !c.abandonPurge(ctx, s, err) {
			return false, err
		}
	}
	updated := s.DeepCopy()
	updated.Finalizers = slices.DeleteFunc(updated.Finalizers, func(f string) bool { return f == sim.FinalizerCleanup })
	_, err = c.sims.SimV1alpha1().Simulators(s.Namespace).Update(ctx, updated, metav1.UpdateOptions{FieldManager: fieldManager})
	if apierrors.IsConflict(err) {
		return true, nil
	}
	if err == nil || apierrors.IsNotFound(err) {
		return false, nil
	}
	return false, err
}

// HostingRecheck is how often a simulator whose hosting cluster cannot be
// used is looked at again: its status (computed on read) says so at once;
// this is how soon the reconciler goes on once it can.
const HostingRecheck = 10 * time.Second

// HostedCleanupGiveUpAfter is how long a deleted simulator whose hosting
// cluster cannot be reached (or refuses the credentials) waits to remove
// its objects there before it lets go, counted from its deletionTimestamp
// as PurgeGiveUpAfter is: long enough for a cluster's restart or a
// credential's rotation, short enough that a cluster gone for good does
// not hold the simulator, and its namespace, forever. Retries back off as
// the reconciler's do, so it is given up within about twice this.
const HostedCleanupGiveUpAfter = 10 * time.Minute

// abandonHostedCleanup says whether the simulator goes without its objects
// in its hosting cluster removed, which err keeps it from: only
// HostedCleanupGiveUpAfter after its deletion. Either way an Event says
// what it waits for, or what it left behind and where.
func (c *Controller) abandonHostedCleanup(s *v1alpha1.Simulator, st site.Site, err error) bool {
	left := fmt.Sprintf("its Pod, Service, Secret and NetworkPolicy in namespace %s of the hosting cluster (Secret %s)", st.Place.Namespace, s.Spec.Hosting.SecretName)
	if s.DeletionTimestamp == nil || c.clock.Since(s.DeletionTimestamp.Time) < HostedCleanupGiveUpAfter {
		if c.recorder != nil {
			c.recorder.Eventf(s, corev1.EventTypeWarning, sim.SimulatorReasonHostingClusterUnreachable,
				"Waiting to delete %s: %v; the simulator goes without them %s after its deletion", left, err, HostedCleanupGiveUpAfter)
		}
		return false
	}
	if c.recorder != nil {
		c.recorder.Eventf(s, corev1.EventTypeWarning, "HostedCleanupAbandoned",
			"Went without deleting %s: the hosting cluster could not be used for %s (%v); delete them there", left, HostedCleanupGiveUpAfter, err)
	}
	return true
}

// removeHostObjects deletes the Pods, Service, Secret and NetworkPolicy
// labelled with the simulator that are its own in st (owned says which),
// and the ServiceAccounts, Roles and RoleBindings of namespace here that it
// controlled (ownedHere says which): a user's object with our labels or
// names stays. It serves both deletion and the sweep of orphans, whose
// record is gone. It reports whether anything was left to delete.
func (c *Controller) removeHostObjects(ctx context.Context, st site.Site, namespace, name string, owned, ownedHere func(metav1.Object) bool) (bool, error) {
	var errs []error
	found := false
	for _, pod := range st.Pods(name) {
		if !owned(pod) {
			continue
		}
		found = true
		if pod.DeletionTimestamp == nil {
			errs = append(errs, deletePod(ctx, st, pod))
		}
	}
	// Only what the caches hold, which is only what carries our label.
	for _, o := range c.namedObjects(st, namespace, name, owned, ownedHere) {
		obj, err := o.get()
		if err != nil || !o.owned(obj) {
			continue
		}
		found = true
		uid := obj.GetUID()
		errs = append(errs, ignoreNotFound(o.delete(ctx, obj.GetName(), metav1.DeleteOptions{
			Preconditions: &metav1.Preconditions{UID: &uid},
		})))
	}
	if found {
		klog.FromContext(ctx).V(2).Info("Removed host objects", "namespace", namespace, "simulator", name)
	}
	return found, errors.Join(errs...)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// namedObject is one host object of a simulator that has a fixed name.
type namedObject struct {
	get    func() (metav1.Object, error)
	delete func(context.Context, string, metav1.DeleteOptions) error
	// owned says whether the object found is the simulator's.
	owned func(metav1.Object) bool
}

// namedObjects are the Service, Secret and NetworkPolicy of a simulator in
// st, and its ServiceAccounts, Roles and RoleBindings in namespace here,
// read from the caches and deleted through the clients of each.
func (c *Controller) namedObjects(st site.Site, namespace, name string, owned, ownedHere func(metav1.Object) bool) []namedObject {
	ns, there := st.Place.Namespace, st.Client
	objects := []namedObject{
		{func() (metav1.Object, error) {
			return st.Cache.Services().Services(ns).Get(sim.SimulatorServiceName(name))
		}, there.CoreV1().Services(ns).Delete, owned},
		{func() (metav1.Object, error) {
			return st.Cache.Secrets().Secrets(ns).Get(sim.SimulatorSecretName(name))
		}, there.CoreV1().Secrets(ns).Delete, owned},
		{func() (metav1.Object, error) {
			return st.Cache.NetworkPolicies().NetworkPolicies(ns).Get(sim.SimulatorNetworkPolicyName(name))
		}, there.NetworkingV1().NetworkPolicies(ns).Delete, owned},
	}
	core, rbac := c.host.CoreV1(), c.host.RbacV1()
	writer, reader := backing.ProxyAccounts(name)
	for _, account := range []string{writer.Name, reader.Name} {
		objects = append(objects,
			namedObject{func() (metav1.Object, error) { return c.accounts.Namespace(namespace).Get(account) }, core.ServiceAccounts(namespace).Delete, ownedHere},
			namedObject{func() (metav1.Object, error) { return c.roles.Roles(namespace).Get(account) }, rbac.Roles(namespace).Delete, ownedHere},
			namedObject{func() (metav1.Object, error) { return c.bindings.Namespace(namespace).Get(account) }, rbac.RoleBindings(namespace).Delete, ownedHere},
		)
	}
	return objects
}

// ensureProxyAccess keeps the ServiceAccounts, Roles and RoleBindings of the
// simulator's kubeconfig tokens.
func (c *Controller) ensureProxyAccess(ctx context.Context, s *v1alpha1.Simulator) error {
	writer, reader := backing.ProxyAccounts(s.Name)
	for _, account := range []backing.ProxyAccount{writer, reader} {
		if err := c.ensureProxyAccount(ctx, s, account); err != nil {
			return err
		}
	}
	return nil
}

func (c *Controller) ensureProxyAccount(ctx context.Context, s *v1alpha1.Simulator, account backing.ProxyAccount) error {
	sa, role, binding := backing.ProxyAccess(s, account)
	local := c.sites.Local(site.RefOf(s))
	if err := ensureObject(ctx, local, "ServiceAccount", sa, cachedAs(c.accounts.Namespace(s.Namespace).Get), c.host.CoreV1().ServiceAccounts(s.Namespace), nil); err != nil {
		return err
	}
	err := ensureObject(ctx, local, "Role", role, cachedAs(c.roles.Roles(s.Namespace).Get), c.host.RbacV1().Roles(s.Namespace),
		func(current *rbacv1.Role) (*rbacv1.Role, bool) {
			if equality.Semantic.DeepEqual(current.Rules, role.Rules) {
				return nil, false
			}
			updated := current.DeepCopy()
			updated.Rules = role.Rules
			return updated, true
		})
	if err != nil {
		return err
	}
	return ensureObject(ctx, local, "RoleBinding", binding, cachedAs(c.bindings.Namespace(s.Namespace).Get), c.host.RbacV1().RoleBindings(s.Namespace), nil)
}

// PurgeGiveUpAfter is how long a simulator of a terminating namespace
// waits for the purge of its keys before it lets go: the namespace, and
// every deletion that waits on it, must not wait on an etcd that may be
// going with the namespace (its Pod is deleted with it). It counts from the
// simulator's deletionTimestamp, which every leader reads alike, so a
// restart or a new leader does not start it over. It is given up at the
// first retry past it in a terminating namespace: failed purges are retried
// with the reconciler's backoff (doubling from 5 ms, at most 1000 s), so
// within about twice this of a deletion that made the namespace terminate,
// and within the backoff reached of a purge that failed for long before.
const PurgeGiveUpAfter = 30 * time.Second

// abandonPurge says whether the simulator goes without the purge that
// failed with err: only in a terminating namespace, PurgeGiveUpAfter after
// the simulator's deletion, with a Warning Event that names the keys left
// behind. Elsewhere the purge is retried for as long as it fails: the etcd
// may come back, and the user can remove the finalizer.
func (c *Controller) abandonPurge(ctx context.Context, s *v1alpha1.Simulator, err error) bool {
	if s.DeletionTimestamp == nil || c.clock.Since(s.DeletionTimestamp.Time) < PurgeGiveUpAfter {
		return false
	}
	ns, nsErr := c.host.CoreV1().Namespaces().Get(ctx, s.Namespace, metav1.GetOptions{})
	if nsErr != nil || (ns.DeletionTimestamp == nil && ns.Status.Phase != corev1.NamespaceTerminating) {
		return false
	}
	klog.FromContext(ctx).Info("Gave up purging the simulator's etcd keys: its namespace is being deleted", "simulator", klog.KObj(s), "err", err)
	if c.recorder != nil {
		// On the Namespace: a terminating namespace takes no new Events.
		// (A reference: the recorder's scheme is sim.x-k8s.io's.)
		ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "Namespace", Name: ns.Name, UID: ns.UID}
		c.recorder.Eventf(ref, corev1.EventTypeWarning, "PurgeAbandoned",
			"Simulator %s/%s went without its etcd keys purged: the namespace is being deleted and the keys under %s in %s could not be deleted for %s (%v)",
			s.Namespace, s.Name, backing.EtcdPrefix(s), s.Spec.EtcdURL, PurgeGiveUpAfter, err)
	}
	return true
}

// purgeExternalEtcd deletes the simulator's keys in its external etcd, with
// its client certificate if it has one.
func (c *Controller) purgeExternalEtcd(ctx context.Context, s *v1alpha1.Simulator) error {
	if s.Spec.EtcdURL == "" || c.purgeEtcd == nil {
		return nil
	}
	var tlsConfig *tls.Config
	if name := s.Spec.EtcdTLSSecretName; name != "" {
		// The user's Secret, unlabelled, so not in the cache.
		secret, err := c.host.CoreV1().Secrets(s.Namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			// Gone first (the namespace is being deleted): the keys cannot
			// be reached, and holding the simulator would hold the
			// namespace forever.
			klog.FromContext(ctx).Info("Not purging the simulator's etcd keys: its etcd client certificate is gone", "simulator", klog.KObj(s), "secret", name)
			return nil
		case err != nil:
			return fmt.Errorf("reading the etcd client certificate to purge the simulator's keys: %w", err)
		}
		if tlsConfig, err = EtcdTLS(secret); err != nil {
			return err
		}
	}
	if err := c.purgeEtcd(ctx, s.Spec.EtcdURL, backing.EtcdPrefix(s), tlsConfig); err != nil {
		return fmt.Errorf("purging the simulator's keys in %s: %w", s.Spec.EtcdURL, err)
	}
	return nil
}

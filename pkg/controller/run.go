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

// Package controller runs the reconcilers of sim-apiserver, on one replica
// at a time: the one holding the host Lease.
package controller

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/controller/nodepool"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/scenario"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/simulator"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/source"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions"
	"sigs.k8s.io/simulator-apiserver/pkg/hostcache"
	"sigs.k8s.io/simulator-apiserver/pkg/inner"
	"sigs.k8s.io/simulator-apiserver/pkg/site"
)

// LeaseName is the host Lease, in the server's namespace, that elects the
// replica running the reconcilers.
const LeaseName = "sim-apiserver-reconcilers"

// Config is what the reconcilers need.
type Config struct {
	Scheme *runtime.Scheme
	// Loopback reaches our own API (records, through the registry).
	Loopback *rest.Config
	// Host reaches the host cluster; HostCache watches simulators' host objects.
	Host      kubernetes.Interface
	HostCache *hostcache.Cache
	// Sites, if they reach hosting clusters, let the simulators'
	// reconciler place simulators there.
	Sites *site.Resolver
	// Namespace is the server's own: it holds the Lease, and simulators'
	// NetworkPolicies admit its Pods.
	Namespace string
}

// Run elects a leader and, while this replica leads, runs the reconcilers.
// It returns when ctx ends. A lost lease (the host unreachable past the
// renew deadline, e.g. while its apiserver restarts) ends the term: the
// reconcilers stop and the replica campaigns again, for a new term with
// fresh reconcilers and caches. The process goes on: it also serves the
// API, which must outlive a host outage.
func Run(ctx context.Context, cfg Config) error {
	logger := klog.FromContext(ctx)
	hostname, _ := os.Hostname()
	id := hostname + "_" + string(uuid.NewUUID())
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, cfg.Namespace, LeaseName,
		cfg.Host.CoreV1(), cfg.Host.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: id})
	if err != nil {
		return fmt.Errorf("making the leader lock: %w", err)
	}
	for {
		// The identity in the Lease says which replica leads.
		logger.Info("Campaigning for the reconcilers' lease", "lease", klog.KRef(cfg.Namespace, LeaseName), "identity", id)
		// A term's reconcilers end with the term's context; the next term
		// starts once they have returned. (Should leaderelection's goroutine
		// start only after the term ended, it finds its context done and
		// returns at once.)
		var led atomic.Bool
		termDone := make(chan struct{})
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   15 * time.Second,
			RenewDeadline:   10 * time.Second,
			RetryPeriod:     2 * time.Second,
			ReleaseOnCancel: true,
			Name:            LeaseName,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					led.Store(true)
					defer close(termDone)
					if err := runReconcilers(ctx, cfg); err != nil {
						logger.Error(err, "Reconcilers stopped")
					}
				},
				OnStoppedLeading: func() {},
			},
		})
		if led.Load() {
			<-termDone
		}
		if ctx.Err() != nil {
			return nil
		}
		logger.Info("Lost the reconcilers' lease; the reconcilers stopped")
	}
}

func runReconcilers(ctx context.Context, cfg Config) error {
	sims, err := simclientset.NewForConfig(cfg.Loopback)
	if err != nil {
		return err
	}
	// The caches hold no managedFields: nothing of the reconcilers reads
	// them. Their Updates from a cached copy leave them nil, which keeps the
	// server's. (Annotations stay: NodePools are updated from the cache.)
	factory := siminformers.NewSharedInformerFactoryWithOptions(sims, 10*time.Minute,
		siminformers.WithTransform(stripManagedFields))
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	defer broadcaster.Shutdown()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cfg.Host.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(cfg.Scheme, corev1.EventSource{Component: "sim-apiserver"})
	simCtrl, err := simulator.New(cfg.Scheme, sims, factory.Sim().V1alpha1().Simulators(), cfg.Host, cfg.HostCache, cfg.Namespace, simulator.PurgeEtcd, recorder)
	if err != nil {
		return err
	}
	if cfg.Sites != nil && cfg.Sites.Hosting != nil {
		simCtrl.EnableHosting(cfg.Sites.Hosting, cfg.Sites.Signer)
	}
	access := inner.New(cfg.HostCache, cfg.HostCache.Secrets(), cfg.Sites)
	poolCtrl, err := nodepool.New(sims, factory.Sim().V1alpha1().NodePools(), factory.Sim().V1alpha1().Simulators(), access, recorder)
	if err != nil {
		return err
	}
	sourceCtrl, err := source.New(sims, factory.Sim().V1alpha1().Simulators(), access)
	if err != nil {
		return err
	}
	readConfigMap := func(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
		return cfg.Host.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	}
	scenarioCtrl, err := scenario.New(sims, factory.Sim().V1alpha1().Scenarios(), factory.Sim().V1alpha1().Simulators(),
		factory.Sim().V1alpha1().NodePools(), readConfigMap, access, recorder)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	// A term ends with every reconciler stopped, so that the next one starts alone.
	var wg sync.WaitGroup
	wg.Go(func() { poolCtrl.Run(ctx, 4) })
	wg.Go(func() { sourceCtrl.Run(ctx, 2) })
	wg.Go(func() { scenarioCtrl.Run(ctx, 2) })
	simCtrl.Run(ctx, 2)
	wg.Wait()
	return nil
}

// stripManagedFields is the transform of the reconcilers' caches: it drops
// an object's managedFields (the informer's copy is its own).
func stripManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

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

// Package limits bounds what a tenant keeps in a namespace. The host's
// ResourceQuotas count simulators and nodepools (count/simulators.sim.x-k8s.io,
// count/nodepools.sim.x-k8s.io), enforced by k8s.io/apiserver's ResourceQuota
// admission plugin, which this server runs on its own requests. Where no
// ResourceQuota counts them, the server's defaults do (the NamespaceLimits
// plugin), and the sum of a namespace's nodepool replicas has a cap always.
package limits

import (
	"context"
	"errors"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericadmissioninitializer "k8s.io/apiserver/pkg/admission/initializer"
	quota "k8s.io/apiserver/pkg/quota/v1"
	"k8s.io/apiserver/pkg/quota/v1/generic"
	"k8s.io/client-go/informers"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// PluginName is the name of the admission plugin of the server's limits.
const PluginName = "NamespaceLimits"

var (
	simulators = sim.Resource("simulators")
	nodePools  = sim.Resource("nodepools")
)

// Plugin refuses a simulator or a nodepool past the server's limit of its
// namespace where no ResourceQuota counts them, and nodepool replicas past
// the namespace's cap.
type Plugin struct {
	*admission.Handler
	opts       Options
	usage      *Usage
	quotas     corev1listers.ResourceQuotaLister
	synced     func() bool
	evaluators map[schema.GroupResource]quota.Evaluator
}

var (
	_ admission.ValidationInterface                                = &Plugin{}
	_ genericadmissioninitializer.WantsExternalKubeInformerFactory = &Plugin{}
	_ genericadmissioninitializer.WantsQuotaConfiguration          = &Plugin{}
)

// NewPlugin returns the plugin of opts; the initializers give it the rest.
func NewPlugin(opts Options) *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create, admission.Update), opts: opts}
}

// SetExternalKubeInformerFactory reads the host's ResourceQuotas from f,
// the informers the ResourceQuota plugin reads too.
func (p *Plugin) SetExternalKubeInformerFactory(f informers.SharedInformerFactory) {
	q := f.Core().V1().ResourceQuotas()
	p.quotas = q.Lister()
	p.synced = q.Informer().HasSynced
}

// SetQuotaConfiguration takes the evaluators of our resources, which say
// whether a ResourceQuota counts an object as the ResourceQuota plugin does.
func (p *Plugin) SetQuotaConfiguration(c quota.Configuration) {
	p.evaluators = map[schema.GroupResource]quota.Evaluator{}
	for _, e := range c.Evaluators() {
		p.evaluators[e.GroupResource()] = e
	}
}

func (p *Plugin) setUsage(u *Usage) { p.usage = u }

// ValidateInitialization checks that the initializers gave the plugin all
// it reads.
func (p *Plugin) ValidateInitialization() error {
	if p.quotas == nil || p.usage == nil || p.evaluators[simulators] == nil || p.evaluators[nodePools] == nil {
		return errors.New("missing the host's ResourceQuotas, the usage of simulators and nodepools, or their quota evaluators")
	}
	p.SetReadyFunc(func() bool { return p.synced() && p.usage.HasSynced() })
	return nil
}

// Validate refuses what the limits do not allow. Only creates add objects,
// and only creates, updates and scale of nodepools add replicas.
func (p *Plugin) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	gr := a.GetResource().GroupResource()
	ns, sub := a.GetNamespace(), a.GetSubresource()
	if ns == "" || (gr != simulators && gr != nodePools) || !(sub == "" || (gr == nodePools && sub == "scale")) {
		return nil
	}
	if !p.WaitForReady() {
		err := apierrors.NewServiceUnavailable("the server has not yet counted the simulators and nodepools of every namespace")
		err.ErrStatus.Details = &metav1.StatusDetails{RetryAfterSeconds: 1}
		return err
	}
	name := a.GetName()
	if m, err := meta.Accessor(a.GetObject()); err == nil && m.GetName() != "" {
		// A generated name is set by now; the request had none.
		name = m.GetName()
	}
	replicas, after, counted := int64(0), uint64(0), false

	p.usage.mu.Lock()
	defer p.usage.mu.Unlock()
	if a.GetOperation() == admission.Create && sub == "" {
		if err := p.checkCount(a, gr); err != nil {
			return err
		}
		counted = true
	}
	if gr == nodePools {
		newReplicas, ok := replicasOf(a.GetObject())
		if !ok {
			return nil
		}
		var oldReplicas int64
		if a.GetOperation() == admission.Update {
			if oldReplicas, ok = replicasOf(a.GetOldObject()); !ok {
				return nil
			}
			m, err := meta.Accessor(a.GetOldObject())
			if err != nil {
				return nil
			}
			after = resourceVersion(m)
		}
		// No growth passes, even over a cap that was lowered since. A scale
		// down is not counted before the cache shows it: it may yet fail,
		// and the limits rather count high than low.
		if newReplicas <= oldReplicas && !counted {
			return nil
		}
		if newReplicas > oldReplicas {
			if err := p.checkReplicas(a, name, newReplicas); err != nil {
				return err
			}
		}
		replicas, counted = newReplicas, true
	}
	if counted && !a.IsDryRun() {
		p.usage.admitLocked(gr.Resource, ns, name, replicas, after)
	}
	return nil
}

// checkCount applies the server's limit of gr's objects in the namespace,
// unless a ResourceQuota there counts them: then it is the quota's alone.
func (p *Plugin) checkCount(a admission.Attributes, gr schema.GroupResource) error {
	limit, flag := int64(p.opts.MaxSimulators), "--max-simulators-per-namespace"
	if gr == nodePools {
		limit, flag = int64(p.opts.MaxNodePools), "--max-nodepools-per-namespace"
	}
	if limit <= 0 {
		return nil
	}
	covered, err := p.quotaCounts(a.GetNamespace(), gr, a.GetObject())
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if covered {
		return nil
	}
	n, err := p.usage.countLocked(gr.Resource, a.GetNamespace())
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("counting %s: %w", gr, err))
	}
	if n+1 > limit {
		return admission.NewForbidden(a, fmt.Errorf("exceeded the server's limit of %d %s per namespace (%s), which holds where no ResourceQuota limits %s: the namespace has %d",
			limit, gr.Resource, flag, generic.ObjectCountQuotaResourceNameFor(gr), n))
	}
	return nil
}

// quotaCounts says whether a ResourceQuota of the namespace counts obj, as
// the ResourceQuota plugin decides it: one whose status.hard (what the
// quota controller found in force) names count/<resource>.sim.x-k8s.io.
func (p *Plugin) quotaCounts(namespace string, gr schema.GroupResource, obj runtime.Object) (bool, error) {
	quotas, err := p.quotas.ResourceQuotas(namespace).List(labels.Everything())
	if err != nil {
		return false, fmt.Errorf("reading the ResourceQuotas of namespace %s: %w", namespace, err)
	}
	for _, q := range quotas {
		if ok, err := p.evaluators[gr].Matches(q, obj); err == nil && ok {
			return true, nil
		}
	}
	return false, nil
}

// checkReplicas applies the cap on the sum of the namespace's nodepool
// replicas, with name at replicas.
func (p *Plugin) checkReplicas(a admission.Attributes, name string, replicas int64) error {
	limit := p.opts.MaxNodePoolReplicas
	if limit <= 0 {
		return nil
	}
	others, err := p.usage.replicasLocked(a.GetNamespace(), name)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("summing nodepool replicas: %w", err))
	}
	if others+replicas > limit {
		return admission.NewForbidden(a, fmt.Errorf("exceeded the server's limit of %d nodepool replicas per namespace (the sum of spec.replicas, --max-nodepool-replicas-per-namespace): requested %d, the namespace's other nodepools have %d",
			limit, replicas, others))
	}
	return nil
}

// replicasOf is the spec.replicas of a NodePool, or of its Scale on
// nodepools/scale.
func replicasOf(obj runtime.Object) (int64, bool) {
	switch o := obj.(type) {
	case *sim.NodePool:
		return int64(ptr.Deref(o.Spec.Replicas, 0)), true
	case *autoscalingv1.Scale:
		return int64(o.Spec.Replicas), true
	}
	return 0, false
}

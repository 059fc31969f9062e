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
	"fmt"
	"io"

	"github.com/spf13/pflag"
	"k8s.io/apiserver/pkg/admission"
	genericadmissioninitializer "k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/apiserver/pkg/admission/plugin/resourcequota"
	quota "k8s.io/apiserver/pkg/quota/v1"
	"k8s.io/apiserver/pkg/quota/v1/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"

	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	siminformers "sigs.k8s.io/simulator-apiserver/pkg/generated/informers/externalversions"
)

// Options are the server's limits per namespace; 0 is no limit.
type Options struct {
	// MaxSimulators and MaxNodePools hold in a namespace where no
	// ResourceQuota counts simulators or nodepools.
	MaxSimulators int32
	MaxNodePools  int32
	// MaxNodePoolReplicas bounds the sum of the namespace's nodepools'
	// spec.replicas, whatever its quotas.
	MaxNodePoolReplicas int64
}

// NewOptions returns the defaults: room for 2 pools of the largest size
// (--max-nodepool-replicas, 20000) and 5 of 10,000.
func NewOptions() *Options {
	return &Options{MaxSimulators: 50, MaxNodePools: 100, MaxNodePoolReplicas: 50000}
}

// AddFlags registers the limits' flags on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Int32Var(&o.MaxSimulators, "max-simulators-per-namespace", o.MaxSimulators, "The most simulators a namespace may hold where no ResourceQuota limits count/simulators.sim.x-k8s.io (0: no limit).")
	fs.Int32Var(&o.MaxNodePools, "max-nodepools-per-namespace", o.MaxNodePools, "The most nodepools a namespace may hold where no ResourceQuota limits count/nodepools.sim.x-k8s.io (0: no limit).")
	fs.Int64Var(&o.MaxNodePoolReplicas, "max-nodepool-replicas-per-namespace", o.MaxNodePoolReplicas, "The most Nodes the nodepools of a namespace may ask for together, the sum of their spec.replicas, whatever its ResourceQuotas (0: no limit).")
}

// Validate checks the flags.
func (o *Options) Validate() []error {
	var errs []error
	if o.MaxSimulators < 0 || o.MaxNodePools < 0 || o.MaxNodePoolReplicas < 0 {
		errs = append(errs, fmt.Errorf("--max-simulators-per-namespace, --max-nodepools-per-namespace and --max-nodepool-replicas-per-namespace must not be negative"))
	}
	return errs
}

// Register adds to a the ResourceQuota plugin and the server's limits,
// which read o when the admission chain is made (after the flags). They
// come last, ResourceQuota last of all, as in kube-apiserver: it charges
// the quota, which a later refusal would not give back.
func Register(a *genericoptions.AdmissionOptions, o *Options) {
	resourcequota.Register(a.Plugins)
	a.Plugins.Register(PluginName, func(io.Reader) (admission.Interface, error) { return NewPlugin(*o), nil })
	a.RecommendedPluginOrder = append(a.RecommendedPluginOrder, PluginName, resourcequota.PluginName)
}

// Initializers is RecommendedOptions.ExtraAdmissionInitializers: it makes
// the caches of the server's own objects, through its loopback, which a
// post-start hook starts, and initializes the plugins with them. /readyz
// does not wait for them: the whole API would be unavailable to the host
// (namespace deletion stalls cluster-wide) for the sake of the creates and
// scales of two resources, which wait for them instead (WaitForReady).
func Initializers(c *genericapiserver.RecommendedConfig) ([]admission.PluginInitializer, error) {
	client, err := simclientset.NewForConfig(c.LoopbackClientConfig)
	if err != nil {
		return nil, fmt.Errorf("making the loopback client of the limits: %w", err)
	}
	factory := siminformers.NewSharedInformerFactoryWithOptions(client, 0, siminformers.WithTransform(Trim))
	usage, err := NewUsage(factory)
	if err != nil {
		return nil, err
	}
	if err := c.AddPostStartHook("start-namespace-limits-informers", func(ctx genericapiserver.PostStartHookContext) error {
		factory.Start(ctx.Done())
		return nil
	}); err != nil {
		return nil, err
	}
	return []admission.PluginInitializer{NewInitializer(usage)}, nil
}

// Initializer gives the plugins the quota configuration of simulators and
// nodepools, and their usage.
type Initializer struct {
	usage  *Usage
	config quota.Configuration
}

// NewInitializer returns the initializer of usage.
func NewInitializer(usage *Usage) *Initializer {
	return &Initializer{usage: usage, config: QuotaConfiguration(usage)}
}

// Initialize gives p what it wants.
func (i *Initializer) Initialize(p admission.Interface) {
	if w, ok := p.(genericadmissioninitializer.WantsQuotaConfiguration); ok {
		w.SetQuotaConfiguration(i.config)
	}
	if w, ok := p.(*Plugin); ok {
		w.setUsage(i.usage)
	}
}

// QuotaConfiguration counts simulators and nodepools as objects, as the
// host's quota controller counts them (it finds them through discovery):
// count/simulators.sim.x-k8s.io and count/nodepools.sim.x-k8s.io.
func QuotaConfiguration(usage *Usage) quota.Configuration {
	return generic.NewConfiguration([]quota.Evaluator{
		generic.NewObjectCountEvaluator(simulators, usage.listFunc("simulators"), ""),
		generic.NewObjectCountEvaluator(nodePools, usage.listFunc("nodepools"), ""),
	}, nil)
}

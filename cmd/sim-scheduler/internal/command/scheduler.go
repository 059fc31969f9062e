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

// Package command is sim-scheduler's command, and the scheduler with its
// recorder for sim-control-plane to run.
package command

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/configz"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/version/verflag"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/recorder"
	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/sink"
)

// ResultOptions are the flags of the recording, next to kube-scheduler's.
type ResultOptions struct {
	dir      string
	maxBytes int64
	queue    int
	workers  int
}

func (o *ResultOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.dir, "results-dir", "/tmp/sim-scheduler/results", "Directory of the full scheduling results, in segment files (<seq>.log, and <seq>.idx saying where each Pod's result is).")
	fs.Int64Var(&o.maxBytes, "results-max-bytes", 512<<20, "Size the results in --results-dir may take together; the oldest segments go first.")
	fs.IntVar(&o.queue, "results-queue", 256, "Finished attempts waiting to be rendered (their API calls wait apart, 4 times as many); beyond, results are dropped rather than slow the scheduler.")
	fs.IntVar(&o.workers, "results-workers", 2, "Goroutines rendering results (files, annotations); 4 times as many make the API calls (annotations, Events).")
}

// NewSchedulerCommand is app.NewSchedulerCommand's command, running run
// instead.
func NewSchedulerCommand(registryOptions ...app.Option) *cobra.Command {
	opts := options.NewOptions()
	results := &ResultOptions{}
	cmd := &cobra.Command{
		Use:  "sim-scheduler",
		Long: "kube-scheduler that records every plugin's result of every scheduling attempt.",
		PersistentPreRunE: func(*cobra.Command, []string) error {
			return opts.ComponentGlobalsRegistry.Set()
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd, opts, results, registryOptions...)
		},
		Args: cobra.NoArgs,
	}
	nfs := opts.Flags
	verflag.AddFlags(nfs.FlagSet("global"))
	globalflag.AddGlobalFlags(nfs.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	results.AddFlags(nfs.FlagSet("scheduling results"))
	for _, f := range nfs.FlagSets {
		cmd.Flags().AddFlagSet(f)
	}
	cliflag.SetUsageAndHelpFunc(cmd, *nfs, 0)
	return cmd
}

// run is kube-scheduler's runCommand with the recorder put in between
// setting the scheduler up and running it.
func run(cmd *cobra.Command, opts *options.Options, results *ResultOptions, registryOptions ...app.Option) error {
	verflag.PrintAndExitIfRequested()
	fg := opts.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if err := logsapi.ValidateAndApply(opts.Logs, fg); err != nil {
		return err
	}
	cliflag.PrintFlags(cmd.Flags())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-server.SetupSignalHandler()
		cancel()
	}()
	fg.(featuregate.MutableFeatureGate).AddMetrics()
	opts.ComponentGlobalsRegistry.AddMetrics()
	return RunScheduler(ctx, opts, results, registryOptions...)
}

// schedulerConfigz is the name kube-scheduler's Run registers its
// configuration under (k8s.io/kubernetes/cmd/kube-scheduler/app).
const schedulerConfigz = "componentconfig"

// RunScheduler sets the scheduler up with the recorder in between and runs
// it until ctx is done. It leaves nothing of its run in the process (its
// informer name, its /configz entry, its listener), so that it can run
// again in it (sim-control-plane restarts it on a new configuration).
func RunScheduler(ctx context.Context, opts *options.Options, results *ResultOptions, registryOptions ...app.Option) error {
	name, err := cache.NewInformerName("kube-scheduler")
	if err != nil {
		return err
	}
	defer name.Release()
	opts.InformerName = name
	defer configz.Delete(schedulerConfigz)
	cc, sched, err := app.Setup(ctx, opts, registryOptions...)
	if err != nil {
		return err
	}
	// Serving closes the listener Setup opened once ctx is done; one never
	// served would keep the port from the next start in the process.
	if l := cc.SecureServing; l != nil && l.Listener != nil {
		defer func() { _ = l.Listener.Close() }()
	}
	store, err := sink.NewStore(results.dir, results.maxBytes)
	if err != nil {
		return fmt.Errorf("--results-dir: %w", err)
	}
	// The sink's client has a rate limiter of its own, so that annotating
	// Pods never takes from the scheduler's budget of binding calls.
	client, err := kubernetes.NewForConfig(rest.CopyConfig(cc.KubeConfig))
	if err != nil {
		return err
	}
	s := sink.New(client, cc.InformerFactory.Core().V1().Pods().Lister(), cc.EventBroadcaster.NewRecorder("sim-scheduler"), store, results.queue)
	if _, err := recorder.Instrument(sched, s); err != nil {
		return fmt.Errorf("recording scheduling results: %w", err)
	}
	go s.Run(ctx, results.workers)
	klog.FromContext(ctx).Info("Recording scheduling results", "dir", results.dir)
	return app.Run(ctx, cc, sched)
}

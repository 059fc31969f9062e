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

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/configz"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/command"
	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/sharedruntime"
)

// The components a control plane runs, by the names its command line
// gives them.
const (
	kubeAPIServer         = "kube-apiserver"
	kubeControllerManager = "kube-controller-manager"
	kwok                  = "kwok"
	simScheduler          = "sim-scheduler"
)

// schedulerConfigz is the name kube-scheduler's Run registers its
// configuration under (k8s.io/kubernetes/cmd/kube-scheduler/app).
const schedulerConfigz = "componentconfig"

// newCommand runs the components named on its command line in
// this one process, each with the arguments its own binary takes:
//
//	sim-control-plane kube-apiserver ARGS... --- kube-controller-manager ARGS... --- kwok ARGS... --- sim-scheduler ARGS...
//
// SIGHUP restarts sim-scheduler (the simulator sends it when the
// scheduler's configuration changed); SIGTERM and SIGINT stop them all,
// kube-apiserver last.
func newCommand(registryOptions ...app.Option) *cobra.Command {
	return &cobra.Command{
		Use:   "sim-control-plane COMPONENT ARGS... [--- COMPONENT ARGS...]...",
		Short: "Run kube-apiserver, kube-controller-manager, kwok and sim-scheduler in one process.",
		// Each component parses its own arguments.
		DisableFlagParsing: true,
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runControlPlane(cmd.Context(), args, registryOptions...)
		},
	}
}

func runControlPlane(ctx context.Context, args []string, registryOptions ...app.Option) error {
	sections, err := sharedruntime.Split(args, []string{kubeAPIServer, kubeControllerManager, kwok, simScheduler})
	if err != nil {
		return err
	}
	// Components' loopback clients must not log the warnings they cause.
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	var components []sharedruntime.Component
	// kwok's arguments are read first, before any other component runs
	// (sharedruntime.Kwok).
	if a, ok := sections[kwok]; ok {
		c, err := sharedruntime.Kwok(a)
		if err != nil {
			return err
		}
		components = append(components, c)
	}
	if a, ok := sections[kubeAPIServer]; ok {
		components = append(components, sharedruntime.KubeAPIServer(a))
	}
	if a, ok := sections[kubeControllerManager]; ok {
		components = append(components, sharedruntime.KubeControllerManager(a))
	}
	if a, ok := sections[simScheduler]; ok {
		components = append(components, schedulerComponent(a, registryOptions...))
	}
	rt := sharedruntime.New(components...)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-server.SetupSignalHandler()
		cancel()
	}()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if err := rt.Restart(simScheduler); err != nil {
					klog.FromContext(ctx).Error(err, "SIGHUP")
				}
			}
		}
	}()
	rt.Run(ctx)
	return nil
}

// schedulerComponent is sim-scheduler with args, its configuration read
// afresh at each start.
func schedulerComponent(args []string, registryOptions ...app.Option) sharedruntime.Component {
	return sharedruntime.Component{Name: simScheduler, Run: func(ctx context.Context) error {
		opts := options.NewOptions()
		results := &command.ResultOptions{}
		results.AddFlags(opts.Flags.FlagSet("scheduling results"))
		fs := pflag.NewFlagSet(simScheduler, pflag.ContinueOnError)
		for _, f := range opts.Flags.FlagSets {
			fs.AddFlagSet(f)
		}
		if err := fs.Parse(args); err != nil {
			return err
		}
		if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
			return err
		}
		name, err := cache.NewInformerName("kube-scheduler")
		if err != nil {
			return err
		}
		defer name.Release()
		// kube-scheduler registers its configuration for /configz once per
		// process; the one it ran before is gone with it.
		defer configz.Delete(schedulerConfigz)
		return command.RunScheduler(ctx, opts, results, name, registryOptions...)
	}}
}

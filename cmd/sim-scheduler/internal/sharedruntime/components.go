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

package sharedruntime

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/cache"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/configz"
	apiserverapp "k8s.io/kubernetes/cmd/kube-apiserver/app"
	apiserveroptions "k8s.io/kubernetes/cmd/kube-apiserver/app/options"
	kcmapp "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kcmoptions "k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
	kwokconfig "sigs.k8s.io/kwok/pkg/config"
	kwokcmd "sigs.k8s.io/kwok/pkg/kwok/cmd"
	kwoklog "sigs.k8s.io/kwok/pkg/log"

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/inprocess"
)

// ParseFlags parses args with the flags of sets, as the component's
// command would, but without the process-wide flags (logging, --version):
// the runtime configures those once.
func ParseFlags(name string, sets cliflag.NamedFlagSets, args []string) error {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	for _, f := range sets.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", name, fs.Args())
	}
	return nil
}

// KubeAPIServer is kube-apiserver with args: its command's RunE, without
// its signal handler (there is one per process) or its logging setup. It is
// a Server: not started again within the process. When local is not nil,
// it serves local's requests too, from the moment its handler is made
// until it stops (a client waits for /readyz as it would over the network).
func KubeAPIServer(args []string, local *inprocess.Transport) Component {
	return Component{Name: "kube-apiserver", Server: true, Run: func(ctx context.Context) error {
		s := apiserveroptions.NewServerRunOptions()
		if err := ParseFlags("kube-apiserver", s.Flags(), args); err != nil {
			return err
		}
		if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
			return err
		}
		completed, err := s.Complete(ctx)
		if err != nil {
			return err
		}
		if errs := completed.Validate(); len(errs) != 0 {
			return utilerrors.NewAggregate(errs)
		}
		return runKubeAPIServer(ctx, completed, local)
	}}
}

// runKubeAPIServer is kube-apiserver's app.Run, its handler served to local
// too.
func runKubeAPIServer(ctx context.Context, opts apiserveroptions.CompletedOptions, local *inprocess.Transport) error {
	if opts.InformerName == nil {
		name, err := cache.NewInformerName("kube-apiserver")
		if err != nil {
			return err
		}
		opts.InformerName = name
	}
	config, err := apiserverapp.NewConfig(opts)
	if err != nil {
		return err
	}
	completed, err := config.Complete()
	if err != nil {
		return err
	}
	server, err := apiserverapp.CreateServerChain(completed)
	if err != nil {
		return err
	}
	prepared, err := server.PrepareRun()
	if err != nil {
		return err
	}
	if local != nil {
		local.Serve(server.GenericAPIServer.Handler)
		defer local.Stop()
	}
	return prepared.Run(ctx)
}

// KubeControllerManager is kube-controller-manager with args, as its
// command's RunE without its logging setup.
func KubeControllerManager(args []string) Component {
	return Component{Name: "kube-controller-manager", Run: func(ctx context.Context) error {
		s, err := kcmoptions.NewKubeControllerManagerOptions()
		if err != nil {
			return err
		}
		sets := s.Flags(kcmapp.KnownControllers(), kcmapp.ControllersDisabledByDefault(), kcmapp.ControllerAliases())
		s.ParsedFlags = &sets
		if err := ParseFlags("kube-controller-manager", sets, args); err != nil {
			return err
		}
		if err := s.ComponentGlobalsRegistry.Set(); err != nil {
			return err
		}
		c, err := s.Config(ctx, kcmapp.KnownControllers(), kcmapp.ControllersDisabledByDefault(), kcmapp.ControllerAliases())
		if err != nil {
			return err
		}
		// Run registers its configuration for /configz once per process;
		// the one it ran before is gone with it.
		defer configz.Delete(kcmapp.ConfigzName)
		return kcmapp.Run(ctx, c.Complete())
	}}
}

// Kwok is the kwok controller with args. kwok reads its --config and -v
// from os.Args when its command is made, not from the arguments it is
// given: so os.Args is args while Kwok runs, which must be before any
// other component starts (nothing else reads os.Args after its start).
func Kwok(args []string) (Component, error) {
	saved := os.Args
	os.Args = append([]string{"kwok"}, args...)
	defer func() { os.Args = saved }()
	global := pflag.NewFlagSet("global", pflag.ContinueOnError)
	global.ParseErrorsAllowlist.UnknownFlags = true
	global.Usage = func() {}
	ctx, _ := kwoklog.InitFlags(context.Background(), global)
	ctx, err := kwokconfig.InitFlags(ctx, global)
	if err != nil {
		return Component{}, fmt.Errorf("kwok: %w", err)
	}
	// kwok reads its configuration (stages) and logger from the context.
	configured := ctx
	return Component{Name: "kwok", Run: func(ctx context.Context) error {
		kctx, cancel := context.WithCancel(configured)
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		cmd := kwokcmd.NewCommand(kctx)
		cmd.PersistentFlags().AddFlagSet(global)
		// kube's verflag holds the process's --version flag, of another
		// type than the one cobra would check for kwok's version.
		cmd.Version = ""
		cmd.SetArgs(args)
		return cmd.ExecuteContext(kctx)
	}}, nil
}

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
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/command"
	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/gcpacing"
	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/inprocess"
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

// newCommand runs the components named on its command line in
// this one process, each with the arguments its own binary takes:
//
//	sim-control-plane [--kubeconfig=PATH] kube-apiserver ARGS... --- kube-controller-manager ARGS... --- kwok ARGS... --- sim-scheduler ARGS...
//
// SIGHUP restarts sim-scheduler (the simulator sends it when the
// scheduler's configuration changed); --hold-socket serves holds of a
// component (the simulator holds kube-controller-manager while it imports);
// SIGTERM and SIGINT stop them all, kube-apiserver last.
func newCommand(registryOptions ...app.Option) *cobra.Command {
	return &cobra.Command{
		Use:   "sim-control-plane [--kubeconfig=PATH] COMPONENT ARGS... [--- COMPONENT ARGS...]...",
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
	known := []string{kubeAPIServer, kubeControllerManager, kwok, simScheduler}
	// Its own flags come first, before the first component's name.
	first := slices.IndexFunc(args, func(a string) bool { return slices.Contains(known, a) })
	if first < 0 {
		first = len(args)
	}
	fs := pflag.NewFlagSet("sim-control-plane", pflag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "Admin kubeconfig of the kube-apiserver it runs: kube-controller-manager and kwok start once kube-apiserver is ready through it, sim-scheduler once it serves; empty starts them all at once.")
	localServer := fs.String("in-process-server", "", "URL (http://HOST) at which the components reach kube-apiserver within the process, with no network (a kubeconfig naming it, with no credentials, serves them); empty serves none.")
	localCert := fs.String("in-process-client-certificate", "", "Client certificate (PEM) whose user (common name) and groups (organizations) the requests sent to --in-process-server are authenticated as, by a token kube-apiserver reads from a file beside --kubeconfig.")
	holdSocket := fs.String("hold-socket", "", "Unix socket (made with mode 0600) on which POST "+sharedruntime.HoldPath+"NAME holds component NAME stopped while the request lasts (the simulator holds kube-controller-manager while it imports); empty serves none.")
	readyExcludes := fs.StringSlice("ready-excludes", nil, "kube-apiserver's /readyz checks that kube-controller-manager and kwok do not wait for (post-start hooks whose objects the simulator writes itself).")
	pacing := gcpacing.Default
	fs.IntVar(&pacing.BusyPercent, "busy-gc-percent", pacing.BusyPercent, "The garbage collector's percent (as GOGC) while the process allocates at least --busy-alloc-rate; GOGC's own when idle. One not above GOGC's (0 among them): GOGC's always.")
	fs.Float64Var(&pacing.BusyRate, "busy-alloc-rate", pacing.BusyRate, "Bytes allocated a second at and above which the process is busy.")
	if err := fs.Parse(args[:first]); err != nil {
		return err
	}
	sections, err := sharedruntime.Split(args[first:], known)
	if err != nil {
		return err
	}
	// Installed before any client is made: client-go takes
	// http.DefaultTransport when it makes one.
	var local *inprocess.Transport
	if *localServer != "" {
		local, err = inprocess.New(*localServer, *localCert, http.DefaultTransport)
		if err != nil {
			return fmt.Errorf("--in-process-server: %w", err)
		}
		local.Install()
		// kube-apiserver knows the transport's token from a file beside
		// the kubeconfig, in the data directory (an image may have no
		// /tmp).
		if a, ok := sections[kubeAPIServer]; ok {
			if *kubeconfig == "" {
				return fmt.Errorf("--in-process-server needs --kubeconfig: the token file is written beside it")
			}
			if slices.ContainsFunc(a, func(arg string) bool { return strings.HasPrefix(arg, "--token-auth-file") }) {
				return fmt.Errorf("--in-process-server: kube-apiserver's --token-auth-file is the in-process one's")
			}
			path, err := local.TokenFile(filepath.Dir(*kubeconfig))
			if err != nil {
				return err
			}
			sections[kubeAPIServer] = append(a, "--token-auth-file="+path)
		}
	}
	// Started while kube-apiserver bootstraps, they would take its CPU and
	// then wait in their clients' backoffs.
	var whenReady, whenServing func(context.Context) error
	if *kubeconfig != "" {
		config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
		if err != nil {
			return fmt.Errorf("--kubeconfig: %w", err)
		}
		config.Timeout = 5 * time.Second
		client, err := rest.UnversionedRESTClientFor(withCodecs(config))
		if err != nil {
			return fmt.Errorf("--kubeconfig: %w", err)
		}
		whenReady, whenServing = answers(client, "/readyz", *readyExcludes...), answers(client, "/version")
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
		c.Wait = whenReady
		components = append(components, c)
	}
	if a, ok := sections[kubeAPIServer]; ok {
		components = append(components, sharedruntime.KubeAPIServer(a, local))
	}
	if a, ok := sections[kubeControllerManager]; ok {
		c := sharedruntime.KubeControllerManager(a)
		c.Wait = whenReady
		components = append(components, c)
	}
	if a, ok := sections[simScheduler]; ok {
		c := schedulerComponent(a, registryOptions...)
		c.Wait = whenServing
		components = append(components, c)
	}
	rt := sharedruntime.New(components...)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gcpacing.LimitToContainer(ctx)
	go gcpacing.Run(ctx, pacing)
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
	if *holdSocket != "" {
		if err := serveHolds(ctx, *holdSocket, rt); err != nil {
			return fmt.Errorf("--hold-socket: %w", err)
		}
	}
	rt.Run(ctx)
	return nil
}

// serveHolds serves rt's holds on the Unix socket path until ctx ends.
// Only its owner may connect: a hold stops a component.
func serveHolds(ctx context.Context, path string, rt *sharedruntime.Runtime) error {
	// One left by a previous process of the same simulator.
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	lis, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		lis.Close()
		return err
	}
	srv := &http.Server{
		Handler:           sharedruntime.HoldHandler(rt),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	go func() {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.FromContext(ctx).Error(err, "Serving holds ended", "socket", path)
		}
	}()
	return nil
}

// schedulerComponent is sim-scheduler with args, its configuration read
// afresh at each start.
func schedulerComponent(args []string, registryOptions ...app.Option) sharedruntime.Component {
	return sharedruntime.Component{Name: simScheduler, Run: func(ctx context.Context) error {
		opts := options.NewOptions()
		results := &command.ResultOptions{}
		results.AddFlags(opts.Flags.FlagSet("scheduling results"))
		if err := sharedruntime.ParseFlags(simScheduler, *opts.Flags, args); err != nil {
			return err
		}
		if err := opts.ComponentGlobalsRegistry.Set(); err != nil {
			return err
		}
		return command.RunScheduler(ctx, opts, results, registryOptions...)
	}}
}

// answers waits until kube-apiserver answers GET path, without the checks
// excluded, with a success.
func answers(client *rest.RESTClient, path string, excludes ...string) func(context.Context) error {
	return func(ctx context.Context) error {
		return wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			req := client.Get().AbsPath(path)
			for _, check := range excludes {
				req = req.Param("exclude", check)
			}
			return req.Do(ctx).Error() == nil, nil
		})
	}
}

// withCodecs gives config what an unversioned REST client needs.
func withCodecs(config *rest.Config) *rest.Config {
	config = rest.CopyConfig(config)
	config.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	return config
}

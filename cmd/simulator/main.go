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

// Command simulator runs inside each simulator Pod: it supervises the
// inner kube-apiserver, kube-scheduler and kwok controller, and serves the
// simulator API (KEP-159). It is configured by environment variables; see
// pkg/simulator/config.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/pkg/simulator/app"
	"sigs.k8s.io/simulator-apiserver/pkg/simulator/config"
)

func main() {
	os.Exit(cli.Run(newCommand()))
}

func newCommand() *cobra.Command {
	o := config.NewOptions()
	cmd := &cobra.Command{
		Use:   "simulator",
		Short: "Run a scheduler simulator: kube-apiserver, kube-scheduler and kwok, and the simulator API",
		Long: `Run a scheduler simulator: kube-apiserver, kube-scheduler and kwok as
supervised children, and the simulator API (health, scheduler configuration,
reset). Every flag has an environment variable, which wins when set.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.ApplyEnv(os.LookupEnv); err != nil {
				return err
			}
			o.Complete()
			if err := o.Validate(); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(klog.NewContext(context.Background(), klog.Background()), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			go func() {
				// A second signal ends the process at once.
				<-ctx.Done()
				stop()
			}()
			return app.Run(ctx, o)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

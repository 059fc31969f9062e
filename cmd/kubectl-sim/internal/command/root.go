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

// Package command holds kubectl-sim's commands. Each reaches a simulator
// through the host apiserver with the caller's own kubeconfig and flags (as
// kubectl takes them), at the subresources that sim-apiserver serves:
// simulators/NAME/kubeconfig, /proxy and /api.
package command

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/tools/clientcmd"
)

// Options are what every command shares: the streams and the caller's
// kubeconfig, with kubectl's flags (--kubeconfig, --context, -n, --as, ...).
type Options struct {
	genericiooptions.IOStreams
	loading   *clientcmd.ClientConfigLoadingRules
	overrides *clientcmd.ConfigOverrides
	config    clientcmd.ClientConfig
}

// New returns `kubectl sim` and its commands.
func New(streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{
		IOStreams: streams,
		loading:   clientcmd.NewDefaultClientConfigLoadingRules(),
		overrides: &clientcmd.ConfigOverrides{},
	}
	o.config = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(o.loading, o.overrides)
	cmd := &cobra.Command{
		Use:   "kubectl-sim",
		Short: "Use the scheduler simulators of sim.x-k8s.io",
		Long: `kubectl sim works with the simulators (sim.x-k8s.io/v1alpha1) of the host cluster,
through the host apiserver and with your own kubeconfig: what you may do is what
host RBAC grants you on simulators/kubeconfig, simulators/proxy and simulators/api.`,
		Annotations: map[string]string{
			// Help and usage say "kubectl sim", as kubectl runs it.
			cobra.CommandDisplayNameAnnotation: "kubectl sim",
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		// kubectl completes plugins through kubectl_complete-sim, not this.
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	// kubectl's own connection flags: those cli-runtime's ConfigFlags
	// binds, clientcmd's override flags and --kubeconfig, bound here
	// without ConfigFlags, whose package links cli-runtime's resource
	// builder and with it kustomize, which nothing here uses.
	flags := cmd.PersistentFlags()
	flags.StringVar(&o.loading.ExplicitPath, clientcmd.RecommendedConfigPathFlag, "", "Path to the kubeconfig file to use for CLI requests.")
	clientcmd.BindOverrideFlags(o.overrides, flags, clientcmd.RecommendedConfigOverrideFlags(""))
	cmd.AddCommand(
		newConnectCommand(o),
		newWhyCommand(o),
		newUICommand(o),
		newExportCommand(o),
		newImportCommand(o),
		newResetCommand(o),
	)
	return cmd
}

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

package command

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

type connectOptions struct {
	*Options
	contextName     string
	expiration      time.Duration
	hostCredentials bool
	use             bool
}

func newConnectCommand(root *Options) *cobra.Command {
	o := &connectOptions{Options: root}
	cmd := &cobra.Command{
		Use:   "connect NAME",
		Short: "Add a context for a simulator to your kubeconfig",
		Long: `Add a context for simulator NAME to your kubeconfig, as kubectl config set-context
would, so that kubectl --context CONTEXT works inside the simulator, through the host.

By default the context uses the kubeconfig that the simulator's kubeconfig subresource
hands out: a token of the simulator's own ServiceAccount, which may use its proxy and
nothing else, and never more than you hold on it (needs get simulators/kubeconfig;
the token expires, run connect again to renew it). With --use-host-credentials the
context goes through the same proxy with your own host credentials instead (your
current context's user; needs only simulators/proxy), and nothing secret is written.`,
		Example: `  kubectl sim connect example
  kubectl --context simulator-default-example get nodes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args[0]) },
	}
	cmd.Flags().StringVar(&o.contextName, "context-name", "", "Name of the context, cluster and user to write (default simulator-NAMESPACE-NAME)")
	cmd.Flags().DurationVar(&o.expiration, "expiration", 0, "How long the token stays valid, 10m to 24h (default: the server's, 1h)")
	cmd.Flags().BoolVar(&o.hostCredentials, "use-host-credentials", false, "Use your own host credentials (the current context's user) through the simulator's proxy, instead of a token")
	cmd.Flags().BoolVar(&o.use, "use", false, "Also make the new context the current one")
	return cmd
}

func (o *connectOptions) run(cmd *cobra.Command, name string) error {
	ctx := cmd.Context()
	c, ns, err := o.client()
	if err != nil {
		return err
	}
	contextName := o.contextName
	if contextName == "" {
		contextName = DefaultContextName(ns, name)
	}
	pathOptions := clientcmd.NewDefaultPathOptions()
	pathOptions.LoadingRules.ExplicitPath = o.loading.ExplicitPath
	start, err := pathOptions.GetStartingConfig()
	if err != nil {
		return err
	}

	var sim *clientcmdapi.Config
	var how string
	if o.hostCredentials {
		// The simulator must be there: a context to nothing helps no one.
		if _, err := c.call(ctx, http.MethodGet, simulatorPath(ns, name, "", ""), nil, nil); err != nil {
			return err
		}
		raw, err := o.config.RawConfig()
		if err != nil {
			return err
		}
		current := o.overrides.CurrentContext
		if current == "" {
			current = raw.CurrentContext
		}
		sim, err = HostCredentialsConfig(&raw, current, c.base.String()+simulatorPath(ns, name, "proxy", ""))
		if err != nil {
			return err
		}
		how = fmt.Sprintf("your own credentials (user %q of context %q)", sim.Contexts[sim.CurrentContext].AuthInfo, current)
	} else {
		query := url.Values{}
		if o.expiration != 0 {
			query.Set("expirationSeconds", strconv.FormatInt(int64(o.expiration.Seconds()), 10))
		}
		data, err := c.call(ctx, http.MethodGet, simulatorPath(ns, name, "kubeconfig", ""), query, nil)
		if err != nil {
			return err
		}
		if sim, err = clientcmd.Load(data); err != nil {
			return fmt.Errorf("the kubeconfig of simulator %s/%s: %w", ns, name, err)
		}
		expiration := o.expiration
		if expiration == 0 {
			expiration = time.Hour
		}
		how = fmt.Sprintf("a token of the simulator's ServiceAccount, valid for %s (until %s): run connect again to renew it",
			shortDuration(expiration), time.Now().Add(expiration).UTC().Format("15:04 MST"))
	}
	merged, err := MergeContext(start, sim, contextName, o.use)
	if err != nil {
		return fmt.Errorf("simulator %s/%s: %w", ns, name, err)
	}
	if err := clientcmd.ModifyConfig(pathOptions, *merged, true); err != nil {
		return err
	}
	out := o.Out
	fmt.Fprintf(out, "Context %q added for simulator %s/%s, through %s\n", contextName, ns, name, merged.Clusters[contextName].Server)
	fmt.Fprintf(out, "It uses %s.\n", how)
	fmt.Fprintf(out, "\n  kubectl --context %s get nodes\n", contextName)
	if o.use {
		fmt.Fprintf(out, "\nIt is the current context now; kubectl config use-context goes back.\n")
	} else {
		fmt.Fprintf(out, "  kubectl config use-context %s\n", contextName)
	}
	return nil
}

// shortDuration is d as a user would write it: 1h, 1h30m, 10m.
func shortDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// DefaultContextName is the name connect gives the context of simulator
// ns/name, the one the kubeconfig subresource gives it.
func DefaultContextName(ns, name string) string { return "simulator-" + ns + "-" + name }

// HostCredentialsConfig is a kubeconfig for the simulator proxy at server
// with the caller's own credentials: the cluster of host context
// hostContext with server instead of its own URL (its CA and TLS settings
// kept), and a context that names the host context's user, which it does
// not copy.
func HostCredentialsConfig(host *clientcmdapi.Config, hostContext, server string) (*clientcmdapi.Config, error) {
	hc, ok := host.Contexts[hostContext]
	if !ok {
		if hostContext == "" {
			return nil, fmt.Errorf("--use-host-credentials needs a current context in your kubeconfig")
		}
		return nil, fmt.Errorf("context %q is not in your kubeconfig", hostContext)
	}
	cluster, ok := host.Clusters[hc.Cluster]
	if !ok {
		return nil, fmt.Errorf("cluster %q of context %q is not in your kubeconfig", hc.Cluster, hostContext)
	}
	if _, ok := host.AuthInfos[hc.AuthInfo]; !ok {
		return nil, fmt.Errorf("user %q of context %q is not in your kubeconfig", hc.AuthInfo, hostContext)
	}
	simCluster := cluster.DeepCopy()
	simCluster.Server = server
	simCluster.LocationOfOrigin = ""
	const name = "simulator"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = simCluster
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: hc.AuthInfo, Namespace: "default"}
	cfg.CurrentContext = name
	return cfg, nil
}

// MergeContext returns start with the current context of sim, its cluster
// and its user written under name (a context, cluster and user of that
// name are replaced; others are kept). A context of sim whose user is not
// in sim names a user of start, which must be there; a user named name
// that the new context no longer uses (a token of an earlier connect) is
// removed. With use, the new context becomes the current one. Entries
// replaced stay in the file they were read from. start is not changed.
func MergeContext(start, sim *clientcmdapi.Config, name string, use bool) (*clientcmdapi.Config, error) {
	if name == "" {
		return nil, fmt.Errorf("a context needs a name")
	}
	simContext, ok := sim.Contexts[sim.CurrentContext]
	if !ok {
		return nil, fmt.Errorf("the simulator's kubeconfig has no current context")
	}
	simCluster, ok := sim.Clusters[simContext.Cluster]
	if !ok {
		return nil, fmt.Errorf("the simulator's kubeconfig has no cluster %q", simContext.Cluster)
	}
	out := start.DeepCopy()
	if out.Clusters == nil {
		out.Clusters = map[string]*clientcmdapi.Cluster{}
	}
	if out.AuthInfos == nil {
		out.AuthInfos = map[string]*clientcmdapi.AuthInfo{}
	}
	if out.Contexts == nil {
		out.Contexts = map[string]*clientcmdapi.Context{}
	}
	context := simContext.DeepCopy()
	context.Cluster = name
	if auth, ok := sim.AuthInfos[simContext.AuthInfo]; ok {
		auth = auth.DeepCopy()
		auth.LocationOfOrigin = ""
		if old, ok := start.AuthInfos[name]; ok {
			auth.LocationOfOrigin = old.LocationOfOrigin
		}
		out.AuthInfos[name] = auth
		context.AuthInfo = name
	} else {
		if _, ok := start.AuthInfos[simContext.AuthInfo]; !ok {
			return nil, fmt.Errorf("user %q is not in your kubeconfig", simContext.AuthInfo)
		}
		if simContext.AuthInfo != name {
			delete(out.AuthInfos, name)
		}
	}
	cluster := simCluster.DeepCopy()
	cluster.LocationOfOrigin = ""
	if old, ok := start.Clusters[name]; ok {
		cluster.LocationOfOrigin = old.LocationOfOrigin
	}
	out.Clusters[name] = cluster
	context.LocationOfOrigin = ""
	if old, ok := start.Contexts[name]; ok {
		context.LocationOfOrigin = old.LocationOfOrigin
	}
	out.Contexts[name] = context
	if use {
		out.CurrentContext = name
	}
	return out, nil
}

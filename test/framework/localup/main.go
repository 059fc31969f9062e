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

// Command localup starts a host cluster with a node and sim-apiserver
// registered in the foreground, for a person: hack/local-up.sh (`make run`)
// runs it. The state directory is wiped at start; Ctrl-C (SIGINT) or SIGTERM
// stops everything and undoes the node's changes to the machine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

func main() {
	klog.InitFlags(nil)
	dir := flag.String("dir", "", "state directory, wiped at start (default _output/local in the repository root)")
	withoutSim := flag.Bool("without-sim-apiserver", false, "start only the host control plane")
	withoutNode := flag.Bool("without-node", false, "start no node (kube-scheduler, kubelet, containerd); simulators then stay Pending, but root is not needed")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := framework.Options{Dir: *dir, WithoutSimAPIServer: *withoutSim, WithNode: !*withoutNode}
	if err := run(ctx, stop, opts); err != nil {
		fmt.Fprintf(os.Stderr, "local-up: %v\n", err)
		if errors.Is(err, framework.ErrNeedsRoot) {
			fmt.Fprintln(os.Stderr, "Run as root, or with --without-node for a cluster where simulators stay Pending.")
		}
		os.Exit(1)
	}
}

// run starts the cluster and blocks until ctx is done. stop restores the
// default signal handling, so that a second Ctrl-C kills at once (the
// children die with their parent).
func run(ctx context.Context, stop func(), opts framework.Options) error {
	if opts.Dir == "" {
		root, err := framework.RepoRoot()
		if err != nil {
			return err
		}
		opts.Dir = filepath.Join(root, "_output", "local")
	}
	// A node that was killed may have left containers and mounts in there.
	if err := framework.RecoverNode(ctx); err != nil {
		return err
	}
	if err := os.RemoveAll(opts.Dir); err != nil {
		return fmt.Errorf("wiping %s: %w", opts.Dir, err)
	}
	c, err := framework.StartCluster(ctx, opts)
	if err != nil {
		return err
	}
	defer c.Stop()

	fmt.Printf("\nHost cluster up: etcd, kube-apiserver (%s), kube-controller-manager.\n", c.Host)
	if c.NodeName != "" {
		fmt.Printf("Node %s: kube-scheduler, kubelet, containerd, kube-proxy; pods on %s, reachable from this machine.\n", c.NodeName, framework.PodSubnet)
	}
	if !opts.WithoutSimAPIServer {
		fmt.Printf("sim-apiserver (%s) is registered as APIService %s.\n", c.SimAPIServerURL(), framework.SimAPIService)
	}
	fmt.Printf(`State and logs: %s

  export KUBECONFIG=%s
  kubectl get apiservice %s
  kubectl api-resources --api-group=%s
  kubectl apply -f artifacts/examples/simulator.yaml
  kubectl wait --for=jsonpath='{.status.phase}'=Available simulator/example --timeout=120s

Press Ctrl-C to stop.
`, displayPath(c.Dir), displayPath(c.KubeconfigPath), framework.SimAPIService, framework.SimAPIGroup)

	<-ctx.Done()
	stop()
	fmt.Println("Stopping (Ctrl-C again to kill)...")
	return nil
}

// displayPath returns path as $PWD/<relative path> when it is under the
// working directory, for copy and paste.
func displayPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return path
	}
	return "$PWD/" + rel
}

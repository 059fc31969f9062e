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

// Command kubectl-sim is a kubectl plugin (`kubectl sim`, krew-style: kubectl
// runs any kubectl-* on PATH) for the simulators of sim.x-k8s.io: connect,
// why, ui, export, import and reset. It uses the caller's own kubeconfig
// and the simulators' subresources, nothing of its own on the server.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"sigs.k8s.io/simulator-apiserver/cmd/kubectl-sim/internal/command"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	err := command.New(streams).ExecuteContext(ctx)
	stop()
	if err != nil {
		command.PrintError(os.Stderr, err)
		os.Exit(1)
	}
}

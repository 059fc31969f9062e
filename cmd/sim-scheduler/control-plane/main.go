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

// Command sim-control-plane runs kube-apiserver, kube-controller-manager,
// kwok and sim-scheduler in one process, each with the arguments its own
// binary takes: one Go runtime and one copy of their code for a simulator's
// control plane (SIMULATOR_SHARED_RUNTIME=true). A binary of its own, so
// that sim-scheduler run alone does not load and initialize the others.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // for JSON log format registration
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version" // for version metric registration

	"sigs.k8s.io/simulator-apiserver/cmd/sim-scheduler/internal/command"
)

func main() {
	os.Exit(cli.Run(newCommand(command.OutOfTreePlugins()...)))
}

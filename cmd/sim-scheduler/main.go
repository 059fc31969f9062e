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

// Command sim-scheduler is kube-scheduler, built from the same sources
// (k8s.io/kubernetes/cmd/kube-scheduler/app) with the same flags and
// configuration, that also records what every plugin returned at every
// extension point of every scheduling attempt: on the Pod as annotations
// and an Event, and in full in segment files under --results-dir, which the
// simulator's HTTP API serves.
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
	os.Exit(cli.Run(command.NewSchedulerCommand(command.OutOfTreePlugins()...)))
}

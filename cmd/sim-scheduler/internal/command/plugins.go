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
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// OutOfTreePlugins are the plugins sim-scheduler knows besides kube's
// in-tree ones. Adding one is one line here, as with kube-scheduler:
//
//	app.WithPlugin(myplugin.Name, myplugin.New),
//
// (and its module in go.mod). A KubeSchedulerConfiguration then enables it
// like any other plugin, and its results are recorded like the others'.
func OutOfTreePlugins() []app.Option {
	return []app.Option{}
}

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
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// generatedPlugins is the list sim-apiserver validates a scenario's
// scheduler configurations against (hack/tools/schedulerplugins writes it).
const generatedPlugins = "../../../../pkg/apis/sim/validation/zz_generated.scheduler_plugins.go"

// TestValidatedPluginNames: the plugins sim-apiserver lets a scenario's
// variant name are the ones this scheduler has, in-tree and out-of-tree.
// hack/tools/schedulerplugins generates the list from the in-tree registry
// of the k8s.io/kubernetes hack/tools pins: this fails when that pin and
// this module's differ, or when OutOfTreePlugins registers a plugin the
// generator does not list (teach it the plugin: import its package in
// hack/tools and add its name there, then run hack/update-codegen.sh).
func TestValidatedPluginNames(t *testing.T) {
	registry := plugins.NewInTreeRegistry()
	outOfTree := frameworkruntime.Registry{}
	for _, opt := range OutOfTreePlugins() {
		if err := opt(outOfTree); err != nil {
			t.Fatalf("registering the out-of-tree plugins: %v", err)
		}
	}
	if err := registry.Merge(outOfTree); err != nil {
		t.Fatalf("an out-of-tree plugin has an in-tree plugin's name: %v", err)
	}
	want := slices.Sorted(maps.Keys(registry))
	got, err := namesIn(generatedPlugins)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s lists other plugins than sim-scheduler has (-sim-scheduler +validated):\n%s", generatedPlugins, diff)
	}
}

// namesIn returns the string literals of the generated file's
// schedulerPlugins.
func namesIn(path string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if ok && lit.Kind == token.STRING {
			s, err := strconv.Unquote(lit.Value)
			if err == nil {
				names = append(names, s)
			}
		}
		return true
	})
	return names, nil
}

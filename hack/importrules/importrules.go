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

// Package importrules holds the project's layering as data, checked by its
// test (make verify) against what `go list` says every package imports:
// the API stays data and pure functions, the contract and the other leaves
// stay standard library only, reconcilers never reach into the server's
// storage, and the server and the simulator image share the contract alone.
package importrules

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the root module's path.
const Module = "sigs.k8s.io/simulator-apiserver"

// Leaves are the project's packages that import the standard library alone,
// so that anything, the API included, may import them.
var Leaves = []string{
	Module + "/pkg/contract",     // what the server and the simulator image agree on
	Module + "/pkg/nodetemplate", // the per-index template language of NodePools
	Module + "/pkg/version",
	Module + "/pkg/webview", // the web view's embedded assets (simulators/ui)
}

// Package is what a rule needs of a package: its path and its non-test
// imports (tests may import anything the compiler allows).
type Package struct {
	ImportPath string
	Imports    []string
}

// Rule forbids the packages it applies to some imports.
type Rule struct {
	Name    string
	Applies func(pkg string) bool
	Allowed func(imp string) bool
}

// Violation is one forbidden import.
type Violation struct {
	Rule, Package, Import string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s imports %s: %s", v.Package, v.Import, v.Rule)
}

// Rules are the project's import rules.
var Rules = []Rule{
	{
		Name:    "a leaf imports the standard library only",
		Applies: func(pkg string) bool { return slices.Contains(Leaves, pkg) },
		Allowed: standard,
	},
	{
		Name:    "pkg/apis imports only apimachinery, k8s.io/api, k8s.io/utils, kube-scheduler's config types, its own packages and the leaves",
		Applies: under(Module + "/pkg/apis"),
		Allowed: anyOf(standard, leaf, under(Module+"/pkg/apis"),
			under("k8s.io/apimachinery"), under("k8s.io/api"), under("k8s.io/utils"),
			// The fuzzer's random source, the parser of image
			// references that validation checks spec.image with, and the
			// KubeSchedulerConfiguration types (data only) that it
			// decodes a scenario's variants with.
			under("sigs.k8s.io/randfill"), under("github.com/distribution/reference"),
			under("k8s.io/kube-scheduler/config/v1")),
	},
	{
		Name:    "a controller never imports the registry (the server's storage)",
		Applies: under(Module + "/pkg/controller"),
		Allowed: not(under(Module + "/pkg/registry")),
	},
	{
		Name:    "the server's packages never import a command's or a test's",
		Applies: under(Module + "/pkg"),
		Allowed: not(anyOf(under(Module+"/cmd"), under(Module+"/test"), under(Module+"/hack"))),
	},
	{
		Name:    "the simulator image shares only the contract (and the results' format, and the check of a user's kubeconfig) with the server, and the hold of a component with sim-scheduler",
		Applies: under(Module + "/cmd/simulator"),
		Allowed: anyOf(not(under(Module)), under(Module+"/cmd/simulator"),
			leaf, under(Module+"/pkg/schedulingresult"), under(Module+"/pkg/inlinekubeconfig"), under(Module+"/pkg/hold")),
	},
	{
		Name:    "what the simulator image shares with the server imports nothing else of the module",
		Applies: under(Module + "/pkg/inlinekubeconfig"),
		Allowed: anyOf(not(under(Module)), leaf),
	},
	{
		Name:    "kubectl sim is a client of the subresources like any other: of this module it imports its own packages, the leaves and the results' format alone",
		Applies: under(Module + "/cmd/kubectl-sim"),
		Allowed: anyOf(not(under(Module)), under(Module+"/cmd/kubectl-sim"), leaf, under(Module+"/pkg/schedulingresult")),
	},
	{
		Name:    "nothing outside the simulator image imports its internals",
		Applies: not(under(Module + "/cmd/simulator")),
		Allowed: not(under(Module + "/cmd/simulator/internal")),
	},
}

// Check returns every import of pkgs that a rule forbids.
func Check(rules []Rule, pkgs []Package) []Violation {
	var out []Violation
	for _, p := range pkgs {
		for _, r := range rules {
			if !r.Applies(p.ImportPath) {
				continue
			}
			for _, imp := range p.Imports {
				if !r.Allowed(imp) {
					out = append(out, Violation{Rule: r.Name, Package: p.ImportPath, Import: imp})
				}
			}
		}
	}
	return out
}

// standard says whether an import path is the standard library's: its
// first element has no dot, as go/build decides for GOROOT paths ("C" is
// cgo's).
func standard(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".") && imp != "C"
}

func leaf(imp string) bool { return slices.Contains(Leaves, imp) }

// under says whether a path is prefix or below it.
func under(prefix string) func(string) bool {
	return func(p string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }
}

func not(f func(string) bool) func(string) bool { return func(s string) bool { return !f(s) } }

func anyOf(fs ...func(string) bool) func(string) bool {
	return func(s string) bool {
		for _, f := range fs {
			if f(s) {
				return true
			}
		}
		return false
	}
}

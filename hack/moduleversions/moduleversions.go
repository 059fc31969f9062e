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

// Package moduleversions checks that the project's Go modules (the main
// one, cmd/sim-scheduler and the pinned tools of hack/tools) require every
// dependency they share at one version. Two versions of one module compile
// every package that imports it twice, on a fresh machine and in CI, and
// mix two copies of a library in the binaries of one simulator.
package moduleversions

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/mod/modfile"
)

// Modules are the go.mod files that must agree, from the repository root.
var Modules = []string{"go.mod", "cmd/sim-scheduler/go.mod", "hack/tools/go.mod"}

// Versions reads a go.mod file: the version of each module it requires,
// after its replace directives (kube's staging modules are required at
// v0.0.0 and replaced by a release).
func Versions(name string, data []byte) (map[string]string, error) {
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	out := make(map[string]string, len(f.Require))
	for _, r := range f.Require {
		out[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range f.Replace {
		if _, ok := out[r.Old.Path]; !ok || r.New.Version == "" {
			// A replace by a directory (the project's own modules) is
			// no version to compare.
			continue
		}
		if r.Old.Version == "" || r.Old.Version == out[r.Old.Path] {
			out[r.Old.Path] = r.New.Version
		}
	}
	return out, nil
}

// Mismatch is a module two files require at two versions.
type Mismatch struct {
	Path            string
	FileA, VersionA string
	FileB, VersionB string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s: %s requires %s, %s requires %s", m.Path, m.FileA, m.VersionA, m.FileB, m.VersionB)
}

// Compare returns the modules that files (name → versions) require at
// different versions, by path, each against the first file that names it.
func Compare(names []string, versions map[string]map[string]string) []Mismatch {
	var out []Mismatch
	first := map[string]string{} // module path → the first file that requires it
	for _, name := range names {
		paths := make([]string, 0, len(versions[name]))
		for p := range versions[name] {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			a, seen := first[p]
			if !seen {
				first[p] = name
				continue
			}
			if va, vb := versions[a][p], versions[name][p]; va != vb {
				out = append(out, Mismatch{Path: p, FileA: a, VersionA: va, FileB: name, VersionB: vb})
			}
		}
	}
	return out
}

// Check reads Modules under root and returns their mismatches.
func Check(root string) ([]Mismatch, error) {
	versions := map[string]map[string]string{}
	for _, name := range Modules {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		if versions[name], err = Versions(name, data); err != nil {
			return nil, err
		}
	}
	return Compare(Modules, versions), nil
}

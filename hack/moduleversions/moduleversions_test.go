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

package moduleversions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepository: the project's modules agree on every shared dependency.
func TestRepository(t *testing.T) {
	mismatches, err := Check("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mismatches {
		t.Errorf("%s: one version for every module (go get it at one version in each), or its packages are compiled twice", m)
	}
}

// TestCompare: a planted second version fails, replaces count, and a
// module only one file requires is no mismatch.
func TestCompare(t *testing.T) {
	root := []byte(`module example.com/root
go 1.26.0
require (
	golang.org/x/sys v0.47.0
	k8s.io/api v0.37.2
	example.com/only v1.0.0
	example.com/own v0.0.0
)
replace example.com/own => ./own
`)
	tools := []byte(`module example.com/tools
go 1.26.0
require (
	golang.org/x/sys v0.49.0
	k8s.io/api v0.0.0
	example.com/own v0.0.0
)
replace k8s.io/api => k8s.io/api v0.37.2
replace example.com/own => ../own
`)
	versions := map[string]map[string]string{}
	for name, data := range map[string][]byte{"go.mod": root, "hack/tools/go.mod": tools} {
		v, err := Versions(name, data)
		if err != nil {
			t.Fatal(err)
		}
		versions[name] = v
	}
	got := Compare([]string{"go.mod", "hack/tools/go.mod"}, versions)
	want := []Mismatch{{Path: "golang.org/x/sys", FileA: "go.mod", VersionA: "v0.47.0", FileB: "hack/tools/go.mod", VersionB: "v0.49.0"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
}

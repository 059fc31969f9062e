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

package importrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepository: no package of the module imports what a rule forbids.
func TestRepository(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Error", Module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var pkgs []Package
	for {
		var p struct {
			Package
			Error *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Errorf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p.Package)
	}
	// The rules must see the packages they are about.
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[p.ImportPath] = true
	}
	for _, want := range append([]string{Module + "/pkg/apis/sim/validation", Module + "/pkg/controller/nodepool", Module + "/cmd/simulator/internal/server", Module + "/cmd/kubectl-sim/internal/command"}, Leaves...) {
		if !seen[want] {
			t.Errorf("go list did not list %s", want)
		}
	}
	for _, v := range Check(Rules, pkgs) {
		t.Error(v)
	}
}

// TestRules: each rule reports a planted forbidden import, and lets the
// allowed ones pass.
func TestRules(t *testing.T) {
	m := Module + "/"
	pkgs := []Package{
		{m + "pkg/contract", []string{"strconv", "k8s.io/apimachinery/pkg/util/sets"}},
		{m + "pkg/nodetemplate", []string{"text/template", m + "pkg/apis/sim"}},
		{m + "pkg/apis/sim/validation", []string{"k8s.io/api/core/v1", "k8s.io/apimachinery/pkg/util/validation/field", m + "pkg/contract", m + "pkg/nodetemplate", m + "pkg/backing"}},
		{m + "pkg/apis/sim/v1alpha1", []string{m + "pkg/apis/sim", "k8s.io/client-go/kubernetes"}},
		{m + "pkg/controller/nodepool", []string{m + "pkg/apis/sim", m + "pkg/registry/sim/nodepool"}},
		{m + "pkg/backing", []string{m + "pkg/contract", m + "cmd/simulator/internal/config", m + "test/framework"}},
		{m + "cmd/simulator/internal/app", []string{m + "cmd/simulator/internal/server", m + "pkg/contract", m + "pkg/schedulingresult", "k8s.io/client-go/rest", m + "pkg/backing"}},
		{m + "test/e2e", []string{m + "pkg/backing", m + "cmd/simulator/internal/server"}},
		{m + "cmd/kubectl-sim/internal/command", []string{m + "pkg/contract", "k8s.io/client-go/rest", m + "pkg/inner"}},
	}
	var got []string
	for _, v := range Check(Rules, pkgs) {
		got = append(got, strings.TrimPrefix(v.Package, m)+" -> "+strings.TrimPrefix(v.Import, m))
	}
	want := []string{
		"pkg/contract -> k8s.io/apimachinery/pkg/util/sets",
		"pkg/nodetemplate -> pkg/apis/sim",
		"pkg/apis/sim/validation -> pkg/backing",
		"pkg/apis/sim/v1alpha1 -> k8s.io/client-go/kubernetes",
		"pkg/controller/nodepool -> pkg/registry/sim/nodepool",
		"pkg/backing -> cmd/simulator/internal/config",
		"pkg/backing -> test/framework",
		"pkg/backing -> cmd/simulator/internal/config",
		"cmd/simulator/internal/app -> pkg/backing",
		"test/e2e -> cmd/simulator/internal/server",
		"cmd/kubectl-sim/internal/command -> pkg/inner",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

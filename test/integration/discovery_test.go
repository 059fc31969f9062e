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

package integration

import (
	"regexp"
	"strings"
	"testing"
)

func TestAPIResources(t *testing.T) {
	c := hostCluster(t)
	out, err := kubectl(t, c.KubeconfigPath, "api-resources", "--api-group=sim.x-k8s.io")
	if err != nil {
		t.Fatal(err)
	}
	// NAME SHORTNAMES APIVERSION NAMESPACED KIND
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		fields := strings.Fields(line)
		got[fields[0]] = fields
	}
	for _, want := range []struct {
		name, shortName, kind string
	}{
		{name: "simulators", shortName: "sim", kind: "Simulator"},
		{name: "nodepools", shortName: "np", kind: "NodePool"},
		{name: "scenarios", shortName: "scn", kind: "Scenario"},
	} {
		fields, ok := got[want.name]
		if !ok {
			t.Errorf("resource %s not listed; kubectl api-resources printed:\n%s", want.name, out)
			continue
		}
		if len(fields) != 5 || fields[1] != want.shortName || fields[2] != "sim.x-k8s.io/v1alpha1" || fields[4] != want.kind {
			t.Errorf("resource %s: got %q, want short name %s, API version sim.x-k8s.io/v1alpha1, kind %s; kubectl api-resources printed:\n%s",
				want.name, fields, want.shortName, want.kind, out)
		}
	}
}

func TestExplain(t *testing.T) {
	c := hostCluster(t)
	// kubectl explain reads OpenAPI v3 through the aggregator.
	raw, err := c.Client.Discovery().RESTClient().Get().AbsPath("/openapi/v3/apis/sim.x-k8s.io/v1alpha1").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("getting OpenAPI v3 of sim.x-k8s.io/v1alpha1: %v", err)
	}
	if !strings.Contains(string(raw), "podTemplate") {
		t.Errorf("OpenAPI v3 of sim.x-k8s.io/v1alpha1 does not mention podTemplate")
	}

	if !strings.Contains(string(raw), "schedulerConfiguration") {
		t.Errorf("OpenAPI v3 of sim.x-k8s.io/v1alpha1 does not mention the scenarios' schedulerConfiguration")
	}

	out, err := kubectl(t, c.KubeconfigPath, "explain", "simulator.spec.podTemplate")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`GROUP:\s+sim\.x-k8s\.io`, `KIND:\s+Simulator`, `VERSION:\s+v1alpha1`, `FIELD:\s+podTemplate`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("kubectl explain output does not match %q:\n%s", want, out)
		}
	}
}

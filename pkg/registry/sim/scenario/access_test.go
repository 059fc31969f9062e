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

package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/sim/simulator"
)

// review renders an access review as "verb resource[/subresource] [name]"
// with the group when it is not core.
func review(a authorizer.Attributes) string {
	s := a.GetVerb() + " " + a.GetResource()
	if a.GetAPIGroup() != "" {
		s += "." + a.GetAPIGroup()
	}
	if a.GetSubresource() != "" {
		s += "/" + a.GetSubresource()
	}
	if a.GetName() != "" {
		s += " " + a.GetName()
	}
	return s
}

// TestAccess: a new scenario needs its creator's own rights to what it
// makes the server do, each asked of the host for the caller in the
// scenario's namespace; the first refusal is a 403 naming what is missing
// and the field that needs it.
func TestAccess(t *testing.T) {
	ctx := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "tenant"})
	withVariants := func(mutate func(*sim.ScenarioSpec)) *sim.Scenario {
		s := newScenario()
		mutate(&s.Spec)
		return s
	}
	for _, tc := range []struct {
		name string
		s    *sim.Scenario
		// want are the reviews asked when all are allowed.
		want []string
		// deny is the review refused in the second run; wantMsg is in its 403.
		deny, wantMsg string
	}{{
		name: "variants: create simulators",
		s:    newScenario(),
		want: []string{"create simulators.sim.x-k8s.io"},
		deny: "create simulators.sim.x-k8s.io", wantMsg: "spec.variants",
	}, {
		name: "variants with a shaped Pod and a source Secret: create pods, get the Secret",
		s: withVariants(func(s *sim.ScenarioSpec) {
			s.Simulator.Image = "example.com/other:v1"
			s.Simulator.Source = &sim.SimulatorSource{SecretName: "prod", Mode: sim.SourceModeOnce, QPS: 50}
		}),
		want: []string{"create simulators.sim.x-k8s.io", "get secrets prod", "create pods"},
		deny: "create pods", wantMsg: "spec.simulator.image",
	}, {
		name: "variants in a hosting cluster: get its kubeconfig Secret",
		s: withVariants(func(s *sim.ScenarioSpec) {
			s.Simulator.Hosting = &sim.SimulatorHosting{SecretName: "cluster-b", Namespace: "sims", Route: sim.SimulatorHostingRoutePodsProxy}
		}),
		want: []string{"create simulators.sim.x-k8s.io", "get secrets cluster-b"},
		deny: "get secrets cluster-b", wantMsg: "spec.simulator.hosting.secretName",
	}, {
		name: "simulators and pools: drive each simulator's API, create nodepools",
		s: withVariants(func(s *sim.ScenarioSpec) {
			s.Variants, s.Simulators = nil, []string{"alpha", "beta"}
			s.NodePools = []sim.ScenarioNodePool{{Name: "small"}}
		}),
		want: []string{"create simulators.sim.x-k8s.io/api alpha", "create simulators.sim.x-k8s.io/api beta", "create nodepools.sim.x-k8s.io"},
		deny: "create nodepools.sim.x-k8s.io", wantMsg: "spec.nodePools",
	}, {
		name: "initial export: get the simulator's API",
		s:    withVariants(func(s *sim.ScenarioSpec) { s.Initial = &sim.ScenarioInitial{SimulatorName: "prod-copy"} }),
		want: []string{"create simulators.sim.x-k8s.io", "get simulators.sim.x-k8s.io/api prod-copy"},
		deny: "get simulators.sim.x-k8s.io/api prod-copy", wantMsg: "spec.initial.simulatorName",
	}, {
		name: "initial source: get its Secret",
		s: withVariants(func(s *sim.ScenarioSpec) {
			s.Initial = &sim.ScenarioInitial{Source: &sim.SimulatorSource{SecretName: "prod", Mode: sim.SourceModeOnce}}
		}),
		want: []string{"create simulators.sim.x-k8s.io", "get secrets prod"},
		deny: "get secrets prod", wantMsg: "spec.initial.source.secretName",
	}, {
		name: "ConfigMaps of the timeline and the trace, each once",
		s: withVariants(func(s *sim.ScenarioSpec) {
			s.Timeline = []sim.ScenarioStep{
				{Create: &sim.ScenarioObjects{ConfigMapName: "workload"}},
				{Delete: &sim.ScenarioObjects{ConfigMapName: "workload"}},
				{Delete: &sim.ScenarioObjects{ConfigMapName: "cleanup"}},
			}
			s.Trace = &sim.ScenarioTrace{ConfigMapName: "trace"}
		}),
		want: []string{"create simulators.sim.x-k8s.io", "get configmaps workload", "get configmaps cleanup", "get configmaps trace"},
		deny: "get configmaps cleanup", wantMsg: "spec.timeline[2].delete.configMapName",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			a := access{simulator.NewAccess(authorizer.AuthorizerFunc(func(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
				if attrs.GetUser().GetName() != "tenant" || attrs.GetNamespace() != "ns" || !attrs.IsResourceRequest() {
					t.Errorf("review %+v, want tenant's in ns", attrs)
				}
				asked = append(asked, review(attrs))
				return authorizer.DecisionAllow, "", nil
			}))}
			if err := a.createValidation(nil)(ctx, tc.s); err != nil {
				t.Fatalf("allowed everything: %v", err)
			}
			if diff := cmp.Diff(tc.want, asked); diff != "" {
				t.Errorf("reviews (-want +got):\n%s", diff)
			}
		})
		t.Run(tc.name+", refused", func(t *testing.T) {
			a := access{simulator.NewAccess(authorizer.AuthorizerFunc(func(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
				if review(attrs) == tc.deny {
					return authorizer.DecisionDeny, "no RBAC", nil
				}
				return authorizer.DecisionAllow, "", nil
			}))}
			err := a.createValidation(nil)(ctx, tc.s)
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `user "tenant" cannot `+tc.deny) ||
				!strings.Contains(err.Error(), tc.wantMsg) || !strings.Contains(err.Error(), `scenarios.sim.x-k8s.io "binpack"`) {
				t.Errorf("err = %v, want a 403 for the scenario naming %q and %s", err, tc.deny, tc.wantMsg)
			}
		})
	}
}

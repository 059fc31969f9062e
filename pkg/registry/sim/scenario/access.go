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
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/registry/sim/simulator"
)

// access keeps a scenario from being a way around host RBAC: the server
// makes its simulators and NodePools, reads its ConfigMaps and Secrets and
// drives the simulators' API with its own identity, so the caller who
// creates it must be allowed each of these themselves. The checks are the
// simulators' (simulator.Access, a SubjectAccessReview for the caller);
// they are made once, at create, as the spec is immutable.
type access struct {
	simulator.Access
}

func simResource(verb, resource, subresource, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{Verb: verb, APIGroup: sim.GroupName, APIVersion: v1alpha1.SchemeGroupVersion.Version,
		Resource: resource, Subresource: subresource, Name: name}
}

// check makes every check a new scenario needs, and answers the first
// refusal as a 403 naming what is missing and which field needs it.
func (a access) check(ctx context.Context, s *sim.Scenario) error {
	t := simulator.Target{Resource: sim.Resource("scenarios"), Namespace: s.Namespace, Name: s.Name}
	spec := &s.Spec
	if len(spec.Variants) > 0 {
		if err := a.Allowed(ctx, t, simResource("create", "simulators", "", ""),
			"which spec.variants needs (the server creates a simulator for each variant)"); err != nil {
			return err
		}
		// The variants' simulators are made from spec.simulator, as if
		// the caller created them.
		if err := a.SimulatorSpec(ctx, t, &spec.Simulator, "spec.simulator"); err != nil {
			return err
		}
	}
	for i, name := range spec.Simulators {
		if err := a.Allowed(ctx, t, simResource("create", "simulators", "api", name),
			fmt.Sprintf("which spec.simulators[%d] needs (the server runs the workload through the simulator's API)", i)); err != nil {
			return err
		}
	}
	if len(spec.NodePools) > 0 {
		if err := a.Allowed(ctx, t, simResource("create", "nodepools", "", ""),
			"which spec.nodePools needs (the server creates them in each simulator)"); err != nil {
			return err
		}
	}
	if in := spec.Initial; in != nil {
		if in.SimulatorName != "" {
			if err := a.Allowed(ctx, t, simResource("get", "simulators", "api", in.SimulatorName),
				"which spec.initial.simulatorName needs (the server reads that simulator's export through its API)"); err != nil {
				return err
			}
		}
		if in.Source != nil && in.Source.SecretName != "" {
			if err := a.Allowed(ctx, t, authorizer.AttributesRecord{Verb: "get", APIVersion: "v1", Resource: "secrets", Name: in.Source.SecretName},
				"which spec.initial.source.secretName needs (the Secret is mounted into the simulators' Pods)"); err != nil {
				return err
			}
		}
	}
	named := configMapsNamed(spec)
	for _, fld := range slices.Sorted(maps.Keys(named)) {
		if err := a.Allowed(ctx, t, authorizer.AttributesRecord{Verb: "get", APIVersion: "v1", Resource: "configmaps", Name: named[fld]},
			fmt.Sprintf("which %s needs (the server reads the ConfigMap)", fld)); err != nil {
			return err
		}
	}
	return nil
}

// configMapsNamed are the ConfigMaps a spec names for the server to read,
// by the field that names them; each ConfigMap once, at its first field.
func configMapsNamed(spec *sim.ScenarioSpec) map[string]string {
	named := map[string]string{}
	seen := map[string]bool{}
	add := func(fld, name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			named[fld] = name
		}
	}
	for i, step := range spec.Timeline {
		if step.Create != nil {
			add(fmt.Sprintf("spec.timeline[%d].create.configMapName", i), step.Create.ConfigMapName)
		}
		if step.Delete != nil {
			add(fmt.Sprintf("spec.timeline[%d].delete.configMapName", i), step.Delete.ConfigMapName)
		}
	}
	if spec.Trace != nil {
		add("spec.trace.configMapName", spec.Trace.ConfigMapName)
	}
	return named
}

func (a access) createValidation(next rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		if next != nil {
			if err := next(ctx, obj); err != nil {
				return err
			}
		}
		return a.check(ctx, obj.(*sim.Scenario))
	}
}

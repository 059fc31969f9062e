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
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
	"sigs.k8s.io/simulator-apiserver/pkg/version"
)

func newScenario() *sim.Scenario {
	s := &sim.Scenario{
		Spec: sim.ScenarioSpec{
			Simulator:  sim.SimulatorSpec{KubeAPIServerPort: 3131, SimulatorServerPort: 1212, Image: version.SimulatorImage()},
			Variants:   []sim.ScenarioVariant{{Name: "least"}, {Name: "most"}},
			Timeline:   []sim.ScenarioStep{{Wait: &sim.ScenarioWait{For: sim.WaitPodsSettled, Timeout: &metav1.Duration{Duration: time.Minute}}}},
			Duration:   &metav1.Duration{Duration: time.Minute},
			NoiseFloor: ptr.To(true),
		},
	}
	s.Name, s.Namespace = "binpack", "ns"
	return s
}

func TestStrategyCreate(t *testing.T) {
	ctx := context.Background()
	st := NewStrategy(nil, validation.DefaultOptions())
	s := newScenario()
	s.Status = sim.ScenarioStatus{Phase: sim.ScenarioSucceeded, Progress: 100}
	s.Generation = 7
	st.PrepareForCreate(ctx, s)
	if diff := cmp.Diff(sim.ScenarioStatus{}, s.Status); diff != "" {
		t.Errorf("status on create (-want +got):\n%s", diff)
	}
	if s.Generation != 1 {
		t.Errorf("generation %d, want 1", s.Generation)
	}
	if errs := st.Validate(ctx, s); len(errs) != 0 {
		t.Errorf("a valid scenario: %v", errs)
	}
}

func TestStrategyUpdate(t *testing.T) {
	ctx := context.Background()
	st := NewStrategy(nil, validation.DefaultOptions())
	old := newScenario()
	old.ResourceVersion, old.Generation = "1", 1
	old.Status = sim.ScenarioStatus{Phase: sim.ScenarioRunning, Progress: 45}

	// A metadata update keeps status and generation.
	labeled := old.DeepCopy()
	labeled.Labels = map[string]string{"team": "a"}
	labeled.Status = sim.ScenarioStatus{Phase: sim.ScenarioSucceeded}
	st.PrepareForUpdate(ctx, labeled, old)
	if labeled.Status.Phase != sim.ScenarioRunning || labeled.Generation != 1 {
		t.Errorf("after a metadata update: phase %q generation %d, want Running and 1", labeled.Status.Phase, labeled.Generation)
	}
	if errs := st.ValidateUpdate(ctx, labeled, old); len(errs) != 0 {
		t.Errorf("a metadata update: %v", errs)
	}

	// A spec update bumps the generation and is refused.
	changed := old.DeepCopy()
	changed.Spec.Duration = &metav1.Duration{Duration: time.Hour}
	st.PrepareForUpdate(ctx, changed, old)
	if changed.Generation != 2 {
		t.Errorf("generation after a spec change %d, want 2", changed.Generation)
	}
	errs := st.ValidateUpdate(ctx, changed, old)
	if len(errs) != 1 || errs[0].Field != "spec" || !strings.Contains(errs[0].Error(), "immutable") {
		t.Errorf("a spec update: %v, want spec: Forbidden", errs)
	}
}

func TestStatusStrategy(t *testing.T) {
	ctx := context.Background()
	ss := NewStatusStrategy(NewStrategy(nil, validation.DefaultOptions()))
	old := newScenario()
	old.ResourceVersion, old.Generation = "1", 1
	old.Labels = map[string]string{"team": "a"}

	s := old.DeepCopy()
	s.Spec.Variants = nil
	s.Labels = map[string]string{"team": "b"}
	s.Status = sim.ScenarioStatus{Phase: sim.ScenarioRunning, Progress: 45, Variants: []sim.ScenarioVariantStatus{{Name: "least", Progress: 45}}}
	ss.PrepareForUpdate(ctx, s, old)
	if diff := cmp.Diff(old.Spec, s.Spec); diff != "" {
		t.Errorf("spec after a status write (-want +got):\n%s", diff)
	}
	if s.Labels["team"] != "a" {
		t.Errorf("labels after a status write: %v, want the old ones", s.Labels)
	}
	if s.Status.Progress != 45 {
		t.Errorf("status not written: %+v", s.Status)
	}
	if errs := ss.ValidateUpdate(ctx, s, old); len(errs) != 0 {
		t.Errorf("a valid status: %v", errs)
	}
	s.Status.Progress = 200
	if errs := ss.ValidateUpdate(ctx, s, old); len(errs) != 1 || errs[0].Field != "status.progress" {
		t.Errorf("progress 200: %v, want status.progress: Invalid", errs)
	}
}

func TestSelectableFields(t *testing.T) {
	s := newScenario()
	_, fields, err := GetAttrs(s)
	if err != nil {
		t.Fatal(err)
	}
	if fields["metadata.name"] != "binpack" || fields["metadata.namespace"] != "ns" {
		t.Errorf("fields %v", fields)
	}
}

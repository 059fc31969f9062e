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

package validation

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

func raw(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }

func dur(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }

const mostAllocated = `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration",
 "profiles":[{"schedulerName":"default-scheduler",
  "plugins":{"score":{"enabled":[{"name":"NodeResourcesFit","weight":2}],"disabled":[{"name":"*"}]}},
  "pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated"}}}]}]}`

// validScenario is defaulted, as the server validates it.
func validScenario() *sim.Scenario {
	return &sim.Scenario{
		ObjectMeta: metav1.ObjectMeta{Name: "binpack", Namespace: "default"},
		Spec: sim.ScenarioSpec{
			Simulator: validSimulator().Spec,
			Variants: []sim.ScenarioVariant{
				{Name: "least"},
				{Name: "most", SchedulerConfiguration: raw(mostAllocated)},
			},
			NodePools: []sim.ScenarioNodePool{{
				Name: "small", Replicas: ptr.To[int32](3),
				Template: sim.NodeTemplate{Status: sim.NodeTemplateStatus{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}},
			}},
			Timeline: []sim.ScenarioStep{
				{At: dur(0), Create: &sim.ScenarioObjects{Objects: []runtime.RawExtension{
					*raw(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":3}}`),
				}}},
				{At: dur(0), Wait: &sim.ScenarioWait{For: sim.WaitPodsSettled, Timeout: ptr.To(dur(time.Minute))}},
				{At: dur(2 * time.Minute), Scale: &sim.ScenarioScale{Kind: sim.ScaleDeployment, Namespace: "default", Name: "web", Replicas: 1}},
				{At: dur(3 * time.Minute), Scale: &sim.ScenarioScale{Kind: sim.ScaleNodePool, Name: "small", Replicas: 10}},
				{At: dur(3 * time.Minute), Delete: &sim.ScenarioObjects{ConfigMapName: "to-delete"}},
			},
			Duration:   ptr.To(dur(5 * time.Minute)),
			NoiseFloor: ptr.To(true),
		},
	}
}

func TestValidateScenario(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*sim.Scenario)
		want   []string
	}{
		{name: "valid", mutate: func(*sim.Scenario) {}},
		{name: "valid with simulators, a trace and an initial export", mutate: func(s *sim.Scenario) {
			s.Spec.Variants, s.Spec.Timeline, s.Spec.Duration = nil, nil, nil
			s.Spec.Simulators = []string{"a", "b"}
			s.Spec.Trace = &sim.ScenarioTrace{ConfigMapName: "trace", Key: "trace", Speed: 60}
			s.Spec.Initial = &sim.ScenarioInitial{SimulatorName: "prod-copy"}
		}},
		{name: "neither variants nor simulators", mutate: func(s *sim.Scenario) { s.Spec.Variants = nil },
			want: []string{"FieldValueRequired spec.variants"}},
		{name: "variants and simulators", mutate: func(s *sim.Scenario) { s.Spec.Simulators = []string{"a"} },
			want: []string{"FieldValueForbidden spec.simulators"}},
		{name: "variant names: not a label, duplicate, missing", mutate: func(s *sim.Scenario) {
			s.Spec.Variants = append(s.Spec.Variants, sim.ScenarioVariant{Name: "Most"}, sim.ScenarioVariant{Name: "most"}, sim.ScenarioVariant{})
		}, want: []string{"FieldValueInvalid spec.variants[2].name", "FieldValueDuplicate spec.variants[3].name", "FieldValueRequired spec.variants[4].name"}},
		{name: "the noise floor's simulator name is too long", mutate: func(s *sim.Scenario) {
			// sim-NAME-VARIANT fits in 63 characters, sim-NAME-VARIANT-again does not.
			s.Name = strings.Repeat("n", 50)
			s.Spec.Variants[0].Name = "abcdefg"
			s.Spec.NodePools, s.Spec.Timeline = nil, s.Spec.Timeline[:3]
		}, want: []string{"FieldValueInvalid spec.variants[0].name"}},
		{name: "without the noise floor the same names fit", mutate: func(s *sim.Scenario) {
			s.Name = strings.Repeat("n", 50)
			s.Spec.Variants[0].Name = "abcdefg"
			s.Spec.NodePools, s.Spec.Timeline = nil, s.Spec.Timeline[:3]
			s.Spec.NoiseFloor = ptr.To(false)
		}},
		{name: "simulators: duplicate, invalid", mutate: func(s *sim.Scenario) {
			s.Spec.Variants = nil
			s.Spec.Simulators = []string{"a", "a", "B"}
		}, want: []string{"FieldValueDuplicate spec.simulators[1]", "FieldValueInvalid spec.simulators[2]"}},
		{name: "spec.simulator is validated as a simulator's spec", mutate: func(s *sim.Scenario) {
			s.Spec.Simulator.KubeAPIServerPort = 0
			s.Spec.Simulator.Image = ""
		}, want: []string{"FieldValueInvalid spec.simulator.kubeAPIServerPort", "FieldValueRequired spec.simulator.image"}},
		{name: "spec.simulator.podTemplate is validated as a simulator's", mutate: func(s *sim.Scenario) {
			s.Spec.Simulator.PodTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "simulator", Args: []string{"-v"}}}}}
		}, want: []string{"FieldValueForbidden spec.simulator.podTemplate.spec.containers[0].args"}},
		{name: "scheduler configuration: unknown plugin in a score set and in pluginConfig", mutate: func(s *sim.Scenario) {
			s.Spec.Variants[1].SchedulerConfiguration = raw(strings.NewReplacer(`"weight":2`, `"weight":2},{"name":"NoSuchPlugin"`, `"name":"NodeResourcesFit","args"`, `"name":"Nope","args"`).Replace(mostAllocated))
		}, want: []string{
			"FieldValueNotSupported spec.variants[1].schedulerConfiguration.profiles[0].plugins.score.enabled[1].name",
			"FieldValueNotSupported spec.variants[1].schedulerConfiguration.profiles[0].pluginConfig[0].name",
		}},
		{name: "scheduler configuration: unknown field", mutate: func(s *sim.Scenario) {
			s.Spec.Variants[1].SchedulerConfiguration = raw(strings.Replace(mostAllocated, `"profiles"`, `"profile":[],"profiles"`, 1))
		}, want: []string{"FieldValueInvalid spec.variants[1].schedulerConfiguration"}},
		{name: "scheduler configuration: unknown field in a plugin's args", mutate: func(s *sim.Scenario) {
			s.Spec.Variants[1].SchedulerConfiguration = raw(strings.Replace(mostAllocated, `"scoringStrategy"`, `"scoringStrategi"`, 1))
		}, want: []string{"FieldValueInvalid spec.variants[1].schedulerConfiguration"}},
		{name: "scheduler configuration: another apiVersion and kind", mutate: func(s *sim.Scenario) {
			s.Spec.Variants[1].SchedulerConfiguration = raw(`{"apiVersion":"kubescheduler.config.k8s.io/v1beta3","kind":"Policy"}`)
		}, want: []string{"FieldValueNotSupported spec.variants[1].schedulerConfiguration.apiVersion", "FieldValueNotSupported spec.variants[1].schedulerConfiguration.kind"}},
		{name: "scheduler configuration: not an object", mutate: func(s *sim.Scenario) {
			s.Spec.Variants[1].SchedulerConfiguration = raw(`[1]`)
		}, want: []string{"FieldValueInvalid spec.variants[1].schedulerConfiguration"}},
		{name: "node pools: duplicate, invalid template, replicas", mutate: func(s *sim.Scenario) {
			s.Spec.NodePools = append(s.Spec.NodePools, sim.ScenarioNodePool{Name: "small", Replicas: ptr.To[int32](-1),
				Template: sim.NodeTemplate{Spec: sim.NodeTemplateSpec{PodCIDR: "nope"}}})
		}, want: []string{"FieldValueDuplicate spec.nodePools[1].name", "FieldValueInvalid spec.nodePools[1].replicas", "FieldValueInvalid spec.nodePools[1].template.spec.podCIDR"}},
		{name: "node pools: the pool's name in the simulators is too long", mutate: func(s *sim.Scenario) {
			s.Spec.NodePools[0].Name = strings.Repeat("p", 45)
			s.Spec.Timeline[3].Scale.Name = s.Spec.NodePools[0].Name
		}, want: []string{"FieldValueInvalid spec.nodePools[0].name"}},
		{name: "node pools: the template is rendered up to the largest scale", mutate: func(s *sim.Scenario) {
			// Node 2 fits; node 999 overflows the address space.
			s.Spec.NodePools[0].Template.Spec.PodCIDR = `{{ AddCIDR "255.255.0.0/24" .Index }}`
			s.Spec.Timeline[3].Scale.Replicas = 1000
		}, want: []string{"FieldValueInvalid spec.nodePools[0].template.spec.podCIDR"}},
		{name: "scale: a NodePool beyond the largest pool", mutate: func(s *sim.Scenario) {
			s.Spec.Timeline[3].Scale.Replicas = DefaultMaxNodePoolReplicas + 1
		}, want: []string{"FieldValueInvalid spec.timeline[3].scale.replicas"}},
		{name: "initial: two fields, a Sync source", mutate: func(s *sim.Scenario) {
			src := validSource()
			src.Mode = sim.SourceModeSync
			s.Spec.Initial = &sim.ScenarioInitial{SimulatorName: "x", Source: src}
		}, want: []string{"FieldValueForbidden spec.initial.source", "FieldValueNotSupported spec.initial.source.mode"}},
		{name: "initial: the source is validated as a simulator's", mutate: func(s *sim.Scenario) {
			s.Spec.Initial = &sim.ScenarioInitial{Source: &sim.SimulatorSource{Mode: sim.SourceModeOnce, QPS: 0}}
		}, want: []string{"FieldValueRequired spec.initial.source.secretName", "FieldValueInvalid spec.initial.source.qps"}},
		{name: "steps: none and two of create, delete, scale and wait", mutate: func(s *sim.Scenario) {
			s.Spec.Timeline[0].Wait = &sim.ScenarioWait{For: sim.WaitNodesReady}
			s.Spec.Timeline[1].Wait = nil
		}, want: []string{"FieldValueForbidden spec.timeline[0].wait", "FieldValueRequired spec.timeline[1]"}},
		{name: "steps: negative and decreasing offsets, one past the duration", mutate: func(s *sim.Scenario) {
			s.Spec.Timeline[0].At = dur(-time.Second)
			s.Spec.Timeline[3].At = dur(time.Minute)
			s.Spec.Timeline[4].At = dur(5 * time.Minute)
		}, want: []string{"FieldValueInvalid spec.timeline[0].at", "FieldValueInvalid spec.timeline[3].at", "FieldValueInvalid spec.timeline[4].at"}},
		{name: "objects: without apiVersion, kind, name; not an object; both and neither of objects and configMapName", mutate: func(s *sim.Scenario) {
			s.Spec.Timeline[0].Create.Objects = append(s.Spec.Timeline[0].Create.Objects, *raw(`{"metadata":{"namespace":"Bad"}}`), *raw(`"x"`))
			s.Spec.Timeline[0].Create.ConfigMapName = "cm"
			s.Spec.Timeline[4].Delete.ConfigMapName = ""
		}, want: []string{
			"FieldValueForbidden spec.timeline[0].create.configMapName",
			"FieldValueRequired spec.timeline[0].create.objects[1].apiVersion",
			"FieldValueRequired spec.timeline[0].create.objects[1].kind",
			"FieldValueRequired spec.timeline[0].create.objects[1].metadata.name",
			"FieldValueInvalid spec.timeline[0].create.objects[1].metadata.namespace",
			"FieldValueInvalid spec.timeline[0].create.objects[2]",
			"FieldValueRequired spec.timeline[4].delete.objects",
		}},
		{name: "scale: a missing NodePool", mutate: func(s *sim.Scenario) { s.Spec.Timeline[3].Scale.Name = "large" },
			want: []string{"FieldValueNotFound spec.timeline[3].scale.name"}},
		{name: "scale: unknown kind, negative replicas", mutate: func(s *sim.Scenario) {
			s.Spec.Timeline[2].Scale.Kind = "DaemonSet"
			s.Spec.Timeline[3].Scale.Replicas = -1
		}, want: []string{"FieldValueNotSupported spec.timeline[2].scale.kind", "FieldValueInvalid spec.timeline[3].scale.replicas"}},
		{name: "scale: a workload needs a namespace, a NodePool has none", mutate: func(s *sim.Scenario) {
			s.Spec.Timeline[2].Scale.Namespace = ""
			s.Spec.Timeline[3].Scale.Namespace = "default"
		}, want: []string{"FieldValueRequired spec.timeline[2].scale.namespace", "FieldValueForbidden spec.timeline[3].scale.namespace"}},
		{name: "wait: unknown condition, zero timeout", mutate: func(s *sim.Scenario) {
			s.Spec.Timeline[1].Wait = &sim.ScenarioWait{For: "PodsRunning", Timeout: ptr.To(dur(0))}
		}, want: []string{"FieldValueNotSupported spec.timeline[1].wait.for", "FieldValueInvalid spec.timeline[1].wait.timeout"}},
		{name: "trace with a timeline; its speed, key and ConfigMap", mutate: func(s *sim.Scenario) {
			s.Spec.Trace = &sim.ScenarioTrace{Key: "a/b", Speed: 10001}
		}, want: []string{"FieldValueForbidden spec.trace", "FieldValueRequired spec.trace.configMapName", "FieldValueInvalid spec.trace.key", "FieldValueInvalid spec.trace.speed"}},
		{name: "duration: zero", mutate: func(s *sim.Scenario) { s.Spec.Duration = ptr.To(dur(0)); s.Spec.Timeline = nil },
			want: []string{"FieldValueInvalid spec.duration"}},
		{name: "duration: over a day", mutate: func(s *sim.Scenario) { s.Spec.Duration = ptr.To(dur(25 * time.Hour)) },
			want: []string{"FieldValueInvalid spec.duration"}},
		{name: "duration: unset without a trace", mutate: func(s *sim.Scenario) { s.Spec.Duration = nil },
			want: []string{"FieldValueRequired spec.duration"}},
		{name: "too large", mutate: func(s *sim.Scenario) {
			big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"` + strings.Repeat("x", MaxScenarioBytes) + `"}}`
			s.Spec.Timeline[0].Create.Objects = []runtime.RawExtension{*raw(big)}
		}, want: []string{"FieldValueTooLong spec"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := validScenario()
			tc.mutate(s)
			if diff := cmp.Diff(tc.want, errs(ValidateScenario(s, DefaultOptions()))); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateScenarioUpdate(t *testing.T) {
	old := validScenario()
	old.ResourceVersion = "1"
	same := old.DeepCopy()
	same.Labels = map[string]string{"a": "b"}
	if got := errs(ValidateScenarioUpdate(same, old)); len(got) != 0 {
		t.Errorf("a metadata update: %v, want no error", got)
	}
	changed := old.DeepCopy()
	changed.Spec.Duration = ptr.To(dur(time.Hour))
	if diff := cmp.Diff([]string{"FieldValueForbidden spec"}, errs(ValidateScenarioUpdate(changed, old))); diff != "" {
		t.Errorf("a spec update (-want +got):\n%s", diff)
	}
}

func TestValidateScenarioStatusUpdate(t *testing.T) {
	old := validScenario()
	old.ResourceVersion = "1"
	s := old.DeepCopy()
	s.Status = sim.ScenarioStatus{
		Phase:    "Done",
		Progress: 101,
		Variants: []sim.ScenarioVariantStatus{{Name: "least", Progress: -1, PodsScheduled: -1}, {Name: "least"}, {}},
	}
	want := []string{
		"FieldValueNotSupported status.phase",
		"FieldValueInvalid status.progress",
		"FieldValueInvalid status.variants[0].progress",
		"FieldValueInvalid status.variants[0].podsScheduled",
		"FieldValueDuplicate status.variants[1].name",
		"FieldValueRequired status.variants[2].name",
	}
	if diff := cmp.Diff(want, errs(ValidateScenarioStatusUpdate(s, old))); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	s.Status = sim.ScenarioStatus{Phase: sim.ScenarioRunning, Progress: 45, Variants: []sim.ScenarioVariantStatus{{Name: "least", Progress: 45}}}
	if got := errs(ValidateScenarioStatusUpdate(s, old)); len(got) != 0 {
		t.Errorf("a valid status: %v", got)
	}
}

// TestSchedulerPlugins: the generated list holds the in-tree plugins a
// configuration names most.
func TestSchedulerPlugins(t *testing.T) {
	for _, name := range []string{"NodeResourcesFit", "PodTopologySpread", "DefaultPreemption", "PrioritySort", "DefaultBinder"} {
		if !knownSchedulerPlugins.Has(name) {
			t.Errorf("%s is not among the known plugins %v", name, SchedulerPlugins())
		}
	}
}

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
	"encoding/json"
	"fmt"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// Bounds of a scenario.
const (
	// MaxScenarioBytes bounds a scenario as JSON (see MaxSimulatorBytes):
	// room for a simulator spec, scheduler configurations and a modest
	// inline timeline. A larger workload goes in ConfigMaps.
	MaxScenarioBytes = 256 << 10
	// MaxScenarioVariants bounds spec.variants and spec.simulators: each
	// variant is a simulator (a Pod with a control plane of its own).
	MaxScenarioVariants = 10
	// MaxScenarioDuration bounds spec.duration and every offset.
	MaxScenarioDuration = 24 * time.Hour
	// MaxTraceSpeed bounds spec.trace.speed.
	MaxTraceSpeed = 10000
	// NoiseFloorSuffix ends the name of the first variant's second run.
	NoiseFloorSuffix = "-again"
)

// ScenarioSimulatorName is the simulator a scenario makes for a variant.
func ScenarioSimulatorName(scenario, variant string) string { return scenario + "-" + variant }

// ValidateScenario validates a new scenario.
func ValidateScenario(s *sim.Scenario, opts Options) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&s.ObjectMeta, true, apimachineryvalidation.NameIsDNSLabel, field.NewPath("metadata"))
	allErrs = append(allErrs, validateScenarioSpec(&s.Spec, s.Name, opts, field.NewPath("spec"))...)
	allErrs = append(allErrs, validateSize(&s.ObjectMeta, &s.Spec, nil, nil, MaxScenarioBytes)...)
	return allErrs
}

// ValidateScenarioUpdate validates an update: the spec is immutable, as a
// changed workload is a new scenario (and its results another comparison).
func ValidateScenarioUpdate(newObj, oldObj *sim.Scenario) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newObj.ObjectMeta, &oldObj.ObjectMeta, field.NewPath("metadata"))
	if !apiequality.Semantic.DeepEqual(newObj.Spec, oldObj.Spec) {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec"), "a scenario's spec is immutable: create another scenario for another workload or configuration"))
	}
	return allErrs
}

var scenarioPhases = []sim.ScenarioPhase{"", sim.ScenarioPending, sim.ScenarioRunning, sim.ScenarioSucceeded, sim.ScenarioFailed}

// ValidateScenarioStatusUpdate validates a status write by the reconciler.
func ValidateScenarioStatusUpdate(newObj, oldObj *sim.Scenario) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&newObj.ObjectMeta, &oldObj.ObjectMeta, field.NewPath("metadata"))
	st := &newObj.Status
	statusPath := field.NewPath("status")
	if !sets.New(scenarioPhases...).Has(st.Phase) {
		allErrs = append(allErrs, field.NotSupported(statusPath.Child("phase"), st.Phase, scenarioPhases[1:]))
	}
	allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(st.ObservedGeneration, statusPath.Child("observedGeneration"))...)
	allErrs = append(allErrs, validatePercent(st.Progress, statusPath.Child("progress"))...)
	allErrs = append(allErrs, metav1validation.ValidateConditions(st.Conditions, statusPath.Child("conditions"))...)
	names := sets.New[string]()
	for i, v := range st.Variants {
		path := statusPath.Child("variants").Index(i)
		if v.Name == "" {
			allErrs = append(allErrs, field.Required(path.Child("name"), ""))
		} else if names.Has(v.Name) {
			allErrs = append(allErrs, field.Duplicate(path.Child("name"), v.Name))
		}
		names.Insert(v.Name)
		allErrs = append(allErrs, validatePercent(v.Progress, path.Child("progress"))...)
		for _, c := range []struct {
			name  string
			value int64
		}{
			{"podsScheduled", v.PodsScheduled}, {"podsUnschedulable", v.PodsUnschedulable}, {"podsPreempted", v.PodsPreempted},
			{"schedulingAttempts", v.SchedulingAttempts}, {"nodesUsed", int64(v.NodesUsed)},
		} {
			allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(c.value, path.Child(c.name))...)
		}
	}
	return allErrs
}

func validatePercent(p int32, fldPath *field.Path) field.ErrorList {
	if p < 0 || p > 100 {
		return field.ErrorList{field.Invalid(fldPath, p, "must be a percentage, from 0 to 100")}
	}
	return nil
}

func validateScenarioSpec(spec *sim.ScenarioSpec, scenario string, opts Options, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	allErrs = append(allErrs, validateSimulatorSpec(&spec.Simulator, fldPath.Child("simulator"))...)
	// The variants' simulators are made from spec.simulator whole.
	allErrs = append(allErrs, validateHostingEnabled(&spec.Simulator, opts, fldPath.Child("simulator"))...)
	if spec.Simulator.PodTemplate != nil {
		allErrs = append(allErrs, ValidatePodTemplate(spec.Simulator.PodTemplate, fldPath.Child("simulator", "podTemplate"))...)
	}

	// The simulators the workload runs in.
	var simulators []string
	switch {
	case len(spec.Variants) == 0 && len(spec.Simulators) == 0:
		allErrs = append(allErrs, field.Required(fldPath.Child("variants"), "one of spec.variants and spec.simulators"))
	case len(spec.Variants) > 0 && len(spec.Simulators) > 0:
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("simulators"), "may not be set with spec.variants"))
	}
	if len(spec.Variants) > MaxScenarioVariants {
		allErrs = append(allErrs, field.TooMany(fldPath.Child("variants"), len(spec.Variants), MaxScenarioVariants))
	}
	variantNames := sets.New[string]()
	for i := range spec.Variants {
		v := &spec.Variants[i]
		path := fldPath.Child("variants").Index(i)
		namePath := path.Child("name")
		switch {
		case v.Name == "":
			allErrs = append(allErrs, field.Required(namePath, ""))
		case variantNames.Has(v.Name):
			allErrs = append(allErrs, field.Duplicate(namePath, v.Name))
		default:
			if msgs := utilvalidation.IsDNS1123Label(v.Name); len(msgs) > 0 {
				allErrs = append(allErrs, invalid(namePath, v.Name, msgs)...)
				break
			}
			names := []string{ScenarioSimulatorName(scenario, v.Name)}
			if i == 0 && spec.NoiseFloor != nil && *spec.NoiseFloor {
				names = append(names, names[0]+NoiseFloorSuffix)
			}
			for _, name := range names {
				simulators = append(simulators, name)
				if scenario == "" {
					continue // generateName: checked once the name exists
				}
				for _, msg := range ValidateSimulatorName(name, false) {
					allErrs = append(allErrs, field.Invalid(namePath, v.Name, fmt.Sprintf("the variant's simulator %q: %s", name, msg)))
				}
			}
		}
		variantNames.Insert(v.Name)
		allErrs = append(allErrs, validateSchedulerConfiguration(v.SchedulerConfiguration, path.Child("schedulerConfiguration"))...)
	}
	if len(spec.Simulators) > MaxScenarioVariants {
		allErrs = append(allErrs, field.TooMany(fldPath.Child("simulators"), len(spec.Simulators), MaxScenarioVariants))
	}
	seen := sets.New[string]()
	for i, name := range spec.Simulators {
		path := fldPath.Child("simulators").Index(i)
		if seen.Has(name) {
			allErrs = append(allErrs, field.Duplicate(path, name))
			continue
		}
		seen.Insert(name)
		if msgs := ValidateSimulatorName(name, false); len(msgs) > 0 {
			allErrs = append(allErrs, invalid(path, name, msgs)...)
			continue
		}
		simulators = append(simulators, name)
	}

	pools := sets.New[string]()
	most := mostReplicas(spec)
	for i := range spec.NodePools {
		p := &spec.NodePools[i]
		path := fldPath.Child("nodePools").Index(i)
		namePath := path.Child("name")
		switch {
		case p.Name == "":
			allErrs = append(allErrs, field.Required(namePath, ""))
		case pools.Has(p.Name):
			allErrs = append(allErrs, field.Duplicate(namePath, p.Name))
		default:
			allErrs = append(allErrs, invalid(namePath, p.Name, utilvalidation.IsDNS1123Label(p.Name))...)
		}
		pools.Insert(p.Name)
		// The pool is made as SIMULATOR-POOL in each simulator: its name,
		// and its Nodes', must hold there; the longest is checked.
		pool := p.Name
		for _, s := range simulators {
			if name := s + "-" + p.Name; len(name) > len(pool) {
				pool = name
			}
		}
		if p.Name != "" && pool != p.Name && scenario != "" {
			for _, msg := range nodePoolNameValidator(opts)(pool, false) {
				allErrs = append(allErrs, field.Invalid(namePath, p.Name, fmt.Sprintf("the pool made in the simulators, %q: %s", pool, msg)))
			}
		}
		allErrs = append(allErrs, validatePoolNodes(p.Replicas, max(ptrValue(p.Replicas), most[p.Name]), &p.Template, pool, opts, path)...)
	}

	if spec.Initial != nil {
		allErrs = append(allErrs, validateScenarioInitial(spec.Initial, fldPath.Child("initial"))...)
	}
	allErrs = append(allErrs, validateTimeline(spec.Timeline, pools, spec.Duration, opts, fldPath.Child("timeline"))...)
	if spec.Trace != nil {
		if len(spec.Timeline) > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("trace"), "may not be set with spec.timeline"))
		}
		allErrs = append(allErrs, validateTrace(spec.Trace, fldPath.Child("trace"))...)
	}
	durationPath := fldPath.Child("duration")
	switch {
	case spec.Duration == nil && spec.Trace == nil:
		allErrs = append(allErrs, field.Required(durationPath, ""))
	case spec.Duration != nil && (spec.Duration.Duration <= 0 || spec.Duration.Duration > MaxScenarioDuration):
		allErrs = append(allErrs, field.Invalid(durationPath, spec.Duration.Duration.String(), fmt.Sprintf("must be more than 0 and at most %s", MaxScenarioDuration)))
	}
	return allErrs
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// mostReplicas is, for each pool, the most replicas a scale step gives it.
func mostReplicas(spec *sim.ScenarioSpec) map[string]int32 {
	most := map[string]int32{}
	for _, step := range spec.Timeline {
		if s := step.Scale; s != nil && s.Kind == sim.ScaleNodePool {
			most[s.Name] = max(most[s.Name], s.Replicas)
		}
	}
	return most
}

func validateScenarioInitial(in *sim.ScenarioInitial, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if in.SimulatorName != "" && in.Source != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("source"), "may not be set with spec.initial.simulatorName"))
	}
	if in.SimulatorName != "" {
		allErrs = append(allErrs, invalid(fldPath.Child("simulatorName"), in.SimulatorName, ValidateSimulatorName(in.SimulatorName, false))...)
	}
	if in.Source != nil {
		path := fldPath.Child("source")
		allErrs = append(allErrs, validateSource(in.Source, path)...)
		if in.Source.Mode == sim.SourceModeSync {
			allErrs = append(allErrs, field.NotSupported(path.Child("mode"), in.Source.Mode, []sim.SourceMode{sim.SourceModeOnce}))
		}
	}
	return allErrs
}

var (
	scaleKinds = []sim.ScaleKind{sim.ScaleNodePool, sim.ScaleDeployment, sim.ScaleReplicaSet, sim.ScaleStatefulSet}
	waitFors   = []sim.WaitFor{sim.WaitPodsSettled, sim.WaitNodesReady}
)

func validateTimeline(steps []sim.ScenarioStep, pools sets.Set[string], duration *metav1.Duration, opts Options, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	var previous time.Duration
	for i := range steps {
		step := &steps[i]
		path := fldPath.Index(i)
		atPath := path.Child("at")
		switch at := step.At.Duration; {
		case at < 0:
			allErrs = append(allErrs, field.Invalid(atPath, at.String(), "must be greater than or equal to 0"))
		case at < previous:
			allErrs = append(allErrs, field.Invalid(atPath, at.String(), fmt.Sprintf("must not be before the step above's (%s): steps run in order", previous)))
		case duration != nil && at >= duration.Duration:
			allErrs = append(allErrs, field.Invalid(atPath, at.String(), fmt.Sprintf("must be before the end of the scenario, spec.duration (%s)", duration.Duration)))
		}
		previous = max(previous, step.At.Duration)

		var set []string
		if step.Create != nil {
			set = append(set, "create")
			allErrs = append(allErrs, validateScenarioObjects(step.Create, path.Child("create"))...)
		}
		if step.Delete != nil {
			set = append(set, "delete")
			allErrs = append(allErrs, validateScenarioObjects(step.Delete, path.Child("delete"))...)
		}
		if step.Scale != nil {
			set = append(set, "scale")
			allErrs = append(allErrs, validateScale(step.Scale, pools, opts, path.Child("scale"))...)
		}
		if step.Wait != nil {
			set = append(set, "wait")
			allErrs = append(allErrs, validateWait(step.Wait, path.Child("wait"))...)
		}
		switch {
		case len(set) == 0:
			allErrs = append(allErrs, field.Required(path, "one of create, delete, scale and wait"))
		case len(set) > 1:
			for _, f := range set[1:] {
				allErrs = append(allErrs, field.Forbidden(path.Child(f), fmt.Sprintf("may not be set with %s: a step is one of create, delete, scale and wait", set[0])))
			}
		}
	}
	return allErrs
}

func validateScenarioObjects(o *sim.ScenarioObjects, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case len(o.Objects) == 0 && o.ConfigMapName == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("objects"), "one of objects and configMapName"))
	case len(o.Objects) > 0 && o.ConfigMapName != "":
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("configMapName"), "may not be set with objects"))
	}
	if o.ConfigMapName != "" {
		allErrs = append(allErrs, invalid(fldPath.Child("configMapName"), o.ConfigMapName, apimachineryvalidation.NameIsDNSSubdomain(o.ConfigMapName, false))...)
	}
	for i := range o.Objects {
		allErrs = append(allErrs, validateScenarioObject(&o.Objects[i], fldPath.Child("objects").Index(i))...)
	}
	return allErrs
}

// validateScenarioObject checks that an object names itself: apiVersion,
// kind and metadata.name. The rest is the simulator's inner apiserver's
// to check, when the step runs.
func validateScenarioObject(raw *runtime.RawExtension, fldPath *field.Path) field.ErrorList {
	data, err := rawJSON(raw)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, "", err.Error())}
	}
	var m map[string]interface{}
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return field.ErrorList{field.Invalid(fldPath, "", "must be a JSON or YAML object")}
	}
	u := &unstructured.Unstructured{Object: m}
	var allErrs field.ErrorList
	for _, f := range []struct {
		path  *field.Path
		value string
	}{
		{fldPath.Child("apiVersion"), stringAt(u, "apiVersion")},
		{fldPath.Child("kind"), stringAt(u, "kind")},
		{fldPath.Child("metadata", "name"), stringAt(u, "metadata", "name")},
	} {
		if f.value == "" {
			allErrs = append(allErrs, field.Required(f.path, "a string"))
		}
	}
	if ns := stringAt(u, "metadata", "namespace"); ns != "" {
		allErrs = append(allErrs, invalid(fldPath.Child("metadata", "namespace"), ns, apimachineryvalidation.ValidateNamespaceName(ns, false))...)
	}
	return allErrs
}

// stringAt is the string at path in u, or "" if there is none.
func stringAt(u *unstructured.Unstructured, path ...string) string {
	s, _, err := unstructured.NestedString(u.Object, path...)
	if err != nil {
		return ""
	}
	return s
}

// rawJSON is a RawExtension's JSON, whether it came over the wire (Raw) or
// was built in memory (Object).
func rawJSON(raw *runtime.RawExtension) ([]byte, error) {
	if len(raw.Raw) > 0 || raw.Object == nil {
		return raw.Raw, nil
	}
	return json.Marshal(raw.Object)
}

func validateScale(s *sim.ScenarioScale, pools sets.Set[string], opts Options, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	namePath, nsPath := fldPath.Child("name"), fldPath.Child("namespace")
	if s.Name == "" {
		allErrs = append(allErrs, field.Required(namePath, ""))
	}
	if s.Replicas < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("replicas"), s.Replicas, "must be greater than or equal to 0"))
	}
	switch s.Kind {
	case sim.ScaleNodePool:
		if s.Name != "" && !pools.Has(s.Name) {
			e := field.NotFound(namePath, s.Name)
			e.Detail = "not a pool of spec.nodePools"
			allErrs = append(allErrs, e)
		}
		if s.Namespace != "" {
			allErrs = append(allErrs, field.Forbidden(nsPath, "a NodePool of the scenario has no namespace"))
		}
		if s.Replicas > opts.MaxNodePoolReplicas {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("replicas"), s.Replicas, fmt.Sprintf("must be between 0 and %d", opts.MaxNodePoolReplicas)))
		}
	case sim.ScaleDeployment, sim.ScaleReplicaSet, sim.ScaleStatefulSet:
		if s.Namespace == "" {
			allErrs = append(allErrs, field.Required(nsPath, fmt.Sprintf("the namespace of the %s inside the simulators", s.Kind)))
		} else {
			allErrs = append(allErrs, invalid(nsPath, s.Namespace, apimachineryvalidation.ValidateNamespaceName(s.Namespace, false))...)
		}
		if s.Name != "" {
			allErrs = append(allErrs, invalid(namePath, s.Name, apimachineryvalidation.NameIsDNSSubdomain(s.Name, false))...)
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("kind"), s.Kind, scaleKinds))
	}
	return allErrs
}

func validateWait(w *sim.ScenarioWait, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !sets.New(waitFors...).Has(w.For) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("for"), w.For, waitFors))
	}
	if w.Timeout != nil && (w.Timeout.Duration <= 0 || w.Timeout.Duration > MaxScenarioDuration) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("timeout"), w.Timeout.Duration.String(), fmt.Sprintf("must be more than 0 and at most %s", MaxScenarioDuration)))
	}
	return allErrs
}

func validateTrace(t *sim.ScenarioTrace, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if t.ConfigMapName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("configMapName"), "the ConfigMap holding the trace"))
	} else {
		allErrs = append(allErrs, invalid(fldPath.Child("configMapName"), t.ConfigMapName, apimachineryvalidation.NameIsDNSSubdomain(t.ConfigMapName, false))...)
	}
	if t.Key == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("key"), ""))
	} else {
		allErrs = append(allErrs, invalid(fldPath.Child("key"), t.Key, utilvalidation.IsConfigMapKey(t.Key))...)
	}
	if t.Speed < 1 || t.Speed > MaxTraceSpeed {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("speed"), t.Speed, fmt.Sprintf("must be from 1 to %d", MaxTraceSpeed)))
	}
	return allErrs
}

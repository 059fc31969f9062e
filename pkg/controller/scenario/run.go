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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// defaultTail is how long a run lasts past its last step when the
// scenario gives no duration.
const defaultTail = time.Minute

// configMaps reads the ConfigMaps a scenario names, in its namespace.
type configMaps func(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error)

// workload is a scenario's run before it is addressed to one simulator:
// everything read (ConfigMaps), NodePools still named as in the scenario.
type workload struct {
	run contract.ScenarioRun
}

// buildWorkload reads what scn names and makes its run, starting at start.
func buildWorkload(ctx context.Context, scn *v1alpha1.Scenario, read configMaps, start time.Time) (*workload, error) {
	run := contract.ScenarioRun{RunID: string(scn.UID), StartTime: start, Speed: 1}
	var lastStep time.Duration
	for i, step := range scn.Spec.Timeline {
		out := contract.ScenarioRunStep{AtMilliseconds: step.At.Milliseconds()}
		lastStep = max(lastStep, step.At.Duration)
		var err error
		switch {
		case step.Create != nil:
			out.Create, err = objects(ctx, scn.Namespace, step.Create, read)
		case step.Delete != nil:
			out.Delete, err = objects(ctx, scn.Namespace, step.Delete, read)
		case step.Scale != nil:
			out.Scale = &contract.ScenarioRunScale{Kind: string(step.Scale.Kind), Namespace: step.Scale.Namespace, Name: step.Scale.Name, Replicas: step.Scale.Replicas}
		case step.Wait != nil:
			timeout := time.Minute
			if step.Wait.Timeout != nil {
				timeout = step.Wait.Timeout.Duration
			}
			out.Wait = &contract.ScenarioRunWait{For: string(step.Wait.For), TimeoutMilliseconds: timeout.Milliseconds()}
		}
		if err != nil {
			return nil, fmt.Errorf("spec.timeline[%d]: %w", i, err)
		}
		run.Steps = append(run.Steps, out)
	}
	duration := lastStep + defaultTail
	if tr := scn.Spec.Trace; tr != nil {
		events, err := trace(ctx, scn.Namespace, tr, read)
		if err != nil {
			return nil, fmt.Errorf("spec.trace: %w", err)
		}
		run.Trace = events
		if tr.Speed > 0 {
			run.Speed = tr.Speed
		}
		duration = 0
		if len(events) > 0 {
			duration = events[len(events)-1].Time.Sub(events[0].Time)
		}
	}
	if scn.Spec.Duration != nil {
		duration = scn.Spec.Duration.Duration
	}
	run.DurationMilliseconds = duration.Milliseconds() / int64(run.Speed)
	return &workload{run: run}, nil
}

// forSimulator addresses the workload to one simulator: the NodePools it
// scales are that simulator's.
func (w *workload) forSimulator(simulator string) *contract.ScenarioRun {
	run := w.run
	run.Steps = slices.Clone(w.run.Steps)
	for i, step := range run.Steps {
		if step.Scale == nil || step.Scale.Kind != contract.ScaleKindNodePool {
			continue
		}
		scale := *step.Scale
		scale.Name = poolName(simulator, scale.Name)
		scale.NodeSelector = map[string]string{sim.LabelNodePool: scale.Name}
		run.Steps[i].Scale = &scale
	}
	return &run
}

// poolName is the host NodePool that holds the scenario's pool in simulator.
func poolName(simulator, pool string) string { return simulator + "-" + pool }

// objects are a step's objects as JSON.
func objects(ctx context.Context, namespace string, o *v1alpha1.ScenarioObjects, read configMaps) ([]json.RawMessage, error) {
	if o.ConfigMapName == "" {
		out := make([]json.RawMessage, 0, len(o.Objects))
		for _, raw := range o.Objects {
			out = append(out, rawJSON(raw))
		}
		return out, nil
	}
	cm, err := read(ctx, namespace, o.ConfigMapName)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s: %w", o.ConfigMapName, err)
	}
	var out []json.RawMessage
	// Keys in order, so that every simulator gets the same steps.
	for _, key := range slices.Sorted(maps.Keys(cm.Data)) {
		docs, err := documents(cm.Data[key])
		if err != nil {
			return nil, fmt.Errorf("ConfigMap %s, key %s: %w", o.ConfigMapName, key, err)
		}
		out = append(out, docs...)
	}
	return out, nil
}

func rawJSON(raw runtime.RawExtension) json.RawMessage {
	if raw.Raw != nil {
		return json.RawMessage(raw.Raw)
	}
	b, _ := json.Marshal(raw.Object)
	return b
}

// documents splits YAML or JSON documents into objects; a List's items
// are objects.
func documents(data string) ([]json.RawMessage, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(data), 4096)
	var out []json.RawMessage
	for {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(obj) == 0 {
			continue
		}
		items := []any{obj}
		if kind, _ := obj["kind"].(string); strings.HasSuffix(kind, "List") {
			if list, ok := obj["items"].([]any); ok {
				items = list
			}
		}
		for _, item := range items {
			b, err := json.Marshal(item)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
}

// trace reads a recorded trace: JSON lines of events, oldest first.
func trace(ctx context.Context, namespace string, tr *v1alpha1.ScenarioTrace, read configMaps) ([]contract.TraceEvent, error) {
	cm, err := read(ctx, namespace, tr.ConfigMapName)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s: %w", tr.ConfigMapName, err)
	}
	key := tr.Key
	if key == "" {
		key = "trace"
	}
	data, ok := cm.Data[key]
	if !ok {
		return nil, fmt.Errorf("ConfigMap %s has no key %q", tr.ConfigMapName, key)
	}
	var events []contract.TraceEvent
	scanner := bufio.NewScanner(strings.NewReader(data))
	scanner.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; scanner.Scan(); line++ {
		b := bytes.TrimSpace(scanner.Bytes())
		if len(b) == 0 {
			continue
		}
		var e contract.TraceEvent
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("ConfigMap %s, key %s, line %d: %w", tr.ConfigMapName, key, line, err)
		}
		if n := len(events); n > 0 && e.Time.Before(events[n-1].Time) {
			return nil, fmt.Errorf("ConfigMap %s, key %s, line %d: the events are not in time order", tr.ConfigMapName, key, line)
		}
		events = append(events, e)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("ConfigMap %s, key %s: %w", tr.ConfigMapName, key, err)
	}
	return events, nil
}

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
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

func fakeConfigMaps(cms ...*corev1.ConfigMap) configMaps {
	return func(_ context.Context, namespace, name string) (*corev1.ConfigMap, error) {
		for _, cm := range cms {
			if cm.Namespace == namespace && cm.Name == name {
				return cm, nil
			}
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
	}
}

func TestBuildWorkloadTimeline(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "objs"}, Data: map[string]string{
		// Keys are read in order: a.yaml before b.yaml.
		"b.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p2}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p3}\n",
		"a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n---\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p1}\n",
	}}
	scn := &v1alpha1.Scenario{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "s", UID: "uid-1"},
		Spec: v1alpha1.ScenarioSpec{Timeline: []v1alpha1.ScenarioStep{
			{At: metav1.Duration{}, Create: &v1alpha1.ScenarioObjects{Objects: []runtime.RawExtension{{Raw: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"apps"}}`)}}}},
			{At: metav1.Duration{Duration: time.Second}, Create: &v1alpha1.ScenarioObjects{ConfigMapName: "objs"}},
			{At: metav1.Duration{Duration: 2 * time.Second}, Scale: &v1alpha1.ScenarioScale{Kind: v1alpha1.ScaleNodePool, Name: "small", Replicas: 5}},
			{At: metav1.Duration{Duration: 3 * time.Second}, Wait: &v1alpha1.ScenarioWait{For: v1alpha1.WaitPodsSettled}},
		}},
	}
	start := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	w, err := buildWorkload(t.Context(), scn, fakeConfigMaps(cm), start)
	if err != nil {
		t.Fatal(err)
	}
	if w.run.RunID != "uid-1" || !w.run.StartTime.Equal(start) || w.run.Speed != 1 {
		t.Errorf("run = %+v", w.run)
	}
	// No duration: the last step and a minute.
	if w.run.DurationMilliseconds != 63_000 {
		t.Errorf("duration = %d ms, want 63000", w.run.DurationMilliseconds)
	}
	var names []string
	for _, o := range w.run.Steps[1].Create {
		var m struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		if err := json.Unmarshal(o, &m); err != nil {
			t.Fatal(err)
		}
		names = append(names, m.Metadata.Name)
	}
	if got := strings.Join(names, ","); got != "apps,p1,p2,p3" {
		t.Errorf("objects from the ConfigMap = %s, want apps,p1,p2,p3", got)
	}
	if wait := w.run.Steps[3].Wait; wait == nil || wait.For != contract.WaitForPodsSettled || wait.TimeoutMilliseconds != 60_000 {
		t.Errorf("wait step = %+v", wait)
	}
	// Each simulator scales its own copy of the pool.
	a, b := w.forSimulator("s-least"), w.forSimulator("s-most")
	if got := a.Steps[2].Scale; got.Name != "s-least-small" || got.NodeSelector[sim.LabelNodePool] != "s-least-small" || got.Replicas != 5 {
		t.Errorf("scale for s-least = %+v", got)
	}
	if got := b.Steps[2].Scale.Name; got != "s-most-small" {
		t.Errorf("scale for s-most names %s", got)
	}
	if w.run.Steps[2].Scale.Name != "small" {
		t.Error("forSimulator changed the shared workload")
	}
	// A missing ConfigMap names the step.
	if _, err := buildWorkload(t.Context(), scn, fakeConfigMaps(), start); err == nil || !strings.Contains(err.Error(), "spec.timeline[1]") {
		t.Errorf("missing ConfigMap: %v", err)
	}
}

func TestBuildWorkloadTrace(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	line := func(d time.Duration, typ, name string) string {
		b, _ := json.Marshal(contract.TraceEvent{Time: t0.Add(d), Type: typ, Resource: "pods", Namespace: "default", Name: name})
		return string(b)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "tr"}, Data: map[string]string{
		"trace": strings.Join([]string{line(0, "ADDED", "a"), "", line(30*time.Minute, "ADDED", "b"), line(time.Hour, "DELETED", "a")}, "\n"),
		"bad":   strings.Join([]string{line(time.Hour, "ADDED", "a"), line(0, "ADDED", "b")}, "\n"),
	}}
	scn := &v1alpha1.Scenario{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "s"},
		Spec:       v1alpha1.ScenarioSpec{Trace: &v1alpha1.ScenarioTrace{ConfigMapName: "tr", Speed: 60}},
	}
	w, err := buildWorkload(t.Context(), scn, fakeConfigMaps(cm), t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.run.Trace) != 3 || w.run.Speed != 60 {
		t.Fatalf("trace of %d events at speed %d", len(w.run.Trace), w.run.Speed)
	}
	// An hour of trace at 60x is a minute of run.
	if w.run.DurationMilliseconds != 60_000 {
		t.Errorf("duration = %d ms, want 60000", w.run.DurationMilliseconds)
	}
	scn.Spec.Trace.Key = "bad"
	if _, err := buildWorkload(t.Context(), scn, fakeConfigMaps(cm), t0); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("events out of order: %v", err)
	}
}

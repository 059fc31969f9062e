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

package sharedruntime

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	kwokconfig "sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/utils/lifecycle"
)

// simulatorStages is the simulator's stage file, which the kwok run here
// plays (the simulator passes it as kwok's --config).
const simulatorStages = "../../../simulator/internal/controlplane/kwok-stages.yaml"

// TestSimulatorPodStages: kwok, as run here, picks the simulator's Pod
// stages as they say: a Pending Pod is made Running, a graceful deletion
// is finished, and nothing else is played (a deletion with grace period 0
// is kube-apiserver's alone, a Running Pod stays so).
func TestSimulatorPodStages(t *testing.T) {
	objs, err := kwokconfig.Load(t.Context(), simulatorStages)
	if err != nil {
		t.Fatal(err)
	}
	var stages []*internalversion.Stage
	for _, s := range kwokconfig.FilterWithType[*internalversion.Stage](objs) {
		if s.Spec.ResourceRef.Kind == "Pod" {
			stages = append(stages, s)
		}
	}
	lc, err := lifecycle.NewLifecycle(stages)
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	deleting := func(grace *int64, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now, DeletionGracePeriodSeconds: grace}, Status: corev1.PodStatus{Phase: phase}}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"pending", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending}}, "simulator-pod-running"},
		{"running", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}}, ""},
		{"succeeded", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, ""},
		{"deleted gracefully", deleting(ptr.To[int64](30), corev1.PodRunning), "simulator-pod-delete"},
		{"deleted gracefully while pending", deleting(ptr.To[int64](1), corev1.PodPending), "simulator-pod-delete"},
		{"deleted at once", deleting(ptr.To[int64](0), corev1.PodRunning), ""},
		{"deleted without a grace period", deleting(nil, corev1.PodPending), ""},
	} {
		st, err := lc.Match(t.Context(), &lifecycle.Event{Labels: tc.pod.Labels, Annotations: tc.pod.Annotations, Data: tc.pod})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := ""
		if st != nil {
			got = st.Name()
		}
		if got != tc.want {
			t.Errorf("%s: stage %q, want %q", tc.name, got, tc.want)
		}
	}
}

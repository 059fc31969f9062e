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

package simulator

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
)

// TestWhyNewPod: a new Pod keeps the inner objects when they were where
// its etcd data is (an etcd data claim, an external etcd), and says so; a
// Pod's own etcd, or data that moved, starts over.
func TestWhyNewPod(t *testing.T) {
	simulator := func(generation int64, claim, etcdURL string) *v1alpha1.Simulator {
		return &v1alpha1.Simulator{
			ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u1", Generation: generation},
			Spec: v1alpha1.SimulatorSpec{KubeAPIServerPort: 3131, SimulatorServerPort: 1212, Image: "sim:v1",
				EtcdPersistentVolumeClaimName: claim, EtcdURL: etcdURL},
		}
	}
	pod := func(s *v1alpha1.Simulator) *corev1.Pod {
		p, err := backing.Pod(s, backing.Local(s))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The simulator as the status last showed it: Available with Pod podName.
	seen := func(s *v1alpha1.Simulator, podName string) *v1alpha1.Simulator {
		s.Annotations = map[string]string{AnnotationObservedStatus: backing.Digest(sim.SimulatorStatus{Phase: sim.SimulatorAvailable, PodName: podName,
			Conditions: []metav1.Condition{{Type: "Available", Reason: "PodReady"}}})}
		return s
	}
	failed := func(p *corev1.Pod) *corev1.Pod {
		p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted"
		return p
	}
	for _, tc := range []struct {
		name             string
		s                *v1alpha1.Simulator
		replaced, failed *corev1.Pod
		wantReason       string
		wantKept         bool
		wantMessage      string
	}{
		{name: "first Pod", s: simulator(1, "", ""), wantMessage: "Created Pod sim-s-g1"},
		{name: "first Pod on a claim", s: simulator(1, "data", ""), wantMessage: "Created Pod sim-s-g1"},
		{name: "spec change, Pod's etcd", s: simulator(2, "", ""), replaced: pod(simulator(1, "", "")),
			wantReason: "PodReplaced", wantMessage: "the inner cluster starts empty"},
		{name: "spec change, same claim", s: simulator(2, "data", ""), replaced: pod(simulator(1, "data", "")),
			wantReason: "PodReplaced", wantKept: true, wantMessage: "the inner cluster keeps its objects (its etcd data is on claim data)"},
		{name: "spec change, other claim", s: simulator(2, "other", ""), replaced: pod(simulator(1, "data", "")),
			wantReason: "PodReplaced", wantMessage: "the inner cluster starts from what claim other holds"},
		{name: "spec change, a claim at last", s: simulator(2, "data", ""), replaced: pod(simulator(1, "", "")),
			wantReason: "PodReplaced", wantMessage: "the inner cluster starts from what claim data holds"},
		{name: "spec change, claim dropped", s: simulator(2, "", ""), replaced: pod(simulator(1, "data", "")),
			wantReason: "PodReplaced", wantMessage: "the inner cluster starts empty"},
		{name: "spec change, external etcd", s: simulator(2, "", "http://etcd:2379"), replaced: pod(simulator(1, "", "http://etcd:2379")),
			wantReason: "PodReplaced", wantKept: true, wantMessage: "the inner cluster keeps its objects (external etcd)"},
		{name: "failed Pod on a claim", s: simulator(1, "data", ""), failed: failed(pod(simulator(1, "data", ""))),
			wantReason: "PodRecreated", wantKept: true, wantMessage: "the inner cluster keeps its objects"},
		{name: "failed Pod, Pod's etcd", s: simulator(1, "", ""), failed: failed(pod(simulator(1, "", ""))),
			wantReason: "PodRecreated", wantMessage: "the inner cluster starts empty"},
		// The Pod ended before this sync (it waited for it): the claim is
		// the spec's, which the Pod of this generation had too.
		{name: "Pod gone, on a claim", s: seen(simulator(1, "data", ""), "sim-s-g1"),
			wantReason: "PodRecreated", wantKept: true, wantMessage: "Pod sim-s-g1 was gone: made it again; the inner cluster keeps its objects"},
		{name: "Pod gone, Pod's etcd", s: seen(simulator(1, "", ""), "sim-s-g1"),
			wantReason: "PodRecreated", wantMessage: "Pod sim-s-g1 was gone: made it again; the inner cluster starts empty"},
		{name: "older Pod gone, on a claim", s: seen(simulator(2, "data", ""), "sim-s-g1"),
			wantReason: "PodReplaced", wantKept: true, wantMessage: "Pod sim-s-g2 replaces sim-s-g1 (generation 2); the inner cluster keeps its objects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, message, kept := whyNewPod(tc.s, pod(tc.s), tc.replaced, tc.failed)
			if reason != tc.wantReason || kept != tc.wantKept || !strings.Contains(message, tc.wantMessage) {
				t.Errorf("whyNewPod = %q, %q, kept %v; want %q, kept %v, a message containing %q",
					reason, message, kept, tc.wantReason, tc.wantKept, tc.wantMessage)
			}
			// The Event: its reason is whyNewPod's, a Warning when the
			// objects are gone.
			wantType, wantEventReason := corev1.EventTypeNormal, tc.wantReason
			switch {
			case tc.wantReason == "":
				wantEventReason = "PodCreated"
			case !tc.wantKept:
				wantType = corev1.EventTypeWarning
			}
			if gotType, gotReason := newPodEvent(reason, kept); gotType != wantType || gotReason != wantEventReason {
				t.Errorf("Event %s %s, want %s %s", gotType, gotReason, wantType, wantEventReason)
			}
		})
	}
}

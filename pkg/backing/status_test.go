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

package backing

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

const exampleUID = "uid-of-example"

func podOf(gen string, mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:            "sim-example-g" + gen,
			Labels:          map[string]string{sim.LabelGeneration: gen},
			OwnerReferences: []metav1.OwnerReference{OwnerReference(&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "example", UID: exampleUID}})},
		},
		Spec:   corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func ready(p *corev1.Pod) {
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue})
}

func waiting(reason string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "simulator", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "boom"}}}}
	}
}

// exited gives the simulator container a last termination with message,
// as the kubelet does, then mutates its status.
func exited(message string, mutate func(*corev1.ContainerStatus)) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		cs := corev1.ContainerStatus{Name: "simulator", LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", Message: message, FinishedAt: metav1.Unix(2000, 0),
		}}}
		mutate(&cs)
		p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
	}
}

func crashLooping(cs *corev1.ContainerStatus) {
	cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 10s restarting failed container=simulator"}
}

func running(cs *corev1.ContainerStatus) {
	cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.Unix(2010, 0)}
}

func notReadySince(sec int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Unix(sec, 0)})
	}
}

func all(mutate ...func(*corev1.Pod)) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		for _, m := range mutate {
			m(p)
		}
	}
}

func TestStatusPhases(t *testing.T) {
	const etcdRefused = "EtcdUnavailable: kube-apiserver has not been ready for 20s and its etcd cannot be used: etcd https://etcd:2379: remote error: tls: certificate required"
	now := metav1.Now()
	base := &sim.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "ns", Generation: 2},
		Spec:       sim.SimulatorSpec{KubeAPIServerPort: 3131},
	}
	deleting := base.DeepCopy()
	deleting.DeletionTimestamp = &now
	cases := []struct {
		name    string
		sim     *sim.Simulator
		pod     *corev1.Pod
		phase   sim.SimulatorPhase
		message string
		reason  string // of the Available condition; empty: the phase
	}{
		{"no pod", base, nil, sim.SimulatorPending, "created", ""},
		{"old generation", base, podOf("1", ready), sim.SimulatorPending, "replacing", ""},
		{"unscheduled", base, podOf("2", func(p *corev1.Pod) { p.Spec.NodeName = "" }), sim.SimulatorPending, "scheduled", ""},
		{"unschedulable", base, podOf("2", func(p *corev1.Pod) {
			p.Spec.NodeName = ""
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
				Message: "0/1 nodes are available: 1 Insufficient memory."}}
		}), sim.SimulatorPending, "cannot be scheduled: 0/1 nodes are available: 1 Insufficient memory.", "Unschedulable"},
		{"scheduled, not ready", base, podOf("2", nil), sim.SimulatorCreating, "ready", ""},
		{"ready", base, podOf("2", ready), sim.SimulatorAvailable, "ready", ""},
		{"crash loop", base, podOf("2", waiting("CrashLoopBackOff")), sim.SimulatorFailed, "CrashLoopBackOff: boom", ""},
		{"image pull", base, podOf("2", waiting("ImagePullBackOff")), sim.SimulatorFailed, "ImagePullBackOff", ""},
		{"still creating containers", base, podOf("2", waiting("ContainerCreating")), sim.SimulatorCreating, "ready", ""},
		{"pod failed", base, podOf("2", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed; p.Status.Reason = "Evicted" }), sim.SimulatorFailed, "Evicted", ""},
		{"deleting", deleting, podOf("2", ready), sim.SimulatorTerminating, "removing", ""},
		// The simulator's termination message (package termination) is why.
		{"crash loop, etcd refuses", base, podOf("2", exited(etcdRefused, crashLooping)), sim.SimulatorFailed,
			"container simulator exited: kube-apiserver has not been ready for 20s and its etcd cannot be used: etcd https://etcd:2379: remote error: tls: certificate required (CrashLoopBackOff: back-off 10s", "EtcdUnavailable"},
		{"started again, etcd refused", base, podOf("2", all(notReadySince(1000), exited(etcdRefused, running))), sim.SimulatorCreating,
			"started again after it exited: kube-apiserver has not been ready for 20s and its etcd cannot be used: etcd https://etcd:2379: remote error", "EtcdUnavailable"},
		{"exited, not started again yet", base, podOf("2", all(notReadySince(1000), exited(etcdRefused, func(cs *corev1.ContainerStatus) {
			cs.State.Terminated, cs.LastTerminationState.Terminated = cs.LastTerminationState.Terminated, nil
		}))), sim.SimulatorCreating, "container simulator of Pod sim-example-g2 exited: kube-apiserver has not been ready", "EtcdUnavailable"},
		{"ready again", base, podOf("2", all(ready, exited(etcdRefused, func(cs *corev1.ContainerStatus) { running(cs); cs.Ready = true }))), sim.SimulatorAvailable, "ready", ""},
		{"not ready since, for another reason", base, podOf("2", all(notReadySince(3000), exited(etcdRefused, running))), sim.SimulatorCreating, "waiting for the inner", ""},
		{"crash loop, message without a reason", base, podOf("2", exited("scheduler configuration: unknown plugin", crashLooping)), sim.SimulatorFailed,
			"container simulator exited: scheduler configuration: unknown plugin (CrashLoopBackOff", ""},
		{"a reason the simulator does not give", base, podOf("2", exited("Forged: reason", crashLooping)), sim.SimulatorFailed, "exited: Forged: reason", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := Status(tc.sim, tc.pod, nil)
			if st.Phase != tc.phase || !strings.Contains(st.Message, tc.message) {
				t.Errorf("phase %q message %q; want %q containing %q", st.Phase, st.Message, tc.phase, tc.message)
			}
			if st.KubeAPIServerURL != "https://sim-example.ns.svc:3131" {
				t.Errorf("URL %q", st.KubeAPIServerURL)
			}
			// Available first, which the reconciler's digest reads, then InnerStatePreserved.
			if len(st.Conditions) != 2 || st.Conditions[0].Type != sim.SimulatorConditionAvailable ||
				(st.Conditions[0].Status == metav1.ConditionTrue) != (tc.phase == sim.SimulatorAvailable) {
				t.Fatalf("Available condition %+v for phase %s", st.Conditions, st.Phase)
			}
			reason := tc.reason
			if reason == "" {
				reason = string(tc.phase)
			}
			if c := st.Conditions[0]; c.Reason != reason || c.Message != st.Message {
				t.Errorf("Available condition reason %q message %q; want reason %q and the status message", c.Reason, c.Message, reason)
			}
		})
	}
}

// TestStatusHostingUnreachable: a hosted simulator whose hosting cluster
// cannot be read is Pending (Terminating once deleted) with Available
// Unknown for HostingClusterUnreachable and the error, whatever its last
// Pod seen said, and names no Pod.
func TestStatusHostingUnreachable(t *testing.T) {
	now := metav1.Now()
	s := &sim.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "ns", UID: exampleUID, Generation: 2}}
	deleted := s.DeepCopy()
	deleted.DeletionTimestamp = &now
	err := errors.New(`the hosting cluster b.example refused the credentials: 401 Unauthorized`)
	for _, tc := range []struct {
		sim     *sim.Simulator
		phase   sim.SimulatorPhase
		message string
	}{
		{s, sim.SimulatorPending, "cannot reach the hosting cluster (spec.hosting): the hosting cluster b.example refused"},
		{deleted, sim.SimulatorTerminating, "waiting for the hosting cluster (spec.hosting) to remove"},
	} {
		st := Status(tc.sim, podOf("2", ready), err)
		if st.Phase != tc.phase || !strings.Contains(st.Message, tc.message) || !strings.Contains(st.Message, "401 Unauthorized") {
			t.Errorf("phase %q message %q; want %q containing %q and the error", st.Phase, st.Message, tc.phase, tc.message)
		}
		if st.PodName != "" || st.ObservedGeneration != 0 {
			t.Errorf("pod %q generation %d: want nothing said of a Pod not seen", st.PodName, st.ObservedGeneration)
		}
		if len(st.Conditions) != 2 {
			t.Fatalf("conditions %+v", st.Conditions)
		}
		if c := st.Conditions[0]; c.Type != sim.SimulatorConditionAvailable || c.Status != metav1.ConditionUnknown ||
			c.Reason != sim.SimulatorReasonHostingClusterUnreachable || c.Message != st.Message {
			t.Errorf("Available condition %+v", c)
		}
	}
	if st := Status(s, podOf("2", ready), nil); st.Phase != sim.SimulatorAvailable {
		t.Errorf("reachable: phase %s, want Available", st.Phase)
	}
}

func TestPickPod(t *testing.T) {
	now := metav1.Now()
	old, cur := podOf("1", nil), podOf("2", nil)
	curDeleting := podOf("2", func(p *corev1.Pod) { p.DeletionTimestamp = &now })
	if got := PickPod([]*corev1.Pod{old, cur}, "example", ReferenceOwner(exampleUID), 2); got != cur {
		t.Errorf("want the current generation's pod, got %s", got.Name)
	}
	if got := PickPod([]*corev1.Pod{curDeleting, old, cur}, "example", ReferenceOwner(exampleUID), 2); got != cur {
		t.Errorf("want the live pod of the current generation, got %v", got)
	}
	if got := PickPod([]*corev1.Pod{old, podOf("0", nil)}, "example", ReferenceOwner(exampleUID), 2); got != old {
		t.Errorf("without one of the current generation, want the newest, got %s", got.Name)
	}
	if PickPod(nil, "example", ReferenceOwner(exampleUID), 1) != nil {
		t.Error("no pods, no pick")
	}
	// Labels alone are anyone's: Pods that another simulator (of the same
	// name, before a recreate) or nobody controls are never picked.
	forged := podOf("3", func(p *corev1.Pod) { p.OwnerReferences = nil })
	other := podOf("3", func(p *corev1.Pod) { p.OwnerReferences[0].UID = "another-uid" })
	notController := podOf("3", func(p *corev1.Pod) { p.OwnerReferences[0].Controller = nil })
	otherKind := podOf("3", func(p *corev1.Pod) { p.OwnerReferences[0].Kind = "ReplicaSet" })
	if got := PickPod([]*corev1.Pod{forged, other, notController, otherKind, old}, "example", ReferenceOwner(exampleUID), 3); got != old {
		t.Errorf("with Pods the simulator does not control, want its own, got %s (owners %+v)", got.Name, got.OwnerReferences)
	}
	if got := PickPod([]*corev1.Pod{forged}, "example", ReferenceOwner(""), 3); got != nil {
		t.Errorf("a simulator without a UID owns nothing, got %s", got.Name)
	}
	// The owner reference with the simulator's UID (readable with view),
	// under a name that is not the server's for that generation, or with
	// another simulator's name in the reference: still not the simulator's.
	renamed := podOf("3", func(p *corev1.Pod) { p.Name = "listener" })
	otherGeneration := podOf("3", func(p *corev1.Pod) { p.Name = "sim-example-g2" })
	refNamed := podOf("3", func(p *corev1.Pod) { p.Name, p.OwnerReferences[0].Name = "sim-evil-g3", "evil" })
	if got := PickPod([]*corev1.Pod{renamed, otherGeneration, refNamed, old}, "example", ReferenceOwner(exampleUID), 3); got != old {
		t.Errorf("with owner references forged under other names, want its own Pod, got %s", got.Name)
	}
	// Hosted: the server's signature, not the owner reference, makes a
	// Pod the simulator's.
	signer := testSigner(t, 1)
	owner := signer.Owner(claim)
	hosted := func(gen, uid string) *corev1.Pod {
		return podOf(gen, func(p *corev1.Pod) { p.OwnerReferences, p.Namespace, p.UID = nil, "sims", types.UID(uid) })
	}
	signedOld, unsigned, referenced := hosted("1", "u1"), hosted("2", "u2"), podOf("2", nil)
	if err := owner.Sign(signedOld); err != nil {
		t.Fatal(err)
	}
	if got := PickPod([]*corev1.Pod{unsigned, referenced, signedOld}, "example", owner, 2); got != signedOld {
		t.Errorf("hosted: want the signed Pod, got %v", got)
	}
}

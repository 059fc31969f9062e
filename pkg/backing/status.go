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
	"fmt"
	"strings"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
)

// waitingFailures are container waiting reasons that do not resolve without a
// change to the simulator (or the node): the simulator has Failed.
var waitingFailures = sets.New(
	"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "ErrImageNeverPull", "InvalidImageName",
	"CreateContainerConfigError", "CreateContainerError", "RunContainerError",
)

// PickPod chooses, among the Pods labelled with a simulator, the one its
// status speaks for and the proxy routes to: of those the simulator (of that
// name, which owner is) owns under the names the server gives them (OwnedPod),
// the Pod of the current generation if there is one, else the newest. A Pod
// that only carries the labels, or the owner reference too, is never picked.
func PickPod(pods []*corev1.Pod, simulator string, owner Owner, generation int64) *corev1.Pod {
	var best *corev1.Pod
	for _, p := range pods {
		switch {
		case !OwnedPod(p, simulator, owner):
			continue
		case best == nil:
			best = p
		case PodGeneration(p) == generation && PodGeneration(best) != generation:
			best = p
		case PodGeneration(p) == PodGeneration(best) && best.DeletionTimestamp != nil && p.DeletionTimestamp == nil:
			best = p
		case PodGeneration(best) != generation && PodGeneration(p) > PodGeneration(best):
			best = p
		}
	}
	return best
}

// Status computes a simulator's status from its record and the Pod PickPod
// chose (nil when it has none). It is the one definition of the phases: the
// registry serves it on every read, the reconciler watches it change.
// hosting is why the hosting cluster of a hosted simulator cannot be read
// (nil when it can, or the simulator is not hosted): its Pod is then not
// seen, and the status says so rather than trust the last one seen.
func Status(s *sim.Simulator, pod *corev1.Pod, hosting error) sim.SimulatorStatus {
	st := sim.SimulatorStatus{
		KubeAPIServerURL: KubeAPIServerURL(s.Name, s.Namespace, s.Spec.KubeAPIServerPort),
	}
	if hosting != nil {
		return unreachableStatus(s, st, hosting)
	}
	since := s.CreationTimestamp
	if pod != nil {
		st.PodName = pod.Name
		st.ObservedGeneration = PodGeneration(pod)
		if c := podCondition(pod, corev1.PodReady); c != nil && !c.LastTransitionTime.IsZero() {
			since = c.LastTransitionTime
		}
	}
	var reason string
	st.Phase, reason, st.Message = phase(s, pod)
	if s.DeletionTimestamp != nil {
		since = *s.DeletionTimestamp
	}
	available := metav1.ConditionFalse
	if st.Phase == sim.SimulatorAvailable {
		available = metav1.ConditionTrue
	}
	st.Conditions = []metav1.Condition{{
		Type:               sim.SimulatorConditionAvailable,
		Status:             available,
		ObservedGeneration: st.ObservedGeneration,
		LastTransitionTime: since,
		Reason:             reason,
		Message:            st.Message,
	}, innerStateCondition(s, st.ObservedGeneration)}
	st.Source = sourceStatus(s)
	return st
}

// Digest is a status as the reconciler records it on the simulator
// (sim.AnnotationObservedStatus): phase/reason/pod/observedGeneration. The
// reconciler writes it when it changes, so that watchers get an event; a
// replica serving the API compares it with what its own cache shows.
func Digest(st sim.SimulatorStatus) string {
	return fmt.Sprintf("%s/%s/%s/%d", st.Phase, st.Conditions[0].Reason, st.PodName, st.ObservedGeneration)
}

// Observed is what a digest says of a status: its phase and the Pod it was
// computed from.
type Observed struct {
	Phase sim.SimulatorPhase
	Pod   string
}

// ParseDigest reads a Digest; empty if it is none.
func ParseDigest(digest string) Observed {
	parts := strings.Split(digest, "/")
	if len(parts) != 4 {
		return Observed{}
	}
	return Observed{Phase: sim.SimulatorPhase(parts[0]), Pod: parts[2]}
}

// unreachableStatus is the status of a simulator whose hosting cluster
// cannot be read: Pending (Terminating once deleted), Available Unknown.
// Nothing is known of its Pod, so nothing of it is said.
func unreachableStatus(s *sim.Simulator, st sim.SimulatorStatus, err error) sim.SimulatorStatus {
	st.Phase = sim.SimulatorPending
	st.Message = fmt.Sprintf("cannot reach the hosting cluster (spec.hosting): %v", err)
	since := s.CreationTimestamp
	if s.DeletionTimestamp != nil {
		st.Phase = sim.SimulatorTerminating
		st.Message = fmt.Sprintf("waiting for the hosting cluster (spec.hosting) to remove the simulator's Pod, Service and credentials: %v", err)
		since = *s.DeletionTimestamp
	}
	st.Conditions = []metav1.Condition{{
		Type:               sim.SimulatorConditionAvailable,
		Status:             metav1.ConditionUnknown,
		LastTransitionTime: since,
		Reason:             sim.SimulatorReasonHostingClusterUnreachable,
		Message:            st.Message,
	}, innerStateCondition(s, 0)}
	st.Source = sourceStatus(s)
	return st
}

// phase returns the simulator's phase, the reason of its Available
// condition (the phase, or a finer CamelCase word: Unschedulable, or the
// reason a container gave for ending, such as EtcdUnavailable) and a
// message.
func phase(s *sim.Simulator, pod *corev1.Pod) (sim.SimulatorPhase, string, string) {
	p, reason, msg := coarsePhase(s, pod)
	// Pending, as its Pod is: it is scheduled once room is made (another
	// simulator deleted, a node added), with no change to the simulator.
	if p == sim.SimulatorPending && pod != nil && pod.Spec.NodeName == "" {
		if c := podCondition(pod, corev1.PodScheduled); c != nil && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return p, corev1.PodReasonUnschedulable, fmt.Sprintf("Pod %s cannot be scheduled: %s", pod.Name, c.Message)
		}
	}
	if reason == "" {
		reason = string(p)
	}
	return p, reason, msg
}

// coarsePhase returns the phase, a reason finer than the phase or "", and
// a message.
func coarsePhase(s *sim.Simulator, pod *corev1.Pod) (sim.SimulatorPhase, string, string) {
	switch {
	case s.DeletionTimestamp != nil:
		return sim.SimulatorTerminating, "", "removing the simulator's Pod, Service and credentials"
	case s.Annotations[AnnotationNotOwned] != "":
		return sim.SimulatorFailed, "", s.Annotations[AnnotationNotOwned]
	case pod == nil:
		return sim.SimulatorPending, "", "waiting for the Pod to be created"
	case PodGeneration(pod) != s.Generation:
		return sim.SimulatorPending, "", fmt.Sprintf("replacing Pod %s (generation %d) for generation %d", pod.Name, PodGeneration(pod), s.Generation)
	case pod.DeletionTimestamp != nil:
		return sim.SimulatorPending, "", fmt.Sprintf("Pod %s is terminating", pod.Name)
	case pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded:
		return sim.SimulatorFailed, "", fmt.Sprintf("Pod %s has %s: %s %s", pod.Name, pod.Status.Phase, pod.Status.Reason, pod.Status.Message)
	case pod.Spec.NodeName == "":
		return sim.SimulatorPending, "", fmt.Sprintf("waiting for Pod %s to be scheduled", pod.Name)
	}
	for _, statuses := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, cs := range statuses {
			if w := cs.State.Waiting; w != nil && waitingFailures.Has(w.Reason) {
				if reason, last := lastExit(cs); last != "" {
					return sim.SimulatorFailed, reason, fmt.Sprintf("container %s exited: %s (%s: %s)", cs.Name, last, w.Reason, w.Message)
				}
				return sim.SimulatorFailed, "", fmt.Sprintf("container %s: %s: %s", cs.Name, w.Reason, w.Message)
			}
		}
	}
	if c := podCondition(pod, corev1.PodReady); c != nil && c.Status == corev1.ConditionTrue {
		return sim.SimulatorAvailable, "", "the inner kube-apiserver and kube-scheduler are ready"
	}
	// Started again after it said why it ended: that reason still, until
	// it is ready, unless the Pod was ready since.
	readySince := metav1.Time{}
	if c := podCondition(pod, corev1.PodReady); c != nil {
		readySince = c.LastTransitionTime
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if t := terminated(cs); t != nil && t.FinishedAt.Before(&readySince) {
			continue
		}
		reason, last := lastExit(cs)
		switch {
		case last == "":
		case cs.State.Terminated != nil:
			return sim.SimulatorCreating, reason, fmt.Sprintf("container %s of Pod %s exited: %s", cs.Name, pod.Name, last)
		default:
			return sim.SimulatorCreating, reason, fmt.Sprintf("container %s of Pod %s started again after it exited: %s", cs.Name, pod.Name, last)
		}
	}
	return sim.SimulatorCreating, "", fmt.Sprintf("waiting for the inner kube-apiserver and kube-scheduler of Pod %s to be ready", pod.Name)
}

// lastExit returns why a container that is not ready last ended, from its
// termination message: the reason, when the message starts with one the
// simulator gives (package termination), and the rest.
func lastExit(cs corev1.ContainerStatus) (reason, message string) {
	t := terminated(cs)
	if cs.Ready || t == nil || t.Message == "" {
		return "", ""
	}
	return contract.ParseTerminationMessage(t.Message)
}

func podCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// terminated is how a container last ended: now, or before it started again.
func terminated(cs corev1.ContainerStatus) *corev1.ContainerStateTerminated {
	if cs.State.Terminated != nil {
		return cs.State.Terminated
	}
	return cs.LastTerminationState.Terminated
}

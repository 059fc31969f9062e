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

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// TestInnerStateAcrossPods makes a ConfigMap and a Deployment inside a
// simulator, then kills its simulator container, deletes its Pod and
// changes its spec. With its etcd data on a claim (a hostPath PV of the
// node, statically bound) the objects are there after each, and
// InnerStatePreserved stays True; the spec change's new Pod is made only
// once the old one is gone (two etcds on one data directory would corrupt
// it). With the Pod's own etcd they survive the container's restart only
// (etcd is another container), and the condition says why they are gone.
func TestInnerStateAcrossPods(t *testing.T) {
	t.Run("claim", func(t *testing.T) { innerStateAcrossPods(t, true) })
	t.Run("pod's etcd", func(t *testing.T) { innerStateAcrossPods(t, false) })
}

func innerStateAcrossPods(t *testing.T, onClaim bool) {
	c := hostCluster(t)
	ctx := t.Context()
	var pvName string
	if onClaim {
		pvName = hostPathVolume(t)
	}
	ns := newNamespace(t, "innerstate-")
	spec := v1alpha1.SimulatorSpec{}
	if onClaim {
		spec.EtcdPersistentVolumeClaimName = boundClaim(t, ns, pvName)
	}
	created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx,
		&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "state"}, Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Before the namespace goes: the node is left as it was found only
	// once the Pod has ended there.
	t.Cleanup(func() { deleteSimulator(t, ns, created.Name) })
	s := waitAvailable(t, ns, created.Name)
	pod := simulatorPod(t, s)
	if onClaim {
		if got := backing.EtcdData(pod); got != "claim "+spec.EtcdPersistentVolumeClaimName {
			t.Fatalf("Pod %s keeps its etcd data on %q, want the claim", pod.Name, got)
		}
	}
	makeInnerObjects(t, innerClient(t, s, pod))

	// (a) The simulator container killed: the kubelet restarts it in the
	// same Pod, whose etcd container runs on.
	restarts := restartCount(pod, contract.SimulatorContainer)
	pid := containerProcess(t, pod, contract.SimulatorContainer, "simulator")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the simulator container's main process (pid %d): %v", pid, err)
	}
	poll(t, "the simulator container to be restarted and the simulator Available", availableTimeout, func(ctx context.Context) (bool, string) {
		got, err := c.Client.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if n := restartCount(got, contract.SimulatorContainer); n <= restarts {
			return false, fmt.Sprintf("%d restarts", n)
		}
		s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return s.Status.Phase == v1alpha1.SimulatorAvailable, fmt.Sprintf("phase %s: %s", s.Status.Phase, s.Status.Message)
	})
	_, pod = checkInnerState(t, ns, created.Name, true, "")

	// (b) The Pod deleted: the reconciler makes it again.
	if err := c.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting the simulator's Pod: %v", err)
	}
	poll(t, "a new Pod, Available", availableTimeout, func(ctx context.Context) (bool, string) {
		got, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		current, err := c.Client.CoreV1().Pods(ns).Get(ctx, got.Status.PodName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return got.Status.Phase == v1alpha1.SimulatorAvailable && current.UID != pod.UID,
			fmt.Sprintf("phase %s with Pod %s (%s)", got.Status.Phase, current.Name, current.UID)
	})
	s, pod = checkInnerState(t, ns, created.Name, onClaim, "PodRecreated")

	// (c) A spec change: a Pod of the new generation replaces it. Watched
	// from before the change, to see which came first.
	pods, err := c.Client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{
		LabelSelector: sim.LabelSimulator + "=" + created.Name, ResourceVersion: pod.ResourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pods.Stop()
	patch := []byte(`{"spec":{"corsAllowedOriginList":["http://localhost:3000"]}}`)
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Patch(ctx, created.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	next := sim.SimulatorPodName(created.Name, s.Generation+1)
	waitForPodAdded(t, pods, pod.Name, next, onClaim)
	poll(t, "the simulator Available with Pod "+next, availableTimeout, func(ctx context.Context) (bool, string) {
		got, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return got.Status.Phase == v1alpha1.SimulatorAvailable && got.Status.PodName == next,
			fmt.Sprintf("phase %s with Pod %s", got.Status.Phase, got.Status.PodName)
	})
	checkInnerState(t, ns, created.Name, onClaim, "PodReplaced")
}

// hostPathVolume makes a PersistentVolume of a directory of the node,
// owned by the user the simulator's Pod runs as (hostPath gets no fsGroup),
// and deletes it after the test.
func hostPathVolume(t *testing.T) string {
	t.Helper()
	c := hostCluster(t)
	dir := filepath.Join(t.TempDir(), "etcd")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, backing.PodUser, backing.PodUser); err != nil {
		t.Fatal(err)
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "innerstate-"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              "",
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: dir, Type: ptr.To(corev1.HostPathDirectory),
			}},
		},
	}
	pv, err := c.Client.CoreV1().PersistentVolumes().Create(t.Context(), pv, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a PersistentVolume: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting PersistentVolume %s: %v", pv.Name, err)
		}
	})
	return pv.Name
}

// boundClaim makes a claim of ns on the PersistentVolume pvName (static
// binding, no storage class) and waits until the host binds them.
func boundClaim(t *testing.T, ns, pvName string) string {
	t.Helper()
	client := hostCluster(t).Client
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "etcd-data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			StorageClassName: ptr.To(""),
			VolumeName:       pvName,
		},
	}
	if _, err := client.CoreV1().PersistentVolumeClaims(ns).Create(t.Context(), pvc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a PersistentVolumeClaim: %v", err)
	}
	poll(t, "the claim to be bound", time.Minute, func(ctx context.Context) (bool, string) {
		got, err := client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, pvc.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return got.Status.Phase == corev1.ClaimBound, fmt.Sprintf("phase %s", got.Status.Phase)
	})
	return pvc.Name
}

// makeInnerObjects makes the objects checkInnerState looks for.
func makeInnerObjects(t *testing.T, inner kubernetes.Interface) {
	t.Helper()
	ctx := t.Context()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "keep-me"}, Data: map[string]string{"k": "v"}}
	if _, err := inner.CoreV1().ConfigMaps(metav1.NamespaceDefault).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a ConfigMap in the simulator: %v", err)
	}
	labels := map[string]string{"app": "keep-me"}
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "keep-me"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
			},
		},
	}
	if _, err := inner.AppsV1().Deployments(metav1.NamespaceDefault).Create(ctx, deployment, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Deployment in the simulator: %v", err)
	}
}

// checkInnerState checks, on the simulator's current Pod, that the objects
// of makeInnerObjects are there (kept) or gone, and that InnerStatePreserved
// says so: True, or False with resetReason. When kept after a new Pod
// (resetReason set), an Event of that reason says the objects are kept.
func checkInnerState(t *testing.T, ns, name string, kept bool, resetReason string) (*v1alpha1.Simulator, *corev1.Pod) {
	t.Helper()
	ctx := t.Context()
	s, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := simulatorPod(t, s)
	inner := innerClient(t, s, pod)
	_, cmErr := inner.CoreV1().ConfigMaps(metav1.NamespaceDefault).Get(ctx, "keep-me", metav1.GetOptions{})
	_, deployErr := inner.AppsV1().Deployments(metav1.NamespaceDefault).Get(ctx, "keep-me", metav1.GetOptions{})
	for what, err := range map[string]error{"ConfigMap": cmErr, "Deployment": deployErr} {
		switch {
		case kept && err != nil:
			t.Errorf("Pod %s: the %s made inside: %v, want it kept", pod.Name, what, err)
		case !kept && !apierrors.IsNotFound(err):
			t.Errorf("Pod %s: the %s made inside: %v, want NotFound (a Pod's own etcd starts empty)", pod.Name, what, err)
		}
	}
	cond := meta.FindStatusCondition(s.Status.Conditions, v1alpha1.SimulatorConditionInnerStatePreserved)
	switch {
	case cond == nil:
		t.Errorf("Pod %s: no %s condition", pod.Name, v1alpha1.SimulatorConditionInnerStatePreserved)
	case kept && cond.Status != metav1.ConditionTrue:
		t.Errorf("Pod %s: %s %s (%s: %s), want True", pod.Name, cond.Type, cond.Status, cond.Reason, cond.Message)
	case !kept && (cond.Status != metav1.ConditionFalse || cond.Reason != resetReason):
		t.Errorf("Pod %s: %s %s (%s: %s), want False, %s", pod.Name, cond.Type, cond.Status, cond.Reason, cond.Message, resetReason)
	}
	if kept && resetReason != "" {
		// What the last List found: an error at the deadline would hide it.
		var seen []string
		poll(t, "an Event "+resetReason+" saying the objects are kept", time.Minute, func(ctx context.Context) (bool, string) {
			events, err := hostCluster(t).Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Simulator,involvedObject.name=" + name})
			if err != nil {
				return false, fmt.Sprintf("%v; Events before: %s", err, strings.Join(seen, "; "))
			}
			seen = seen[:0]
			for _, e := range events.Items {
				if e.Reason == resetReason && e.Type == corev1.EventTypeNormal && strings.Contains(e.Message, "keeps its objects") && strings.Contains(e.Message, pod.Name) {
					return true, ""
				}
				seen = append(seen, e.Type+" "+e.Reason+": "+e.Message)
			}
			return false, strings.Join(seen, "; ")
		})
	}
	return s, pod
}

// waitForPodAdded reads the simulator's Pods' watch until Pod next is
// added. When the Pods share the etcd data, old must have been deleted
// before: the reconciler waits for it.
func waitForPodAdded(t *testing.T, pods watch.Interface, old, next string, oldFirst bool) {
	t.Helper()
	oldGone := false
	timeout := time.After(availableTimeout)
	for {
		select {
		case e, ok := <-pods.ResultChan():
			if !ok {
				t.Fatalf("the Pods' watch ended before Pod %s was added", next)
			}
			pod, isPod := e.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			switch {
			case e.Type == watch.Deleted && pod.Name == old:
				oldGone = true
			case e.Type == watch.Added && pod.Name == next:
				if oldFirst && !oldGone {
					t.Fatalf("Pod %s was made while %s, on the same etcd data, had not ended", next, old)
				}
				t.Logf("Pod %s added; %s gone before: %v", next, old, oldGone)
				return
			}
		case <-timeout:
			t.Fatalf("Pod %s was not added within %v", next, availableTimeout)
		}
	}
}

// deleteSimulator deletes a simulator and waits until its Pods are gone.
func deleteSimulator(t *testing.T, ns, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := simClient(t).SimV1alpha1().Simulators(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting simulator %s/%s: %v", ns, name, err)
		return
	}
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		pods, err := hostCluster(t).Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=" + name})
		return err == nil && len(pods.Items) == 0, nil
	})
	if err != nil {
		t.Errorf("waiting for the Pods of simulator %s/%s to be gone: %v", ns, name, err)
	}
}

// restartCount is how often the kubelet restarted a container of pod.
func restartCount(pod *corev1.Pod, container string) int32 {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == container {
			return cs.RestartCount
		}
	}
	return 0
}

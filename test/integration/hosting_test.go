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

package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing/backingtest"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// hostingNamespace is where the second control plane hosts simulators.
const hostingNamespace = "sims"

// hostingIdentity makes, in hosting, the namespace hostingNamespace and an
// account with rights there alone, and returns its inline kubeconfig.
func hostingIdentity(t *testing.T, hosting *framework.Cluster) []byte {
	t.Helper()
	if _, err := hosting.Client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hostingNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return framework.HostingKubeconfig(t, hosting, hostingNamespace)
}

// labelled are the objects labelled with the simulator in namespace ns,
// by kind and name, and whether each is signed and has no owner reference.
func labelled(ctx context.Context, client kubernetes.Interface, ns, simulator string) (map[string]bool, error) {
	objs, err := backingtest.Objects(ctx, client, ns, simulator)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for k, m := range objs {
		out[k] = m.GetAnnotations()[sim.AnnotationOwnerSignature] != "" && len(m.GetOwnerReferences()) == 0
	}
	return out, nil
}

// TestHosting: a simulator hosted in a second control plane (without a
// node), through a kubeconfig whose identity has rights in one namespace
// there alone, gets its Pod, Service, credentials Secret and NetworkPolicy
// there, signed and without owner references, and none of them here; its
// status is Pending from there (no node schedules its Pod); deleted, it
// leaves nothing there. A kubeconfig whose token the hosting cluster
// refuses gives HostingClusterUnreachable, with the cluster's answer.
func TestHosting(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	hosting, err := framework.StartCluster(startCtx, framework.Options{WithoutSimAPIServer: true})
	cancel()
	if err != nil {
		t.Fatalf("starting the hosting control plane: %v", err)
	}
	t.Cleanup(hosting.Stop)
	kubeconfig := hostingIdentity(t, hosting)

	ns := createNamespace(t, "hosted")
	secrets := c.Client.CoreV1().Secrets(ns)
	for name, data := range map[string][]byte{
		"hosting": kubeconfig,
		"refused": framework.InlineKubeconfig(t, hosting.Host, hosting.CACertPEM(), "not-a-token"),
	} {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string][]byte{contract.SourceKeyKubeconfig: data}}
		if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	sims := c.Sims.SimV1alpha1().Simulators(ns)
	s := newSimulator("hosted")
	s.Spec.Hosting = &v1alpha1.SimulatorHosting{SecretName: "hosting", Namespace: hostingNamespace}
	if _, err := sims.Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a hosted simulator: %v", err)
	}

	want := map[string]bool{
		"Pod/" + sim.SimulatorPodName("hosted", 1): true, "Service/" + sim.SimulatorServiceName("hosted"): true,
		"Secret/" + sim.SimulatorSecretName("hosted"): true, "NetworkPolicy/" + sim.SimulatorNetworkPolicyName("hosted"): true,
	}
	var there map[string]bool
	eventually(t, "the simulator's objects are made in the hosting cluster, signed", func(ctx context.Context) (bool, error) {
		var err error
		there, err = labelled(ctx, hosting.Client, hostingNamespace, "hosted")
		return fmt.Sprint(there) == fmt.Sprint(want), err
	})
	here, err := labelled(ctx, c.Client, ns, "hosted")
	if err != nil {
		t.Fatal(err)
	}
	if len(here) != 0 {
		t.Errorf("objects of the hosted simulator here: %v", here)
	}
	// Its kubeconfig accounts stay here: their tokens are presented here.
	if _, err := c.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "sim-hosted-proxy", metav1.GetOptions{}); err != nil {
		t.Errorf("the kubeconfig account here: %v", err)
	}
	got := waitForPhase(t, c.Sims, ns, "hosted", v1alpha1.SimulatorPending)
	if got.Status.PodName != sim.SimulatorPodName("hosted", 1) {
		t.Errorf("status.podName %q, want the hosted Pod's", got.Status.PodName)
	}

	// The hosting cluster it follows already is asked first, with a dry
	// run there: a Pod its admission refuses (a quota allowing one Pod;
	// its status is unknown without a controller there, which refuses
	// too) is refused at create, and nothing is stored.
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "one-pod"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}}}
	if _, err := hosting.Client.CoreV1().ResourceQuotas(hostingNamespace).Create(ctx, quota, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the hosting cluster's quota admission sees the quota", func(ctx context.Context) (bool, error) {
		probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "probe"}}}}
		_, err := hosting.Client.CoreV1().Pods(hostingNamespace).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return apierrors.IsForbidden(err), nil
	})
	second := newSimulator("second")
	second.Spec.Hosting = s.Spec.Hosting
	if _, err := sims.Create(ctx, second, metav1.CreateOptions{}); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "the hosting cluster refuses the simulator's Pod") {
		t.Errorf("creating a simulator whose Pod the hosting cluster refuses: %v, want 403 saying so", err)
	}
	if _, err := sims.Get(ctx, "second", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused simulator was stored: %v", err)
	}
	if err := hosting.Client.CoreV1().ResourceQuotas(hostingNamespace).Delete(ctx, quota.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// A refused credential: said, with the hosting cluster's answer.
	refused := newSimulator("refused")
	refused.Spec.Hosting = &v1alpha1.SimulatorHosting{SecretName: "refused", Namespace: hostingNamespace}
	if _, err := sims.Create(ctx, refused, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a simulator with a refused credential: %v", err)
	}
	var last v1alpha1.SimulatorStatus
	eventually(t, "HostingClusterUnreachable", func(ctx context.Context) (bool, error) {
		s, err := sims.Get(ctx, "refused", metav1.GetOptions{})
		if apierrors.IsTimeout(err) {
			// Seen twice in CI within seconds of the hosting cluster's
			// start: a 504 on this GET whose body client-go could not
			// read, cause not found. Said, and tried again; a GET that
			// never answers still fails the wait.
			t.Logf("GET refused: %v", err)
			return false, nil
		}
		if err != nil {
			return false, err
		}
		last = s.Status
		i := slices.IndexFunc(s.Status.Conditions, func(c metav1.Condition) bool { return c.Type == string(v1alpha1.SimulatorConditionAvailable) })
		return i >= 0 && s.Status.Conditions[i].Reason == sim.SimulatorReasonHostingClusterUnreachable &&
			strings.Contains(s.Status.Conditions[i].Message, "401 Unauthorized"), nil
	})
	t.Logf("refused: %s: %s", last.Phase, last.Message)
	if err := sims.Delete(ctx, "refused", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// Deleted: nothing left there, then the record goes.
	if err := sims.Delete(ctx, "hosted", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the hosted simulator is gone", func(ctx context.Context) (bool, error) {
		_, err := sims.Get(ctx, "hosted", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	left, err := labelled(ctx, hosting.Client, hostingNamespace, "hosted")
	if err != nil {
		t.Fatal(err)
	}
	// A Pod being deleted (no kubelet to end it) still counts as left.
	if len(left) != 0 {
		t.Errorf("left in the hosting cluster: %v", left)
	}
}

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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// sourceSimulator is a simulator of ns mirroring the namespaces given from
// the Secret secret.
func sourceSimulator(t *testing.T, name, secret string, namespaces ...string) *v1alpha1.Simulator {
	s := withFreePorts(t, newSimulator(name))
	s.Spec.Source = &v1alpha1.SimulatorSource{SecretName: secret, Namespaces: namespaces}
	return s
}

// waitForSource waits until the simulator's status.source is in phase, and
// returns the simulator.
func waitForSource(t *testing.T, ns, name string, phase v1alpha1.SourcePhase) *v1alpha1.Simulator {
	t.Helper()
	var s *v1alpha1.Simulator
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		s, err = simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = fmt.Sprintf("%+v", s.Status.Source)
		return s.Status.Source != nil && s.Status.Source.Phase == phase, nil
	})
	if err != nil {
		t.Fatalf("waiting for the source of %s/%s to be %s: %v; last status.source %s", ns, name, phase, err, last)
	}
	return s
}

// TestSource: spec.source names a Secret its writer must be allowed to get
// (403 otherwise). A simulator reads the host itself as its source, through
// a service-account-token Secret of an account bound to sim-source-reader:
// its Pods pending in the host are pending inside too, and the simulator's
// status.source, and kubectl get's SOURCE column, say the mirror is Synced,
// with what it holds. A Secret whose credentials the source refuses makes
// the source Failed, with the source's own words.
func TestSource(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "source")
	watched := createNamespace(t, "source-watched")
	framework.SourceToken(t, c, ns, "host-reader")

	// The source's workload: Pods Pending in the host, which has no Node.
	for i := range 3 {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "web", Image: "web:1"}},
			},
		}
		if _, err := c.Client.CoreV1().Pods(watched).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("needs get on the Secret", func(t *testing.T) {
		user := simOnlyUser(t, ns, "source-writer")
		out, err := kubectl(t, user, "apply", "-n", ns, "-f", writeManifest(t, `apiVersion: sim.x-k8s.io/v1alpha1
kind: Simulator
metadata:
  name: peek
spec:
  source:
    secretName: host-reader
`))
		if err == nil {
			t.Fatalf("a user who may not get the Secret named it as a source:\n%s", out)
		}
		for _, want := range []string{"Forbidden", "cannot get secrets host-reader", "spec.source.secretName"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		}
	})

	t.Run("mirrors the host", func(t *testing.T) {
		created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, sourceSimulator(t, "mirror", "host-reader", watched), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if src := created.Spec.Source; src.Mode != v1alpha1.SourceModeOnce || src.QPS != contract.DefaultSourceQPS {
			t.Errorf("defaults: mode %q qps %d, want %s %d", src.Mode, src.QPS, v1alpha1.SourceModeOnce, contract.DefaultSourceQPS)
		}
		out, err := kubectl(t, c.KubeconfigPath, "get", "simulator", "mirror", "-n", ns)
		if err != nil || !strings.Contains(out, "Waiting") {
			t.Errorf("kubectl get before the simulator reports: SOURCE is not Waiting (%v):\n%s", err, out)
		}
		p, err := c.RunSimulatorAsProcess(ctx, ns, "mirror")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Stop)
		s := waitForSource(t, ns, "mirror", v1alpha1.SourceSynced)
		if got := s.Status.Source.Objects["pods"]; got != 3 {
			t.Errorf("status.source.objects[pods] = %d, want 3 (%v)", got, s.Status.Source.Objects)
		}
		if s.Status.Source.LastSyncTime == nil {
			t.Error("status.source.lastSyncTime is not set")
		}
		inner := innerClient(t, ns, "mirror")
		pods, err := inner.CoreV1().Pods(watched).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) != 3 {
			t.Errorf("%d Pods inside in %s, want the source's 3", len(pods.Items), watched)
		}
		for _, pod := range pods.Items {
			if pod.Spec.NodeName != "" || pod.Labels["app"] != "web" {
				t.Errorf("Pod %s inside: node %q labels %v, want pending with the source's labels", pod.Name, pod.Spec.NodeName, pod.Labels)
			}
		}
		out, err = kubectl(t, c.KubeconfigPath, "get", "simulator", "mirror", "-n", ns)
		if err != nil || !strings.Contains(out, "Synced") {
			t.Errorf("kubectl get: SOURCE is not Synced (%v):\n%s", err, out)
		}
	})

	t.Run("refused credentials", func(t *testing.T) {
		forged := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "forged"},
			Data: map[string][]byte{
				contract.SourceKeyKubeconfig: fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: host
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: nobody
  user:
    token: not-a-token
contexts:
- name: host
  context: {cluster: host, user: nobody}
current-context: host
`, c.Host),
			},
		}
		if _, err := c.Client.CoreV1().Secrets(ns).Create(ctx, forged, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		s := sourceSimulator(t, "refused", "forged")
		s.Spec.Source.QPS = 5
		if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p, err := c.RunSimulatorAsProcess(ctx, ns, "refused")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Stop)
		got := waitForSource(t, ns, "refused", v1alpha1.SourceFailed)
		if !strings.Contains(got.Status.Source.Message, "Unauthorized") {
			t.Errorf("status.source.message = %q, want the source's Unauthorized", got.Status.Source.Message)
		}
	})
}

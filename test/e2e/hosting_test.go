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
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing/backingtest"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestHostedSimulator is issue 36's e2e: the host cluster itself, reached
// through a kubeconfig whose account has rights in one hosting namespace
// only, hosts a simulator of another namespace. Its Pod runs on the node
// there (none here), it becomes Available, kubectl works inside through
// the simulators/proxy kubeconfig (the route through the hosting cluster's
// pods/proxy and the hop gate), a NodePool makes its Nodes, and deletion
// leaves nothing in the hosting namespace. The same with route NodePort,
// a direct kubeconfig too (checkNodePortRoute).
func TestHostedSimulator(t *testing.T) {
	c := hostCluster(t)
	ns := newNamespace(t, "hosted-")
	hostingNS := newNamespace(t, "hosting-")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sandbox"},
		Data: map[string][]byte{contract.SourceKeyKubeconfig: framework.HostingKubeconfig(t, c, hostingNS)}}
	if _, err := c.Client.CoreV1().Secrets(ns).Create(t.Context(), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "big"},
		Spec: v1alpha1.SimulatorSpec{Hosting: &v1alpha1.SimulatorHosting{SecretName: secret.Name, Namespace: hostingNS}}}
	start := time.Now()
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitAvailable(t, ns, s.Name)
	t.Logf("hosted simulator Available in %v", time.Since(start).Round(10*time.Millisecond))
	pod, err := c.Client.CoreV1().Pods(hostingNS).Get(t.Context(), got.Status.PodName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the hosted Pod %s in %s: %v", got.Status.PodName, hostingNS, err)
	}
	checkPodOnNode(t, pod)
	if here, err := backingtest.Objects(t.Context(), c.Client, ns, s.Name); err != nil || len(here) != 0 {
		t.Errorf("objects of the hosted simulator in its own namespace: %v, %v", here, err)
	}

	// kubectl inside, with the kubeconfig the server hands out.
	raw, err := kubectl(t, "get", "--raw", framework.SimulatorPath(ns, s.Name, "kubeconfig", ""))
	if err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(t.TempDir(), "kc")
	if err := os.WriteFile(kc, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := framework.Kubectl(t, c, kc, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	if err != nil || !strings.HasPrefix(out, "system:serviceaccount:"+ns+":") {
		t.Errorf("kubectl auth whoami inside: %q, %v; want the kubeconfig's account of %s", out, err, ns)
	}
	if _, err := framework.Kubectl(t, c, kc, "create", "namespace", "inside"); err != nil {
		t.Errorf("kubectl create namespace inside: %v", err)
	}
	if _, err := kubectl(t, "get", "--raw", framework.SimulatorPath(ns, s.Name, "kubeconfig", "?mode=direct")); err == nil ||
		!strings.Contains(err.Error(), "hosted in another cluster") {
		t.Errorf("a direct kubeconfig of a hosted simulator: %v, want refused", err)
	}
	if out, err := kubectl(t, "get", "--raw", framework.SimulatorPath(ns, s.Name, "api", "/v1/schedulerconfiguration")); err != nil ||
		!strings.Contains(out, "KubeSchedulerConfiguration") {
		t.Errorf("simulators/api of a hosted simulator: %v %.200s", err, out)
	}

	checkNodePortRoute(t, ns, secret.Name, hostingNS)

	// A NodePool fills it.
	pool := fmt.Sprintf(`apiVersion: sim.x-k8s.io/v1alpha1
kind: NodePool
metadata: {name: workers, namespace: %s}
spec:
  simulatorName: %s
  replicas: 20
  template:
    status:
      allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
`, ns, s.Name)
	poolFile := filepath.Join(t.TempDir(), "pool.yaml")
	if err := os.WriteFile(poolFile, []byte(pool), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := kubectl(t, "apply", "-f", poolFile); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := kubectl(t, "wait", "-n", ns, "--for=condition=Ready", "nodepool/workers", "--timeout=120s"); err != nil {
		t.Fatalf("the hosted simulator's pool: %v\n%s", err, out)
	}
	out, err = framework.Kubectl(t, c, kc, "get", "nodes", "-l", sim.LabelNodePool+"=workers", "--no-headers")
	if n := len(strings.Split(strings.TrimSpace(out), "\n")); err != nil || n != 20 {
		t.Errorf("kubectl get nodes inside: %d lines, %v; want the pool's 20", n, err)
	}

	// Deleted: nothing left there.
	deleteHosted(t, ns, s.Name, hostingNS)
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Get(t.Context(), s.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the simulator after its deletion: %v", err)
	}
}

// checkNodePortRoute: a simulator hosted with route NodePort becomes
// Available; kubectl works through its proxy kubeconfig, and through a
// direct one, at its Pod's node and the NodePort; deleted, it leaves
// nothing there.
func checkNodePortRoute(t *testing.T, ns, secretName, hostingNS string) {
	t.Helper()
	c := hostCluster(t)
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "near"},
		Spec: v1alpha1.SimulatorSpec{Hosting: &v1alpha1.SimulatorHosting{SecretName: secretName, Namespace: hostingNS, Route: v1alpha1.SimulatorHostingRouteNodePort}}}
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAvailable(t, ns, s.Name)
	svc, err := c.Client.CoreV1().Services(hostingNS).Get(t.Context(), sim.SimulatorServiceName(s.Name), metav1.GetOptions{})
	if err != nil || svc.Spec.Type != corev1.ServiceTypeNodePort {
		t.Fatalf("the Service of a simulator hosted at a NodePort: %v, %v", svc, err)
	}
	for _, mode := range []string{"", "?mode=direct"} {
		raw, err := kubectl(t, "get", "--raw", framework.SimulatorPath(ns, s.Name, "kubeconfig", mode))
		if err != nil {
			t.Fatalf("kubeconfig%s: %v", mode, err)
		}
		kc := filepath.Join(t.TempDir(), "kc")
		if err := os.WriteFile(kc, []byte(raw), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := framework.Kubectl(t, c, kc, "get", "namespace", "default", "-o", "name"); err != nil || strings.TrimSpace(out) != "namespace/default" {
			t.Errorf("kubectl inside with the kubeconfig%s: %q, %v", mode, out, err)
			logRawGet(t, kc, "/api")
		}
	}
	deleteHosted(t, ns, s.Name, hostingNS)
}

// deleteHosted deletes a hosted simulator with kubectl and waits until
// nothing of it is left in its hosting namespace.
func deleteHosted(t *testing.T, ns, name, hostingNS string) {
	t.Helper()
	if out, err := kubectl(t, "delete", "-n", ns, "simulator/"+name, "--timeout=120s"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	poll(t, "nothing of simulator "+name+" left in the hosting namespace", time.Minute, func(ctx context.Context) (bool, string) {
		left, err := backingtest.Objects(ctx, hostCluster(t).Client, hostingNS, name)
		if err != nil {
			return false, err.Error()
		}
		return len(left) == 0, fmt.Sprint(left)
	})
}

// logRawGet logs the status, headers and body start of GET path with
// kubeconfig: what answered a failed kubectl, and whether it lasts.
func logRawGet(t *testing.T, kubeconfig, path string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Logf("GET %s again: %v", path, err)
		return
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Logf("GET %s again: %v", path, err)
		return
	}
	resp, err := client.Get(strings.TrimSuffix(cfg.Host, "/") + path)
	if err != nil {
		t.Logf("GET %s again: %v", path, err)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 2048))
	t.Logf("GET %s again: %s %v\n%s (%v)", path, resp.Status, resp.Header, body, err)
}

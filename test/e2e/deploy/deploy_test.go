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

// Package deploy tests artifacts/deploy for real: sim-apiserver deployed as
// Pods, from the image hack/build-images.sh builds, on a host cluster with a
// node (kube-proxy routes the Pods to the host apiserver and the aggregator
// to the Pods), then used with kubectl. It needs root; without it (or
// without the tool binaries) the test skips, except under CI=true.
package deploy

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

var (
	cluster    *framework.Cluster
	skipReason string
	repoRoot   string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if repoRoot, err = framework.RepoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return framework.RunWithNode(m, framework.Options{
		WithoutSimAPIServer: true,
		NodeImages:          []string{"sim-apiserver"},
	}, 10*time.Minute, func(c *framework.Cluster, reason string) { cluster, skipReason = c, reason })
}

// TestDeploy applies artifacts/deploy with the locally built image, waits
// for the Deployment and the APIService, then runs the example simulator
// through it and reaches its inner kube-apiserver through the host's
// aggregator and the deployed server's proxy.
func TestDeploy(t *testing.T) {
	if cluster == nil {
		t.Skip(skipReason)
	}
	ctx := t.Context()
	image := nodeImage(t, "sim.x-k8s.io/sim-apiserver:")
	_, tag, _ := strings.Cut(image, "sim.x-k8s.io/sim-apiserver:")

	overlay := filepath.Join(cluster.Dir, "deploy")
	if err := os.MkdirAll(overlay, 0o755); err != nil {
		t.Fatal(err)
	}
	base, err := filepath.Rel(overlay, filepath.Join(repoRoot, "artifacts", "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	kustomization := fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- %s
images:
- name: sim.x-k8s.io/sim-apiserver
  newTag: %q
`, base, tag)
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	mustKubectl(t, "apply", "-k", overlay)
	mustKubectl(t, "rollout", "status", "-n", framework.SimNamespace, "deployment/sim-apiserver", "--timeout=3m")
	mustKubectl(t, "wait", "apiservice/"+framework.SimAPIService, "--for=condition=Available", "--timeout=2m")

	pods, err := cluster.Client.CoreV1().Pods(framework.SimNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=sim-apiserver"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 2 {
		t.Errorf("%d sim-apiserver Pods, want the Deployment's 2", len(pods.Items))
	}
	for _, pod := range pods.Items {
		if pod.Spec.NodeName != cluster.NodeName || pod.Status.Phase != corev1.PodRunning || pod.Spec.Containers[0].Image != image {
			t.Errorf("Pod %s: %s on %q with image %s, want Running on %s with %s",
				pod.Name, pod.Status.Phase, pod.Spec.NodeName, pod.Spec.Containers[0].Image, cluster.NodeName, image)
		}
	}

	servesOneVerifiedCertificate(t, pods.Items)

	// The deployed server's account is confined to the namespaces that opt
	// in: none yet, and never kube-system.
	server := "--as=system:serviceaccount:" + framework.SimNamespace + ":sim-apiserver"
	if out, err := framework.Kubectl(t, cluster, "", "auth", "can-i", "create", "serviceaccounts/token", "-n", "kube-system", server); err == nil || strings.TrimSpace(out) != "no" {
		t.Errorf("can the deployed server mint tokens in kube-system? %q (%v), want no", out, err)
	}
	mustKubectl(t, "create", "namespace", "not-opted-in")
	if out, err := framework.Kubectl(t, cluster, "", "apply", "-n", "not-opted-in", "-f", "artifacts/examples/simulator.yaml"); err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("a simulator in a namespace that did not opt in: %v, want refused\n%s", err, out)
	}

	ns := "deployed"
	mustKubectl(t, "create", "namespace", ns)
	mustKubectl(t, "create", "rolebinding", "sim-apiserver", "-n", ns, "--clusterrole=sim-apiserver:namespace", "--serviceaccount="+framework.SimNamespace+":sim-apiserver")
	mustKubectl(t, "apply", "-n", ns, "-f", "artifacts/examples/simulator.yaml")
	if _, err := framework.Kubectl(t, cluster, "", "wait", "-n", ns, "--for=jsonpath={.status.phase}=Available", "simulator/example", "--timeout=2m"); err != nil {
		for _, args := range [][]string{
			{"get", "-n", ns, "simulators,pods,events", "-o", "wide"},
			{"logs", "-n", framework.SimNamespace, "-l", "app.kubernetes.io/name=sim-apiserver", "--tail=40"},
		} {
			out, _ := framework.Kubectl(t, cluster, "", args...)
			t.Logf("%s:\n%s", strings.Join(args, " "), out)
		}
		t.Fatal(err)
	}
	// Where RBAC lets it write, the admission policies still confine the
	// server's account to what it labels (the simulator above came up under them).
	if out, err := framework.Kubectl(t, cluster, "", "create", "secret", "generic", "not-labelled", "-n", ns, "--from-literal=k=v", server); err == nil || !strings.Contains(err.Error(), "sim-apiserver may only") {
		t.Errorf("the deployed server's account creates an unlabelled Secret in %s: %v, want refused by the policy\n%s", ns, err, out)
	}
	// Host aggregator → a deployed sim-apiserver → the simulator's Pod.
	out := mustKubectl(t, "get", "--raw", framework.SimulatorPath(ns, "example", "proxy", "/api/v1/namespaces/kube-system"))
	if !strings.Contains(out, `"name":"kube-system"`) {
		t.Errorf("the simulator's kube-system namespace through the proxy: got %s", out)
	}
	// … and to the simulator's own API: a Pod (the server's) to a Pod, with
	// the simulator's admin certificate.
	out = mustKubectl(t, "get", "--raw", framework.SimulatorPath(ns, "example", "api", "/v1/schedulerconfiguration"))
	if !strings.Contains(out, "KubeSchedulerConfiguration") {
		t.Errorf("the simulator's scheduler configuration through simulators/api: got %s", out)
	}
	namespaceDeletionWithTheLeaderKilled(t)
	uninstall(t, ns)
}

// namespaceDeletionWithTheLeaderKilled deletes a namespace holding a
// simulator right after the replica that leads the reconcilers was killed
// (its Pod force-deleted: the kubelet kills it, its Lease is not released).
// The other replica serves discovery and the API at once, and takes the
// Lease once it expires (15 s) to run the simulator's finalizer, so the
// namespace goes without waiting on the dead one.
func namespaceDeletionWithTheLeaderKilled(t *testing.T) {
	t.Helper()
	ns := "deployed-killed"
	mustKubectl(t, "create", "namespace", ns)
	mustKubectl(t, "create", "rolebinding", "sim-apiserver", "-n", ns, "--clusterrole=sim-apiserver:namespace", "--serviceaccount="+framework.SimNamespace+":sim-apiserver")
	mustKubectl(t, "apply", "-n", ns, "-f", "artifacts/examples/simulator.yaml")
	mustKubectl(t, "wait", "-n", ns, "--for=jsonpath={.status.phase}=Available", "simulator/example", "--timeout=2m")
	leader := leaderPod(t)
	mustKubectl(t, "delete", "pod", "-n", framework.SimNamespace, leader, "--grace-period=0", "--force", "--wait=false")
	start := time.Now()
	if out, err := framework.Kubectl(t, cluster, "", "delete", "namespace", ns, "--timeout=2m"); err != nil {
		for _, args := range [][]string{
			{"get", "namespace", ns, "-o", "yaml"},
			{"get", "-n", ns, "simulators,pods", "-o", "wide"},
			{"get", "lease", "-n", framework.SimNamespace, "-o", "wide"},
		} {
			out, _ := framework.Kubectl(t, cluster, "", args...)
			t.Logf("%s:\n%s", strings.Join(args, " "), out)
		}
		t.Fatalf("deleting namespace %s with the leader %s killed: %v\n%s", ns, leader, err, out)
	}
	t.Logf("deleting a namespace holding a simulator, the leader %s killed just before, took %s", leader, time.Since(start).Round(time.Millisecond))
	// The killed replica led no more: another holds the Lease after its 15 s.
	err := wait.PollUntilContextTimeout(t.Context(), time.Second, time.Minute, true, func(context.Context) (bool, error) {
		return leaderPod(t) != leader, nil
	})
	if err != nil {
		t.Fatalf("the reconcilers' Lease is still held by the killed replica %s: %v", leader, err)
	}
	mustKubectl(t, "rollout", "status", "-n", framework.SimNamespace, "deployment/sim-apiserver", "--timeout=3m")
}

// leaderPod is the name of the sim-apiserver Pod whose identity holds the
// reconcilers' Lease (the Pod's hostname, then "_" and a UID).
func leaderPod(t *testing.T) string {
	t.Helper()
	lease, err := cluster.Client.CoordinationV1().Leases(framework.SimNamespace).Get(t.Context(), "sim-apiserver-reconcilers", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil {
		t.Fatal("the reconcilers' Lease has no holder")
	}
	pod, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_")
	return pod
}

// uninstall runs hack/uninstall.sh with simulators (one with a NodePool)
// in two namespaces, and a user granted the shipped roles, and checks that
// nothing of the server is left and that namespace deletion does not wait
// on it.
func uninstall(t *testing.T, ns string) {
	t.Helper()
	ctx := t.Context()
	other := "deployed-2"
	mustKubectl(t, "create", "namespace", other)
	mustKubectl(t, "create", "rolebinding", "sim-apiserver", "-n", other, "--clusterrole=sim-apiserver:namespace", "--serviceaccount="+framework.SimNamespace+":sim-apiserver")
	mustKubectl(t, "create", "rolebinding", "alice", "-n", other, "--clusterrole=sim-x-k8s-io:edit", "--user=alice")
	mustKubectl(t, "apply", "-n", other, "-f", "artifacts/examples/simulator.yaml")
	mustKubectl(t, "wait", "-n", other, "--for=jsonpath={.status.phase}=Available", "simulator/example", "--timeout=2m")
	mustKubectl(t, "apply", "-n", ns, "-f", "artifacts/examples/nodepool.yaml")

	cmd := exec.CommandContext(ctx, "bash", filepath.Join(repoRoot, "hack", "uninstall.sh"), "--timeout=3m")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.KubeconfigPath)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("hack/uninstall.sh (%s):\n%s", time.Since(start).Round(time.Second), out)
	if err != nil {
		t.Fatalf("hack/uninstall.sh: %v", err)
	}

	// Nothing of the server is left: its API, namespace, cluster objects,
	// the bindings to its roles, and what it made in users' namespaces.
	leftovers := map[string][]string{
		"apiservices":      {"get", "apiservices", "-o", "name"},
		"namespaces":       {"get", "namespaces", "-o", "name"},
		"cluster roles":    {"get", "clusterroles,clusterrolebindings", "-o", "name"},
		"policies":         {"get", "validatingadmissionpolicies,validatingadmissionpolicybindings", "-o", "name"},
		"bindings":         {"get", "rolebindings", "-A", "-o", "jsonpath={range .items[*]}{.roleRef.name}{\"\\n\"}{end}"},
		"labelled objects": {"get", "pods,services,secrets,serviceaccounts,roles,rolebindings,networkpolicies", "-A", "-l", "sim.x-k8s.io/simulator", "-o", "name"},
	}
	for what, args := range leftovers {
		out := mustKubectl(t, args...)
		for _, line := range strings.Fields(out) {
			if strings.Contains(line, "sim-apiserver") || strings.Contains(line, "sim-x-k8s-io") || strings.Contains(line, "sim.x-k8s.io") ||
				strings.HasSuffix(line, "/"+framework.SimNamespace) || what == "labelled objects" {
				t.Errorf("left after uninstall (%s): %s", what, line)
			}
		}
	}
	// Namespaces that held simulators go as any other.
	start = time.Now()
	mustKubectl(t, "delete", "namespace", ns, other, "--timeout=2m")
	t.Logf("deleting the two namespaces after uninstall took %s", time.Since(start).Round(time.Millisecond))
}

// servesOneVerifiedCertificate checks item 8 of the tenancy issue: the
// APIService verifies the server (a caBundle, no insecureSkipTLSVerify), and
// every replica serves the one certificate of the Secret, which verifies
// with that caBundle for the name the aggregator checks.
func servesOneVerifiedCertificate(t *testing.T, pods []corev1.Pod) {
	t.Helper()
	ctx := t.Context()
	apiService, err := aggregator.NewForConfigOrDie(cluster.Config).ApiregistrationV1().APIServices().Get(ctx, framework.SimAPIService, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if apiService.Spec.InsecureSkipTLSVerify || len(apiService.Spec.CABundle) == 0 {
		t.Fatalf("APIService %s: insecureSkipTLSVerify %v, caBundle of %d bytes; want it verified", apiService.Name, apiService.Spec.InsecureSkipTLSVerify, len(apiService.Spec.CABundle))
	}
	secret, err := cluster.Client.CoreV1().Secrets(framework.SimNamespace).Get(ctx, "sim-apiserver-serving-cert", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(apiService.Spec.CABundle) {
		t.Fatal("the APIService's caBundle holds no certificate")
	}
	want, _ := pem.Decode(secret.Data[corev1.TLSCertKey])
	for _, pod := range pods {
		dialer := &tls.Dialer{Config: &tls.Config{RootCAs: roots, ServerName: framework.SimServiceName + "." + framework.SimNamespace + ".svc"}}
		conn, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort(pod.Status.PodIP, "6443"))
		if err != nil {
			t.Errorf("Pod %s does not verify with the APIService's caBundle: %v", pod.Name, err)
			continue
		}
		served := conn.(*tls.Conn).ConnectionState().PeerCertificates[0].Raw
		_ = conn.Close()
		if want == nil || !bytes.Equal(served, want.Bytes) {
			t.Errorf("Pod %s serves another certificate than the Secret's", pod.Name)
		}
	}
}

// nodeImage returns the node's image whose name starts with prefix.
func nodeImage(t *testing.T, prefix string) string {
	t.Helper()
	node, err := cluster.Client.CoreV1().Nodes().Get(t.Context(), cluster.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, image := range node.Status.Images {
		for _, name := range image.Names {
			if strings.HasPrefix(name, prefix) {
				return name
			}
		}
	}
	t.Fatalf("node %s has no image %s*", cluster.NodeName, prefix)
	return ""
}

// mustKubectl runs kubectl as the cluster's admin in the repository root and
// returns its stdout, failing the test on a non-zero exit.
func mustKubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := framework.Kubectl(t, cluster, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

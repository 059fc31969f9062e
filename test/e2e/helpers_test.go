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
	"net"
	"strconv"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// availableTimeout is how long a simulator may take to become Available on
// the shared, busy machine; locally it takes a few seconds.
const availableTimeout = 2 * time.Minute

func simClient(t testing.TB) simclientset.Interface {
	t.Helper()
	return hostCluster(t).Sims
}

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t testing.TB, prefix string) string {
	t.Helper()
	client := hostCluster(t).Client
	ns, err := client.CoreV1().Namespaces().Create(t.Context(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

// poll calls cond every 50ms until it is true or timeout passes, then fails
// the test with what the last call reported.
func poll(t testing.TB, what string, timeout time.Duration, cond func(ctx context.Context) (bool, string)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, state := cond(ctx)
		last = state
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v; last: %s", what, err, last)
	}
}

// waitAvailable waits until the simulator is Available and returns it.
func waitAvailable(t testing.TB, ns, name string) *v1alpha1.Simulator {
	t.Helper()
	var s *v1alpha1.Simulator
	poll(t, fmt.Sprintf("simulator %s/%s to be Available", ns, name), availableTimeout, func(ctx context.Context) (bool, string) {
		got, err := simClient(t).SimV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		s = got
		return got.Status.Phase == v1alpha1.SimulatorAvailable, fmt.Sprintf("phase %s: %s", got.Status.Phase, got.Status.Message)
	})
	return s
}

// simulatorPod returns the simulator's current host Pod.
func simulatorPod(t testing.TB, s *v1alpha1.Simulator) *corev1.Pod {
	t.Helper()
	if s.Status.PodName == "" {
		t.Fatalf("simulator %s/%s has no status.podName", s.Namespace, s.Name)
	}
	pod, err := hostCluster(t).Client.CoreV1().Pods(s.Namespace).Get(t.Context(), s.Status.PodName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the Pod of simulator %s/%s: %v", s.Namespace, s.Name, err)
	}
	return pod
}

// createPod creates pod with client, again until its namespace's default
// ServiceAccount, which kube-controller-manager makes after the namespace,
// lets the ServiceAccount admission admit it.
func createPod(t testing.TB, client kubernetes.Interface, pod *corev1.Pod) {
	t.Helper()
	poll(t, "Pod "+pod.Namespace+"/"+pod.Name+" to be created", time.Minute, func(ctx context.Context) (bool, string) {
		_, err := client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) {
			return true, ""
		}
		return false, err.Error()
	})
}

// podLog returns the log of a container of a Pod ("" if it has only one).
func podLog(t testing.TB, ns, name, container string) string {
	t.Helper()
	data, err := hostCluster(t).Client.CoreV1().Pods(ns).GetLogs(name, &corev1.PodLogOptions{Container: container}).DoRaw(t.Context())
	if err != nil {
		t.Fatalf("reading the log of Pod %s/%s %s: %v", ns, name, container, err)
	}
	return string(data)
}

// logPodsIfFailed calls logPods at the end of a test that failed, before
// the namespace made before it is deleted.
func logPodsIfFailed(t testing.TB, ns string) {
	t.Cleanup(func() {
		if t.Failed() {
			logPods(t, ns)
		}
	})
}

// logPods logs, for each Pod of ns, its containers' restarts, how each
// last ended, and the tail of their logs (the ended one's too): what a
// failed test needs to tell a crash from a slow answer.
func logPods(t testing.TB, ns string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := hostCluster(t).Client
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Logf("listing the Pods of %s: %v", ns, err)
		return
	}
	for _, p := range pods.Items {
		for _, cs := range p.Status.ContainerStatuses {
			t.Logf("Pod %s container %s: %d restarts, last ended %+v", p.Name, cs.Name, cs.RestartCount, cs.LastTerminationState.Terminated)
			for _, previous := range []bool{true, false} {
				if previous && cs.RestartCount == 0 {
					continue
				}
				data, err := client.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: cs.Name, Previous: previous, TailLines: ptr.To[int64](60)}).DoRaw(ctx)
				if err != nil {
					t.Logf("the log of Pod %s container %s (previous %v): %v", p.Name, cs.Name, previous, err)
					continue
				}
				t.Logf("the log of Pod %s container %s (previous %v), its end:\n%s", p.Name, cs.Name, previous, data)
			}
		}
	}
}

// innerClient returns an admin client of the simulator's inner
// kube-apiserver, reached from the host through its Pod IP with the admin
// certificate of the simulator's credentials Secret.
func innerClient(t testing.TB, s *v1alpha1.Simulator, pod *corev1.Pod) kubernetes.Interface {
	t.Helper()
	client, err := kubernetes.NewForConfig(innerConfig(t, s, pod))
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// innerConfig is the client config of innerClient.
func innerConfig(t testing.TB, s *v1alpha1.Simulator, pod *corev1.Pod) *rest.Config {
	t.Helper()
	secret, err := hostCluster(t).Client.CoreV1().Secrets(s.Namespace).Get(t.Context(), sim.SimulatorSecretName(s.Name), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting the credentials of %s/%s: %v", s.Namespace, s.Name, err)
	}
	cfg := &rest.Config{
		Host: "https://" + net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(int(s.Spec.KubeAPIServerPort))),
		TLSClientConfig: rest.TLSClientConfig{
			CAData:     secret.Data[contract.FileCACert],
			CertData:   secret.Data[contract.FileAdminCert],
			KeyData:    secret.Data[contract.FileAdminKey],
			ServerName: sim.SimulatorServiceName(s.Name) + "." + s.Namespace + ".svc",
		},
		Timeout: 10 * time.Second,
		// No client-side throttling: benchmarks measure the server.
		QPS: -1,
	}
	return cfg
}

// checkPodOnNode checks that the simulator's Pod really runs on the node:
// bound to it, Running and Ready with every container started from an image
// the node has (imported, never pulled), at an IP of the pod subnet.
func checkPodOnNode(t testing.TB, pod *corev1.Pod) {
	t.Helper()
	c := hostCluster(t)
	if pod.Spec.NodeName != c.NodeName || pod.Status.Phase != corev1.PodRunning {
		t.Errorf("Pod %s is %s on node %q, want Running on %s", pod.Name, pod.Status.Phase, pod.Spec.NodeName, c.NodeName)
	}
	_, subnet, _ := net.ParseCIDR(framework.PodSubnet)
	if ip := net.ParseIP(pod.Status.PodIP); ip == nil || !subnet.Contains(ip) {
		t.Errorf("Pod %s has IP %q, want one in %s", pod.Name, pod.Status.PodIP, subnet)
	}
	node, err := c.Client.CoreV1().Nodes().Get(t.Context(), c.NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	onNode := map[string]bool{}
	for _, image := range node.Status.Images {
		for _, name := range image.Names {
			onNode[name] = true
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if !cs.Ready || cs.State.Running == nil {
			t.Errorf("container %s of Pod %s is not running and ready: %+v", cs.Name, pod.Name, cs.State)
		}
		if !onNode[cs.Image] {
			t.Errorf("container %s of Pod %s runs image %s, which the node does not list", cs.Name, pod.Name, cs.Image)
		}
	}
}

// proxyClient returns a client of the simulator's inner kube-apiserver
// through the host: host apiserver → aggregator → sim-apiserver's
// simulators/proxy, as the cluster's admin.
func proxyClient(t testing.TB, ns, name string) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(hostCluster(t).Config)
	cfg.Host += framework.SimulatorPath(ns, name, "proxy", "")
	cfg.Timeout = 30 * time.Second
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

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
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	simulatorcontroller "sigs.k8s.io/simulator-apiserver/pkg/controller/simulator"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// countKeys counts the keys under prefix in the etcd at etcdURL, with
// tlsConfig if it is not nil.
func countKeys(t testing.TB, etcdURL string, tlsConfig *tls.Config, prefix string) int64 {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 5 * time.Second, TLS: tlsConfig})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close() //nolint:errcheck
	resp, err := client.Get(t.Context(), prefix+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Count
}

// deleteAndWaitForPurge deletes simulator ns/name, whose Pod runs as proc,
// plays kubelet (stops proc, confirms the Pod's deletion) and waits until
// the simulator's keys under prefix in its etcd (see countKeys) are gone.
func deleteAndWaitForPurge(t testing.TB, ns, name string, proc *framework.SimulatorProcess, etcdURL string, tlsConfig *tls.Config, prefix string) {
	t.Helper()
	if err := simClient(t).SimV1alpha1().Simulators(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the Pod to be deleted", func(ctx context.Context) (bool, error) {
		return !slices.ContainsFunc(simulatorPods(ctx, t, ns, name), func(p corev1.Pod) bool { return p.DeletionTimestamp == nil }), nil
	})
	proc.Stop()
	confirmPodDeletions(t.Context(), t, ns)
	eventually(t, fmt.Sprintf("the keys under %s to be purged", prefix), func(context.Context) (bool, error) {
		return countKeys(t, etcdURL, tlsConfig, prefix) == 0, nil
	})
}

// TestExternalEtcd runs a simulator on an external etcd: its objects survive
// the loss of its Pod, and deleting the simulator purges its keys.
func TestExternalEtcd(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "etcd")
	etcd, err := c.StartEtcd(ctx, "external-etcd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(etcd.Stop)

	s := withFreePorts(t, newSimulator("ext"))
	s.Spec.EtcdURL = etcd.URL
	created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := waitForPod(t, ns, "ext", 1)
	if len(pod.Spec.Containers) != 1 {
		t.Errorf("a simulator on an external etcd has no etcd container: %d containers", len(pod.Spec.Containers))
	}
	proc, err := c.RunSimulatorAsProcess(ctx, ns, "ext")
	if err != nil {
		t.Fatal(err)
	}
	waitForPhase(t, simClient(t), ns, "ext", v1alpha1.SimulatorAvailable)

	cfg, err := clientcmd.BuildConfigFromFlags("", fetchKubeconfig(t, ns, "ext", ""))
	if err != nil {
		t.Fatal(err)
	}
	inner := kubernetes.NewForConfigOrDie(cfg)
	if _, err := inner.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "keep-me"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	prefix := backing.EtcdPrefix(created)
	if n := countKeys(t, etcd.URL, nil, prefix); n == 0 {
		t.Fatalf("no keys under %s in the external etcd", prefix)
	}

	// The Pod goes; the reconciler makes a new one, which finds the data.
	proc.Stop()
	if err := c.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	pod2 := waitForPod(t, ns, "ext", 1)
	if pod2.UID == pod.UID {
		t.Fatal("the Pod was not recreated")
	}
	proc, err = c.RunSimulatorAsProcess(ctx, ns, "ext")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	waitForPhase(t, simClient(t), ns, "ext", v1alpha1.SimulatorAvailable)
	eventually(t, "the inner object to be back", func(ctx context.Context) (bool, error) {
		_, err := inner.CoreV1().ConfigMaps("default").Get(ctx, "keep-me", metav1.GetOptions{})
		return err == nil, nil
	})

	// A spec change: the new Pod waits until the old one has ended, so that
	// two control planes never share the prefix. Nothing ends a Pod here
	// but the test, which plays kubelet.
	patch := []byte(`{"spec":{"corsAllowedOriginList":["http://localhost:3000"]}}`)
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Patch(ctx, "ext", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the old Pod to be deleted", func(ctx context.Context) (bool, error) {
		old, err := c.Client.CoreV1().Pods(ns).Get(ctx, pod2.Name, metav1.GetOptions{})
		return err == nil && old.DeletionTimestamp != nil, nil
	})
	// Three reconciler retries (1 s each) while the old Pod terminates.
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().Pods(ns).Get(ctx, sim.SimulatorPodName("ext", 2), metav1.GetOptions{})
		if err == nil {
			return false, fmt.Errorf("Pod %s exists while %s still terminates: two control planes on one etcd prefix", sim.SimulatorPodName("ext", 2), pod2.Name)
		}
		// NotFound is what we want; any other error (the client's rate
		// limiter refusing a wait past the poll's deadline, say) saw nothing.
		return false, nil
	})
	if !wait.Interrupted(err) {
		t.Fatal(err)
	}
	proc.Stop()
	confirmPodDeletions(ctx, t, ns)
	waitForPod(t, ns, "ext", 2)
	proc, err = c.RunSimulatorAsProcess(ctx, ns, "ext")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	waitForPhase(t, simClient(t), ns, "ext", v1alpha1.SimulatorAvailable)
	if _, err := inner.CoreV1().ConfigMaps("default").Get(ctx, "keep-me", metav1.GetOptions{}); err != nil {
		t.Errorf("the inner object after a spec change on an external etcd: %v", err)
	}

	deleteAndWaitForPurge(t, ns, "ext", proc, etcd.URL, nil, prefix)
}

// expectEtcdUnavailable creates a simulator on etcdURL that cannot use it,
// runs it until it ends, and checks that its status says why: phase
// Failed, Available reason EtcdUnavailable, a message naming the etcd and
// containing want.
func expectEtcdUnavailable(t *testing.T, ns, name, etcdURL, want string) {
	t.Helper()
	ctx := t.Context()
	s := withFreePorts(t, newSimulator(name))
	s.Spec.EtcdURL = etcdURL
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPod(t, ns, name, 1)
	// The simulator gives kube-apiserver 30 s before it probes etcd.
	message, err := hostCluster(t).RunFailingSimulatorAsProcess(ctx, ns, name, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(message, "EtcdUnavailable: ") || !strings.Contains(message, want) {
		t.Errorf("termination message %q, want EtcdUnavailable: … %s", message, want)
	}
	got := waitForPhase(t, simClient(t), ns, name, v1alpha1.SimulatorFailed)
	t.Logf("status message: %s", got.Status.Message)
	available := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.SimulatorConditionAvailable)
	if available == nil || available.Status != metav1.ConditionFalse || available.Reason != "EtcdUnavailable" || available.Message != got.Status.Message {
		t.Errorf("Available condition %+v, want False, reason EtcdUnavailable, the status message", available)
	}
	if msg := got.Status.Message; !strings.Contains(msg, "etcd "+etcdURL+": ") || !strings.Contains(msg, want) {
		t.Errorf("status message %q, want it to name etcd %s and say %q", msg, etcdURL, want)
	}
}

// TestExternalEtcdTLS runs a simulator on an external etcd that requires
// client certificates: with spec.etcdTLSSecretName its inner kube-apiserver
// stores there (Available, keys under its prefix) and deleting it purges
// its keys with that certificate; a user who may not get the Secret cannot
// name it (403). Without the Secret, or on an etcd that does not answer,
// the simulator's status says why it cannot become ready.
func TestExternalEtcdTLS(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "etcd-tls")
	etcd, cert, err := c.StartTLSEtcd(ctx, "external-etcd-tls")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(etcd.Stop)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "etcd-client", Namespace: ns},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: cert.Cert, corev1.TLSPrivateKeyKey: cert.Key, corev1.ServiceAccountRootCAKey: cert.CA},
	}
	if _, err := c.Client.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tlsConfig, err := simulatorcontroller.EtcdTLS(secret)
	if err != nil {
		t.Fatal(err)
	}

	s := withFreePorts(t, newSimulator("tls"))
	s.Spec.EtcdURL, s.Spec.EtcdTLSSecretName = etcd.URL, secret.Name

	// Naming a Secret needs the caller's get on it: the server mounts it.
	attacker := simOnlyUser(t, ns, "etcd-tls-sim-only")
	if out, err := kubectl(t, attacker, "create", "-n", ns, "-f", writeManifest(t, fmt.Sprintf(`apiVersion: sim.x-k8s.io/v1alpha1
kind: Simulator
metadata:
  name: steal
spec:
  etcdURL: %s
  etcdTLSSecretName: etcd-client
`, etcd.URL))); err == nil || !strings.Contains(err.Error(), "cannot get secrets etcd-client") {
		t.Errorf("a user who may not get the Secret names it: %v, want 403 naming get secrets etcd-client\n%s", err, out)
	}

	// Without the client certificate (nor etcd's CA) kube-apiserver cannot
	// use the etcd; on a port where nothing listens neither.
	t.Run("without etcdTLSSecretName", func(t *testing.T) {
		expectEtcdUnavailable(t, ns, "no-cert", etcd.URL, "x509: certificate signed by unknown authority")
	})
	t.Run("nothing listens", func(t *testing.T) {
		closed := fmt.Sprintf("http://127.0.0.1:%d", freePorts(t, 1)[0])
		expectEtcdUnavailable(t, ns, "no-etcd", closed, "connect: connection refused")
	})

	created, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := waitForPod(t, ns, "tls", 1)
	mounted := false
	for _, v := range pod.Spec.Volumes {
		mounted = mounted || (v.Secret != nil && v.Secret.SecretName == secret.Name)
	}
	if !mounted {
		t.Errorf("the Pod does not mount the Secret %s", secret.Name)
	}
	proc, err := c.RunSimulatorAsProcess(ctx, ns, "tls")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proc.Stop)
	waitForPhase(t, simClient(t), ns, "tls", v1alpha1.SimulatorAvailable)
	prefix := backing.EtcdPrefix(created)
	if n := countKeys(t, etcd.URL, tlsConfig, prefix); n == 0 {
		t.Fatalf("no keys under %s in the TLS etcd", prefix)
	}

	deleteAndWaitForPurge(t, ns, "tls", proc, etcd.URL, tlsConfig, prefix)
}

// TestPurgeBoundedInTerminatingNamespace: a namespace whose simulator's
// external etcd cannot be reached (as when that etcd ran in the namespace
// and went first) still finishes deleting: the simulator lets go of its
// purge simulatorcontroller.PurgeGiveUpAfter after its deletion, and says
// so in a PurgeAbandoned Event on the Namespace.
func TestPurgeBoundedInTerminatingNamespace(t *testing.T) {
	c := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "purge")
	// Nothing listens there: every purge fails.
	s := withFreePorts(t, newSimulator("lost-etcd"))
	s.Spec.EtcdURL = fmt.Sprintf("http://127.0.0.1:%d", freePorts(t, 1)[0])
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPod(t, ns, "lost-etcd", 1)
	if err := c.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		confirmPodDeletions(ctx, t, ns)
		_, err := c.Client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("namespace %s still exists %s after its deletion: %v", ns, time.Since(start).Round(time.Second), err)
	}
	t.Logf("namespace %s went %s after its deletion", ns, time.Since(start).Round(time.Second))
	eventually(t, "the PurgeAbandoned Event on the Namespace", func(ctx context.Context) (bool, error) {
		events, err := c.Client.CoreV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=Namespace,involvedObject.name=" + ns + ",reason=PurgeAbandoned",
		})
		if err != nil {
			return false, err
		}
		// It names the keys left, and where.
		return len(events.Items) == 1 && strings.Contains(events.Items[0].Message, "lost-etcd") &&
			strings.Contains(events.Items[0].Message, "keys under /simulators/"+ns+"/lost-etcd/") && strings.Contains(events.Items[0].Message, "in "+s.Spec.EtcdURL), nil
	})
}

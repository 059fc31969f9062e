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
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// hostCacheFigures are sim-apiserver's sim_apiserver_host_cache_* metrics.
type hostCacheFigures struct {
	namespaces     int
	objects, bytes map[string]int
}

func (f hostCacheFigures) String() string {
	return fmt.Sprintf("%d namespaces, Secrets %d (%d bytes), Pods %d (%d bytes)",
		f.namespaces, f.objects["secrets"], f.bytes["secrets"], f.objects["pods"], f.bytes["pods"])
}

func readHostCacheFigures(t testing.TB) hostCacheFigures {
	t.Helper()
	direct, err := kubernetes.NewForConfig(hostCluster(t).FrontProxyConfig("hostcache-test", "system:masters"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := direct.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("sim-apiserver's /metrics: %v", err)
	}
	f := hostCacheFigures{namespaces: -1, objects: map[string]int{}, bytes: map[string]int{}}
	for _, line := range strings.Split(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		metric, labels, _ := strings.Cut(name, "{")
		resource := strings.TrimSuffix(strings.TrimPrefix(labels, `resource="`), `"}`)
		switch metric {
		case "sim_apiserver_host_cache_namespaces":
			f.namespaces = int(v)
		case "sim_apiserver_host_cache_objects":
			f.objects[resource] = int(v)
		case "sim_apiserver_host_cache_bytes":
			f.bytes[resource] = int(v)
		}
	}
	if f.namespaces < 0 {
		t.Fatal("sim-apiserver's /metrics lacks sim_apiserver_host_cache_namespaces")
	}
	return f
}

// TestHostCacheHoldsOnlyWhatIsUsed (issue 31): whoever may create Secrets
// somewhere cannot fill the server's memory with labelled ones. A
// namespace without a simulator is not watched at all; beside a simulator,
// a tenant's labelled Secret is held as a stub of a few hundred bytes. The
// simulator still becomes Available and is deleted cleanly, and its
// namespace is let go after it.
func TestHostCacheHoldsOnlyWhatIsUsed(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	const fillers = 30
	fill := func(ns string) {
		t.Helper()
		for i := range fillers {
			secret := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("filler-%d", i), Labels: map[string]string{sim.LabelSimulator: "cached"}},
				Data:       map[string][]byte{"filler": []byte(strings.Repeat("x", 700<<10))},
			}
			if _, err := host.Client.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := readHostCacheFigures(t)
	heapBefore := simAPIServerFigures(t)

	idle := createNamespace(t, "no-simulator")
	fill(idle)
	ns := createNamespace(t, "hostcache")
	fill(ns)
	sims := simClient(t).SimV1alpha1().Simulators(ns)
	if _, err := sims.Create(ctx, newSimulator("cached"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	makeReady(t, waitForPod(t, ns, "cached", 1))
	waitForPhase(t, simClient(t), ns, "cached", v1alpha1.SimulatorAvailable)

	with := readHostCacheFigures(t)
	heapWith := simAPIServerFigures(t)
	t.Logf("host cache before: %v; with %d labelled 700 KB Secrets in a namespace without a simulator and %d beside one: %v", before, fillers, fillers, with)
	t.Logf("sim-apiserver before: %v; after: %v", heapBefore, heapWith)
	// The simulator's credentials and the stubs of the fillers beside it;
	// never those of the namespace without a simulator. (Earlier tests'
	// namespaces may be let go meanwhile: the figures may only be lower.)
	if got := with.objects["secrets"] - before.objects["secrets"]; got > fillers+1 {
		t.Errorf("the host cache holds %d more Secrets, want at most %d: the labelled Secrets of a namespace without a simulator are cached", got, fillers+1)
	}
	if got := with.bytes["secrets"] - before.bytes["secrets"]; got > 1<<20 {
		t.Errorf("the host cache holds %d more bytes of Secrets, want under 1 MiB: a tenant's labelled Secrets are cached whole", got)
	}

	if err := sims.Delete(ctx, "cached", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The bound Pod would wait for a kubelet: play it.
	eventually(t, "the simulator's Pod to be deleted", func(ctx context.Context) (bool, error) {
		for _, pod := range simulatorPods(ctx, t, ns, "cached") {
			if pod.DeletionTimestamp == nil {
				return false, nil
			}
			err := host.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(0))})
			if err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
		}
		return true, nil
	})
	eventually(t, "the simulator and its host objects to be gone", func(ctx context.Context) (bool, error) {
		_, err := sims.Get(ctx, "cached", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, nil
		}
		_, secErr := host.Client.CoreV1().Secrets(ns).Get(ctx, sim.SimulatorSecretName("cached"), metav1.GetOptions{})
		return apierrors.IsNotFound(secErr) && len(simulatorPods(ctx, t, ns, "cached")) == 0, nil
	})
	// Let go once the last simulator is gone, after the server's linger (30 s).
	var after hostCacheFigures
	err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(context.Context) (bool, error) {
		after = readHostCacheFigures(t)
		return after.objects["secrets"] <= before.objects["secrets"], nil
	})
	t.Logf("host cache once the simulator is gone: %v", after)
	if err != nil {
		t.Errorf("the host cache still holds %d Secrets (%d before the test): the namespace of a deleted simulator is still watched", after.objects["secrets"], before.objects["secrets"])
	}
}

// TestServerReadsOnlyWhereOptedIn (issue 31): the deployed server's
// account reads none of a tenant's objects in a namespace that has not
// opted in, and what its caches watch in one that has.
func TestServerReadsOnlyWhereOptedIn(t *testing.T) {
	host := hostCluster(t)
	if _, err := kubectl(t, host.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, "artifacts/deploy/rbac-server.yaml")); err != nil {
		t.Fatal(err)
	}
	const server = "system:serviceaccount:sim-system:sim-apiserver"
	canI := func(ns string, args ...string) string {
		out, _ := kubectl(t, host.KubeconfigPath, append([]string{"auth", "can-i", "-n", ns, "--as=" + server}, args...)...)
		return strings.TrimSpace(out)
	}
	reads := [][]string{
		{"get", "secrets"}, {"list", "secrets"}, {"watch", "secrets"},
		{"list", "pods"}, {"list", "serviceaccounts"}, {"list", "services"},
		{"list", "roles.rbac.authorization.k8s.io"}, {"list", "rolebindings.rbac.authorization.k8s.io"},
		{"list", "networkpolicies.networking.k8s.io"},
	}
	ns := createNamespace(t, "reads")
	for _, check := range reads {
		for _, where := range []string{"kube-system", ns} {
			if got := canI(where, check...); got != "no" {
				t.Errorf("before any opt-in, can the server %s in %s? %q, want no", strings.Join(check, " "), where, got)
			}
		}
	}
	if _, err := kubectl(t, host.KubeconfigPath, "create", "rolebinding", "sim-apiserver", "-n", ns,
		"--clusterrole=sim-apiserver:namespace", "--serviceaccount=sim-system:sim-apiserver"); err != nil {
		t.Fatal(err)
	}
	framework.WaitForAccess(t, host, ns, server, authorizationv1.ResourceAttributes{Verb: "watch", Resource: "secrets"})
	for _, check := range reads {
		if got := canI(ns, check...); got != "yes" {
			t.Errorf("after %s opted in, can the server %s there? %q, want yes", ns, strings.Join(check, " "), got)
		}
		if got := canI("kube-system", check...); got != "no" {
			t.Errorf("after %s opted in, can the server %s in kube-system? %q, want no", ns, strings.Join(check, " "), got)
		}
	}
}

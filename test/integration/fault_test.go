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
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/controller"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// Fault tests: they crash and restart processes of the shared cluster and
// leave it as they found it (sim-apiserver serving, its APIService
// Available, one replica holding the reconcilers' lease).

// leaseBound is how long a handover may take: the lease duration (15s) and
// a retry period, with room for a loaded machine. A bound, not a figure.
const leaseBound = 60 * time.Second

// hostObjectCounts counts a simulator's host objects of each kind, by its
// label; Pods count whether terminating or not.
func hostObjectCounts(ctx context.Context, t testing.TB, ns, name string) map[string]int {
	t.Helper()
	counts, err := framework.BackingObjects(ctx, hostCluster(t).Client, ns, sim.LabelSimulator+"="+name)
	if err != nil {
		t.Fatal(err)
	}
	return counts[name]
}

// recordCount counts the records of simulators in namespace ns.
func recordCount(ctx context.Context, t testing.TB, ns string) int {
	t.Helper()
	n, err := framework.SimulatorRecords(ctx, hostCluster(t).Client, ns)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFault is eventually with a bound for convergence after a fault.
func waitFault(t testing.TB, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 2*leaseBound, true, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// TestFaultSimAPIServerKilledDuringCreate kills sim-apiserver with SIGKILL
// while simulators are being created, and again while they are being
// deleted: after a restart everything converges exactly, with one of each
// host object per simulator and nothing left behind at the end.
func TestFaultSimAPIServerKilledDuringCreate(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "crash")
	sims := simClient(t).SimV1alpha1().Simulators(ns)
	names := []string{"c0", "c1", "c2", "c3", "c4"}
	for _, name := range names {
		s := newSimulator(name)
		if name == "c0" {
			// c0 runs once converged, which needs free ports.
			withFreePorts(t, s)
		}
		if _, err := sims.Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Kill as soon as the reconciler has begun: some simulators are then
	// half made, some not begun.
	waitFault(t, "the reconciler to begin", func(ctx context.Context) (bool, error) {
		secrets, err := host.Client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator})
		return err == nil && len(secrets.Items) > 0, nil
	})
	if err := host.KillSimAPIServer(); err != nil {
		t.Fatal(err)
	}
	atKill := map[string]map[string]int{}
	for _, name := range names {
		atKill[name] = hostObjectCounts(ctx, t, ns, name)
	}
	t.Logf("host objects when sim-apiserver was killed: %v", atKill)
	if err := host.RestartSimAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	for _, name := range names {
		var got map[string]int
		waitFault(t, "one of each host object of "+name, func(ctx context.Context) (bool, error) {
			got = hostObjectCounts(ctx, t, ns, name)
			return framework.SameCounts(got, framework.ConvergedBackingObjects), nil
		})
	}
	t.Logf("converged %v after the restart", time.Since(restarted).Round(100*time.Millisecond))
	// Converged means usable: c0 runs with the credentials made around the crash.
	p, err := host.RunSimulatorAsProcess(ctx, ns, "c0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	waitForPhase(t, simClient(t), ns, "c0", v1alpha1.SimulatorAvailable)
	if code, body := rawRequest(t, host.Config, http.MethodGet, framework.SimulatorPath(ns, "c0", "proxy", "/api/v1/namespaces/default")); code != http.StatusOK {
		t.Errorf("proxy to c0 after the crash: %d\n%s", code, body)
	}
	// Nothing was made twice while it settled.
	for _, name := range names {
		if got := hostObjectCounts(ctx, t, ns, name); !framework.SameCounts(got, framework.ConvergedBackingObjects) {
			t.Errorf("host objects of %s: %v, want %v", name, got, framework.ConvergedBackingObjects)
		}
	}
	if n := recordCount(ctx, t, ns); n != len(names) {
		t.Errorf("%d records, want %d", n, len(names))
	}

	// Deletion, killed midway: the finalizers still run, nothing is left.
	p.Stop()
	if err := sims.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := host.KillSimAPIServer(); err != nil {
		t.Fatal(err)
	}
	if err := host.RestartSimAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	var left []string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*leaseBound, true, func(ctx context.Context) (bool, error) {
		left = nil
		confirmPodDeletions(ctx, t, ns)
		list, err := sims.List(ctx, metav1.ListOptions{})
		if err != nil {
			left = append(left, err.Error())
		} else {
			for _, s := range list.Items {
				left = append(left, fmt.Sprintf("simulator %s (finalizers %v)", s.Name, s.Finalizers))
			}
		}
		for _, name := range names {
			if got := hostObjectCounts(ctx, t, ns, name); len(got) > 0 {
				left = append(left, fmt.Sprintf("%s: %v", name, got))
			}
		}
		if n := recordCount(ctx, t, ns); n > 0 {
			left = append(left, fmt.Sprintf("%d records", n))
		}
		return len(left) == 0, nil
	})
	if err != nil {
		t.Fatalf("after deletion, left: %v", left)
	}
}

// confirmPodDeletions plays the kubelet of a host without a node: it
// confirms the deletion of Pods that are being deleted.
func confirmPodDeletions(ctx context.Context, t testing.TB, ns string) {
	t.Helper()
	pods, err := hostCluster(t).Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			err := hostCluster(t).Client.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		}
	}
}

// reconcilerLeaseHolder returns the identity holding the reconcilers' lease.
func reconcilerLeaseHolder(ctx context.Context, t testing.TB) string {
	t.Helper()
	lease, err := hostCluster(t).Client.CoordinationV1().Leases(framework.SimNamespace).Get(ctx, controller.LeaseName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && lease.Spec.HolderIdentity == nil) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return *lease.Spec.HolderIdentity
}

// currentTerm returns what a sim-apiserver logged since it last started:
// from its last campaign for the lease on.
func currentTerm(t testing.TB, logPath string) string {
	t.Helper()
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	i := strings.LastIndex(log, "Campaigning for the reconcilers' lease")
	if i < 0 {
		t.Fatalf("%s has not campaigned for the lease", logPath)
	}
	return log[i:]
}

// leads says whether the sim-apiserver logging to logPath holds the lease
// as holder.
func leads(t testing.TB, logPath, holder string) bool {
	return holder != "" && strings.Contains(currentTerm(t, logPath), fmt.Sprintf("identity=%q", holder))
}

const reconcilerStarted = "Starting the simulator reconciler"

// TestFaultTwoReplicas runs a second sim-apiserver next to the first, as
// artifacts/deploy does: both serve reads and proxies, only the lease
// holder reconciles, and killing it hands the reconcilers over.
func TestFaultTwoReplicas(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	mainLog, err := host.ProcessLogPath("sim-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	replica, err := host.StartSimAPIServerReplica(ctx, "sim-apiserver-2")
	if err != nil {
		t.Fatal(err)
	}
	replicaStopped := false
	t.Cleanup(func() {
		if !replicaStopped {
			replica.Stop()
		}
	})
	ns := createNamespace(t, "replicas")
	runningSimulator(t, ns, "twin")

	replicas := map[string]*rest.Config{
		mainLog:         host.FrontProxyConfig("kubernetes-admin", "system:masters"),
		replica.LogPath: replica.FrontProxyConfig("kubernetes-admin", "system:masters"),
	}
	for logPath, cfg := range replicas {
		c := simclientset.NewForConfigOrDie(cfg)
		s, err := c.SimV1alpha1().Simulators(ns).Get(ctx, "twin", metav1.GetOptions{})
		if err != nil || s.Status.Phase != v1alpha1.SimulatorAvailable {
			t.Errorf("%s: get simulator: %v, phase %v", logPath, err, s.Status.Phase)
		}
		if code, body := rawRequest(t, cfg, http.MethodGet, framework.SimulatorPath(ns, "twin", "proxy", "/api/v1/namespaces/default")); code != http.StatusOK {
			t.Errorf("%s: proxy: %d\n%s", logPath, code, body)
		}
	}

	var holder string
	waitFault(t, "a replica to hold the lease", func(ctx context.Context) (bool, error) {
		holder = reconcilerLeaseHolder(ctx, t)
		return leads(t, mainLog, holder) || leads(t, replica.LogPath, holder), nil
	})
	leaderLog, followerLog := mainLog, replica.LogPath
	if leads(t, replica.LogPath, holder) {
		leaderLog, followerLog = replica.LogPath, mainLog
	}
	t.Logf("leader %s (%s), follower %s", leaderLog, holder, followerLog)
	// A creation now is reconciled, by the leader alone.
	if _, err := simClient(t).SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("before"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPod(t, ns, "before", 1)
	if !strings.Contains(currentTerm(t, leaderLog), reconcilerStarted) {
		t.Errorf("the leader %s does not run the reconcilers", leaderLog)
	}
	if term := currentTerm(t, followerLog); strings.Contains(term, reconcilerStarted) || strings.Contains(term, "Created Pod") {
		t.Errorf("the follower %s reconciles:\n%s", followerLog, term)
	}

	// Kill the leader: the follower takes over and serves alone.
	follower := simclientset.NewForConfigOrDie(replicas[followerLog])
	killed := time.Now()
	if leaderLog == mainLog {
		err = host.KillSimAPIServer()
	} else {
		replica.Kill()
		replicaStopped = true
	}
	if err != nil {
		t.Fatal(err)
	}
	waitFault(t, "the follower to take the lease", func(ctx context.Context) (bool, error) {
		return leads(t, followerLog, reconcilerLeaseHolder(ctx, t)), nil
	})
	t.Logf("the follower took the lease %v after the leader was killed (lease duration 15s)", time.Since(killed).Round(100*time.Millisecond))
	if _, err := follower.SimV1alpha1().Simulators(ns).Create(ctx, newSimulator("after"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForPod(t, ns, "after", 1)
	if !strings.Contains(currentTerm(t, followerLog), reconcilerStarted) {
		t.Errorf("the new leader %s does not run the reconcilers", followerLog)
	}
	for _, name := range []string{"twin", "before", "after"} {
		if got := hostObjectCounts(ctx, t, ns, name); !framework.SameCounts(got, framework.ConvergedBackingObjects) {
			t.Errorf("host objects of %s: %v, want %v", name, got, framework.ConvergedBackingObjects)
		}
	}

	// Leave the cluster as it was: its own sim-apiserver serving and leading.
	if leaderLog == mainLog {
		if err := host.RestartSimAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
		replica.Stop() // it hands the lease back on its way out
		replicaStopped = true
	}
	waitFault(t, "the cluster's sim-apiserver to lead", func(ctx context.Context) (bool, error) {
		return leads(t, mainLog, reconcilerLeaseHolder(ctx, t)), nil
	})
}

// TestFaultHostAPIServerRestart restarts the host kube-apiserver under a
// running sim-apiserver: it goes on without a restart of its own, its
// watches and caches recover, and clients inside a simulator through the
// proxy watch again.
func TestFaultHostAPIServerRestart(t *testing.T) {
	host := hostCluster(t)
	ctx := t.Context()
	ns := createNamespace(t, "hostrestart")
	runningSimulator(t, ns, "steady")
	simPID, err := host.ProcessPID("sim-apiserver")
	if err != nil {
		t.Fatal(err)
	}

	// An informer inside the simulator, through the host and our proxy.
	kc := fetchKubeconfig(t, ns, "steady", "")
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	inner := kubernetes.NewForConfigOrDie(cfg)
	factory := informers.NewSharedInformerFactoryWithOptions(inner, 0, informers.WithNamespace("default"))
	configMaps := factory.Core().V1().ConfigMaps()
	configMaps.Informer() // before Start, which starts the informers asked for so far
	informerCtx, stopInformer := context.WithCancel(ctx)
	factory.Start(informerCtx.Done())
	defer func() {
		stopInformer()
		factory.Shutdown()
	}()
	syncCtx, cancelSync := context.WithTimeout(ctx, leaseBound)
	defer cancelSync()
	if !cache.WaitForCacheSync(syncCtx.Done(), configMaps.Informer().HasSynced) {
		t.Fatal("the informer through the proxy did not sync")
	}

	down := time.Now()
	if err := host.RestartKubeAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver restarted in %v", time.Since(down).Round(100*time.Millisecond))

	// The host serves our API again (the aggregator finds it Available).
	sims := simClient(t).SimV1alpha1().Simulators(ns)
	waitFault(t, "the host to serve simulators again", func(ctx context.Context) (bool, error) {
		s, err := sims.Get(ctx, "steady", metav1.GetOptions{})
		return err == nil && s.Status.Phase == v1alpha1.SimulatorAvailable, nil
	})
	t.Logf("simulators served through the host again %v after the restart began", time.Since(down).Round(100*time.Millisecond))
	// The record informer and the host cache watch again: a new simulator
	// is made, and its lost Pod is made anew.
	if _, err := sims.Create(ctx, newSimulator("fresh"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := waitForPod(t, ns, "fresh", 1)
	if err := host.Client.CoreV1().Pods(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFault(t, "a new Pod for fresh", func(ctx context.Context) (bool, error) {
		for _, p := range simulatorPods(ctx, t, ns, "fresh") {
			if p.UID != pod.UID && p.DeletionTimestamp == nil {
				return true, nil
			}
		}
		return false, nil
	})
	// The status computed from the Pod cache follows: fresh's new Pod, once Ready.
	makeReady(t, waitForPod(t, ns, "fresh", 1))
	waitForPhase(t, simClient(t), ns, "fresh", v1alpha1.SimulatorAvailable)

	// Clients inside: the informer catches up by itself, a new watch works.
	if _, err := inner.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after-restart"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFault(t, "the informer through the proxy to see after-restart", func(ctx context.Context) (bool, error) {
		_, err := configMaps.Lister().ConfigMaps("default").Get("after-restart")
		return err == nil, nil
	})
	w, err := inner.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=watched"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := inner.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev, ok := <-w.ResultChan():
		if !ok || ev.Type != "ADDED" {
			t.Errorf("a new watch through the proxy gave %v (open %v), want ADDED", ev.Type, ok)
		}
	case <-time.After(leaseBound):
		t.Error("no event on a new watch through the proxy")
	}

	// All of it without a restart of sim-apiserver.
	if pid, err := host.ProcessPID("sim-apiserver"); err != nil || pid != simPID {
		t.Errorf("sim-apiserver was restarted: pid %d → %d, %v", simPID, pid, err)
	}
}

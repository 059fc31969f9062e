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

package simulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// sourceScheduler is the only scheduler of the source simulator: Pods of
// the default scheduler stay pending there, as in a cluster whose
// scheduler has not got to them yet, and the test binds them itself, as
// that scheduler would.
const sourceScheduler = "source-scheduler"

// startSource starts a simulator to mirror, whose scheduler serves only
// sourceScheduler.
func startSource(t testing.TB, etcd string) *framework.StandaloneSimulator {
	t.Helper()
	config := filepath.Join(t.TempDir(), "scheduler.yaml")
	if err := os.WriteFile(config, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: `+sourceScheduler+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return framework.StartStandaloneSimulator(t, etcd, "/simulators/test/source/uid-1", contract.Environment{SchedulerConfigPath: config}.Strings()...)
}

// writeSourceSecret writes the source's Secret as its volume holds it: a
// kubeconfig of the simulator src's inner kube-apiserver, with its admin's
// certificate, or with token instead if it is not empty.
func writeSourceSecret(t testing.TB, dir string, src *framework.StandaloneSimulator, token string) {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["source"] = &clientcmdapi.Cluster{Server: src.APIURL, CertificateAuthorityData: src.Credentials.CAPEM}
	user := &clientcmdapi.AuthInfo{ClientCertificateData: src.Credentials.AdminCertPEM, ClientKeyData: src.Credentials.AdminKeyPEM}
	if token != "" {
		user = &clientcmdapi.AuthInfo{Token: token}
	}
	kc.AuthInfos["user"] = user
	kc.Contexts["source"] = &clientcmdapi.Context{Cluster: "source", AuthInfo: "user"}
	kc.CurrentContext = "source"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	// As a Secret's volume changes: a new file replaces the old at once.
	tmp := filepath.Join(dir, ".kubeconfig.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, contract.SourceKeyKubeconfig)); err != nil {
		t.Fatal(err)
	}
}

// sourceStatus is GET contract.PathSource.
func sourceStatus(t testing.TB, sim *framework.StandaloneSimulator) contract.SourceStatus {
	t.Helper()
	code, body := sim.Do(t, http.MethodGet, contract.PathSource, "")
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", contract.PathSource, code, body)
	}
	var s contract.SourceStatus
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func waitSourcePhase(t *testing.T, sim *framework.StandaloneSimulator, phase string) contract.SourceStatus {
	t.Helper()
	var s contract.SourceStatus
	framework.WaitUntil(t, 2*time.Minute, "the source's phase "+phase, func() (bool, error) {
		if sim.Exited() {
			return false, fmt.Errorf("simulator exited: %v", sim.Err())
		}
		s = sourceStatus(t, sim)
		return s.Phase == phase, nil
	})
	return s
}

// podPlaces are a namespace's Pods and their nodes, but those being
// deleted.
func podPlaces(t *testing.T, c kubernetes.Interface, namespace string) map[string]string {
	t.Helper()
	pods, err := c.CoreV1().Pods(namespace).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			out[p.Name] = p.Spec.NodeName
		}
	}
	return out
}

func names[T any](items []T, name func(*T) string) []string {
	var out []string
	for i := range items {
		out = append(out, name(&items[i]))
	}
	slices.Sort(out)
	return out
}

func boundPod(namespace, name, node string) *corev1.Pod {
	p := cpuPod(name, "100m")
	p.Namespace = namespace
	p.Spec.NodeName = node
	return p
}

// TestSource mirrors a simulator into another, through a kubeconfig as
// the source's Secret holds it: first a whole copy (bound Pods on their
// nodes, pending ones scheduled inside, only the filtered namespace),
// then, in Sync mode, the source's changes, and its bindings compared with
// the simulator's choices.
func TestSource(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	src := startSource(t, etcd)
	src.WaitReady(t, 2*time.Minute)
	sc := src.Client(t)
	ctx := framework.TimeoutContext(t, 10*time.Minute)

	// The source: three Nodes, a PriorityClass, a namespace mirrored with
	// a PDB, bound and pending Pods, and one outside the filter.
	createNodes(t, sc, "node", 3, true)
	for _, ns := range []string{"team", "other"} {
		if _, err := sc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sc.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptrTo(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		},
	}
	if _, err := sc.PolicyV1().PodDisruptionBudgets("team").Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pending, tooBig := cpuPod("pending", "1"), cpuPod("too-big", "100")
	pending.Namespace, tooBig.Namespace = "team", "team"
	pending.Spec.PriorityClassName = "high"
	for _, p := range []*corev1.Pod{boundPod("team", "bound-0", "node-0"), boundPod("team", "bound-1", "node-1"), pending, tooBig, boundPod("other", "elsewhere", "node-2")} {
		createWithPriority(t, sc, p)
	}

	secretDir := t.TempDir()
	writeSourceSecret(t, secretDir, src, "")
	source := &contract.Source{Mode: contract.SourceModeSync, Dir: secretDir, Namespaces: []string{"team"}}
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/mirror/uid-2", contract.Environment{Source: source}.Strings()...)
	sim.WaitReady(t, 2*time.Minute)
	c := sim.Client(t)
	status := waitSourcePhase(t, sim, contract.SourceSyncing)

	t.Run("the first copy matches the source", func(t *testing.T) {
		wantObjects := map[string]int64{"namespaces": 1, "nodes": 3, "pods": 4, "poddisruptionbudgets": 1, "priorityclasses": 1}
		if d := cmp.Diff(wantObjects, status.Objects); d != "" {
			t.Errorf("status.objects (-want +got):\n%s", d)
		}
		if status.LastSyncTime == nil {
			t.Error("no lastSyncTime")
		}
		nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(nodes.Items, func(n *corev1.Node) string { return n.Name }); !slices.Equal(got, []string{"node-0", "node-1", "node-2"}) {
			t.Errorf("nodes inside = %v", got)
		}
		for _, n := range nodes.Items {
			if n.Annotations["kwok.x-k8s.io/node"] != "fake" || n.Status.Allocatable.Cpu().IsZero() {
				t.Errorf("node %s: annotations %v, allocatable %v: not a kwok Node with the source's status", n.Name, n.Annotations, n.Status.Allocatable)
			}
		}
		nss, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(nss.Items, func(n *corev1.Namespace) string { return n.Name }); slices.Contains(got, "other") || !slices.Contains(got, "team") {
			t.Errorf("namespaces inside = %v, want team and not other", got)
		}
		if _, err := c.SchedulingV1().PriorityClasses().Get(ctx, "high", metav1.GetOptions{}); err != nil {
			t.Errorf("PriorityClass high: %v", err)
		}
		if _, err := c.PolicyV1().PodDisruptionBudgets("team").Get(ctx, "web", metav1.GetOptions{}); err != nil {
			t.Errorf("PodDisruptionBudget team/web: %v", err)
		}
		got := podPlaces(t, c, "team")
		if d := cmp.Diff(map[string]string{"bound-0": "node-0", "bound-1": "node-1", "pending": got["pending"], "too-big": ""}, got); d != "" {
			t.Errorf("pods inside (-want +got):\n%s", d)
		}
		// The first copy's Pods went straight into etcd, not through the
		// API (no field manager), and a bound one kept the source's
		// status rather than kwok playing its start again.
		for _, name := range []string{"bound-0", "bound-1"} {
			in, err := c.CoreV1().Pods("team").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			src, err := sc.CoreV1().Pods("team").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range in.ManagedFields {
				if f.Manager == "simulator-source-mirror" {
					t.Errorf("pod %s inside was written through the API (%s by %s)", name, f.Operation, f.Manager)
				}
			}
			if src.Status.StartTime == nil || !src.Status.StartTime.Equal(in.Status.StartTime) || in.Status.Phase != corev1.PodRunning {
				t.Errorf("pod %s inside: %s since %v, want the source's %s since %v", name, in.Status.Phase, in.Status.StartTime, src.Status.Phase, src.Status.StartTime)
			}
		}
		// Pending in the source, they are scheduled inside, with results.
		framework.WaitUntil(t, time.Minute, "the pending pods' results", func() (bool, error) {
			for name, outcome := range map[string]string{"pending": `"outcome":"Bound"`, "too-big": `"outcome":"Unschedulable"`} {
				p, err := c.CoreV1().Pods("team").Get(ctx, name, metav1.GetOptions{})
				if err != nil || !strings.Contains(p.Annotations[summaryAnnotation], outcome) {
					return false, nil
				}
			}
			return true, nil
		})
	})

	t.Run("scaling in the source follows", func(t *testing.T) {
		for i := range 3 {
			p := boundPod("team", fmt.Sprintf("web-%d", i), fmt.Sprintf("node-%d", i))
			p.Labels = map[string]string{"app": "web"}
			createWithPriority(t, sc, p)
		}
		waitPodsInside(t, c, []string{"web-0", "web-1", "web-2"}, nil)
		// A Pod new in the source went straight into etcd too.
		if p, err := c.CoreV1().Pods("team").Get(ctx, "web-0", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		} else {
			for _, f := range p.ManagedFields {
				if f.Manager == "simulator-source-mirror" {
					t.Errorf("pod web-0 inside was written through the API (%s by %s)", f.Operation, f.Manager)
				}
			}
		}
		for _, name := range []string{"web-1", "web-2"} {
			if err := sc.CoreV1().Pods("team").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		waitPodsInside(t, c, []string{"web-0"}, []string{"web-1", "web-2"})
	})

	t.Run("the source's bindings win, beside the simulator's choices", func(t *testing.T) {
		for _, name := range []string{"shadow-same", "shadow-other"} {
			p := cpuPod(name, "1")
			p.Namespace = "team"
			createWithPriority(t, sc, p)
		}
		placed := map[string]string{}
		framework.WaitUntil(t, time.Minute, "the new pending pods to be placed inside", func() (bool, error) {
			for _, name := range []string{"shadow-same", "shadow-other"} {
				p, err := c.CoreV1().Pods("team").Get(ctx, name, metav1.GetOptions{})
				if err != nil || p.Spec.NodeName == "" || p.Annotations[summaryAnnotation] == "" {
					return false, nil
				}
				placed[name] = p.Spec.NodeName
			}
			return true, nil
		})
		other := "node-0"
		if placed["shadow-other"] == other {
			other = "node-1"
		}
		want := map[string]struct{ node, agreement string }{
			"shadow-same":  {placed["shadow-same"], contract.ShadowSame},
			"shadow-other": {other, contract.ShadowOther},
		}
		for name, w := range want {
			binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name}, Target: corev1.ObjectReference{Kind: "Node", Name: w.node}}
			if err := sc.CoreV1().Pods("team").Bind(ctx, binding, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for name, w := range want {
			framework.WaitUntil(t, time.Minute, "pod "+name+"'s shadow annotations", func() (bool, error) {
				p, err := c.CoreV1().Pods("team").Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, nil
				}
				return p.Annotations[contract.AnnotationShadowAgreement] != "" && p.Spec.NodeName == w.node, nil
			})
			p, err := c.CoreV1().Pods("team").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{"node": p.Spec.NodeName, "shadowNode": p.Annotations[contract.AnnotationShadowNode], "agreement": p.Annotations[contract.AnnotationShadowAgreement]}
			wantAnn := map[string]string{"node": w.node, "shadowNode": placed[name], "agreement": w.agreement}
			if d := cmp.Diff(wantAnn, got); d != "" {
				t.Errorf("pod %s (-want +got):\n%s", name, d)
			}
			if p.Annotations[summaryAnnotation] == "" {
				t.Errorf("pod %s lost its scheduling result annotation", name)
			}
			if code, body := sim.Do(t, http.MethodGet, resultsPath+"team/"+name, ""); code != http.StatusOK {
				t.Errorf("GET the full result of %s = %d %s", name, code, body)
			}
		}
		s := sourceStatus(t, sim)
		if d := cmp.Diff(contract.ShadowCounts{Same: 1, Other: 1}, s.Shadow); d != "" {
			t.Errorf("status.shadow (-want +got):\n%s", d)
		}
		// Every Pod of the source is inside, a bound one on its node.
		inside := podPlaces(t, c, "team")
		for name, node := range podPlaces(t, sc, "team") {
			if got, ok := inside[name]; !ok || (node != "" && got != node) {
				t.Errorf("pod %s: on %q in the source, inside %q (present: %t)", name, node, got, ok)
			}
		}
	})

	t.Run("the trace holds what the source showed", func(t *testing.T) {
		code, body := sim.Do(t, http.MethodGet, contract.PathSourceTrace, "")
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d %s", contract.PathSourceTrace, code, body)
		}
		seen := map[string]bool{}
		for line := range strings.Lines(body) {
			var ev contract.TraceEvent
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("trace line %q: %v", line, err)
			}
			seen[ev.Type+" "+ev.Resource+" "+ev.Namespace+"/"+ev.Name] = true
		}
		for _, want := range []string{"ADDED nodes /node-0", "ADDED pods team/bound-0", "ADDED pods team/web-1", "DELETED pods team/web-1", "MODIFIED pods team/shadow-other"} {
			if !seen[want] {
				t.Errorf("the trace has no %q", want)
			}
		}
		if seen["ADDED pods other/elsewhere"] {
			t.Error("the trace has a pod outside the filter")
		}
	})

	// Restarted on its data, the first copy finds every key in etcd: it
	// goes through the API instead, and counts each object once.
	t.Run("a restart on its data resumes the copy", func(t *testing.T) {
		sim.Restart(t)
		sim.WaitReady(t, 2*time.Minute)
		status := waitSourcePhase(t, sim, contract.SourceSyncing)
		want := podPlaces(t, sc, "team")
		if status.Objects["pods"] != int64(len(want)) || status.Objects["nodes"] != 3 {
			t.Errorf("status.objects %v, want %d pods and 3 nodes", status.Objects, len(want))
		}
		inside := podPlaces(t, c, "team")
		for name, node := range want {
			if got, ok := inside[name]; !ok || (node != "" && got != node) {
				t.Errorf("pod %s: on %q in the source, inside %q (present: %t)", name, node, got, ok)
			}
		}
		if len(inside) != len(want) {
			t.Errorf("%d pods inside, %d in the source", len(inside), len(want))
		}
	})
}

// waitPodsInside waits for the team Pods present inside and gone.
func waitPodsInside(t *testing.T, c kubernetes.Interface, present, gone []string) {
	t.Helper()
	framework.WaitUntil(t, time.Minute, fmt.Sprintf("pods %v inside and %v gone", present, gone), func() (bool, error) {
		got := podPlaces(t, c, "team")
		for _, name := range present {
			if _, ok := got[name]; !ok {
				return false, nil
			}
		}
		for _, name := range gone {
			if _, ok := got[name]; ok {
				return false, nil
			}
		}
		return true, nil
	})
}

// TestSourceCredentials: a source that refuses the simulator's
// credentials leaves it Failed with the source's own message, until the
// Secret holds good ones; a Once source is then imported and Synced.
func TestSourceCredentials(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	src := startSource(t, etcd)
	src.WaitReady(t, 2*time.Minute)
	createNodes(t, src.Client(t), "node", 2, true)

	secretDir := t.TempDir()
	writeSourceSecret(t, secretDir, src, "not-a-token")
	source := &contract.Source{Mode: contract.SourceModeOnce, Dir: secretDir}
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/mirror/uid-3", contract.Environment{Source: source}.Strings()...)
	sim.WaitReady(t, 2*time.Minute)
	failed := waitSourcePhase(t, sim, contract.SourceFailed)
	if !strings.Contains(failed.Message, "Unauthorized") {
		t.Errorf("message = %q, want the source's Unauthorized", failed.Message)
	}

	writeSourceSecret(t, secretDir, src, "")
	synced := waitSourcePhase(t, sim, contract.SourceSynced)
	if synced.Message != "" || synced.Objects["nodes"] != 2 {
		t.Errorf("status once synced = %+v, want 2 nodes and no message", synced)
	}
}

func ptrTo[T any](v T) *T { return &v }

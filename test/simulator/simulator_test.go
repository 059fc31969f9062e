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

// Package simulator_test runs cmd/simulator as a process against a real
// etcd, with the pinned kube-apiserver, kube-scheduler and kwok of
// `make tools`, and checks the KEP-159 contract end to end.
package simulator_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/pki"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

const schedulerConfigPath = "/api/v1/schedulerconfiguration"

func fakeNode(name string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("8"),
		corev1.ResourceMemory: resource.MustParse("32Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels:      map[string]string{"type": "kwok", "kubernetes.io/hostname": name},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

func testPod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
		}}},
	}
}

// podDeletes404 is how many Pod DELETEs kube-apiserver has answered 404,
// from its metrics.
func podDeletes404(t testing.TB, c kubernetes.Interface) float64 {
	t.Helper()
	var n float64
	for _, sample := range innerMetrics(t, c)["apiserver_request_total"] {
		m := sample.Metric
		if m["code"] == "404" && m["resource"] == "pods" && m["subresource"] == "" && m["verb"] == "DELETE" {
			n += float64(sample.Value)
		}
	}
	return n
}

// innerMetrics are the inner kube-apiserver's metrics.
func innerMetrics(t testing.TB, c kubernetes.Interface) testutil.Metrics {
	t.Helper()
	raw, err := c.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("reading kube-apiserver's metrics: %v", err)
	}
	metrics := testutil.NewMetrics()
	if err := testutil.ParseMetrics(string(raw), &metrics); err != nil {
		t.Fatalf("parsing kube-apiserver's metrics: %v", err)
	}
	return metrics
}

func waitNodeReady(t testing.TB, c kubernetes.Interface, name string) {
	t.Helper()
	ctx := framework.TimeoutContext(t, time.Minute)
	framework.WaitUntil(t, time.Minute, "node "+name+" to be Ready", func() (bool, error) {
		node, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				return cond.Status == corev1.ConditionTrue, nil
			}
		}
		return false, nil
	})
}

// waitPodsRunning waits for n Pods of the selector to be Running on node.
func waitPodsRunning(t *testing.T, c kubernetes.Interface, namespace, selector, node string, n int) {
	t.Helper()
	framework.WaitUntil(t, time.Minute, fmt.Sprintf("%d Pods of %s Running on %s", n, selector, node), func() (bool, error) {
		pods, err := c.CoreV1().Pods(namespace).List(t.Context(), metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, nil
		}
		running := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == node && p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		return running == n, nil
	})
}

// waitPodRunning waits for the pod to be bound to node and Running.
func waitPodRunning(t *testing.T, c kubernetes.Interface, namespace, name, node string) {
	t.Helper()
	ctx := framework.TimeoutContext(t, time.Minute)
	var last *corev1.Pod
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		pod, err := c.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			last = pod
			if pod.Spec.NodeName != "" && pod.Spec.NodeName != node {
				t.Fatalf("pod %s/%s bound to %q, want %q", namespace, name, pod.Spec.NodeName, node)
			}
			if pod.Spec.NodeName == node && pod.Status.Phase == corev1.PodRunning {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pod %s/%s not Running on %s in time; last seen: node=%q phase=%q conditions=%v",
		namespace, name, node, last.Spec.NodeName, last.Status.Phase, last.Status.Conditions)
}

// objectRef names an object for the reset checks.
type objectRef struct{ kind, namespace, name string }

// systemObjects lists what the control plane made for itself in the kinds
// reset touches; reset must leave all of it.
func systemObjects(t *testing.T, c kubernetes.Interface) map[objectRef]bool {
	t.Helper()
	ctx := framework.TimeoutContext(t, time.Minute)
	out := map[objectRef]bool{}
	add := func(kind string, err error, items ...metav1.Object) {
		if err != nil {
			t.Fatalf("listing %s: %v", kind, err)
		}
		for _, o := range items {
			out[objectRef{kind, o.GetNamespace(), o.GetName()}] = true
		}
	}
	ns, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	add("namespace", err, metas(ns.Items)...)
	cms, err := c.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	add("configmap", err, metas(cms.Items)...)
	svcs, err := c.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	add("service", err, metas(svcs.Items)...)
	roles, err := c.RbacV1().Roles("").List(ctx, metav1.ListOptions{})
	add("role", err, metas(roles.Items)...)
	bindings, err := c.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{})
	add("rolebinding", err, metas(bindings.Items)...)
	leases, err := c.CoordinationV1().Leases("").List(ctx, metav1.ListOptions{})
	add("lease", err, metas(leases.Items)...)
	pcs, err := c.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
	add("priorityclass", err, metas(pcs.Items)...)
	slices, err := c.DiscoveryV1().EndpointSlices("").List(ctx, metav1.ListOptions{})
	add("endpointslice", err, metas(slices.Items)...)
	clusterRoles, err := c.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	add("clusterrole", err, metas(clusterRoles.Items)...)
	clusterBindings, err := c.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	add("clusterrolebinding", err, metas(clusterBindings.Items)...)
	flowSchemas, err := c.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
	add("flowschema", err, metas(flowSchemas.Items)...)
	levels, err := c.FlowcontrolV1().PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
	add("prioritylevelconfiguration", err, metas(levels.Items)...)
	return out
}

func metas[T any, PT interface {
	*T
	metav1.Object
}](items []T) []metav1.Object {
	out := make([]metav1.Object, 0, len(items))
	for i := range items {
		out = append(out, PT(&items[i]))
	}
	return out
}

// TestSimulator runs the simulator with each of kube-apiserver,
// kube-controller-manager, kwok and sim-scheduler a process of its own
// (SIMULATOR_SHARED_RUNTIME=false), so that its steps see each restart as
// its supervisor makes it; TestSharedRuntime and every other test run the
// default, the four in one process.
func TestSimulator(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/sim/uid-1", contract.Environment{SeparateProcesses: true}.Strings()...)

	took := sim.WaitReady(t, 2*time.Minute)
	t.Logf("simulator ready %v after start", took.Round(time.Millisecond))
	c := sim.Client(t)
	ctx := framework.TimeoutContext(t, 10*time.Minute)

	step := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	step("inner apiserver answers the admin certificate", func(t *testing.T) {
		v, err := c.Discovery().ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		if v.GitVersion != "v1.37.2" {
			t.Errorf("version %s, want v1.37.2", v.GitVersion)
		}
		review, err := c.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if u := review.Status.UserInfo; u.Username != "sim-admin" || !slices.Contains(u.Groups, "system:masters") {
			t.Errorf("authenticated as %q %v, want sim-admin in system:masters", u.Username, u.Groups)
		}
		if status, _ := sim.AnonymousGet(t, "/api/v1/namespaces", ""); status != http.StatusForbidden && status != http.StatusUnauthorized {
			t.Errorf("anonymous list of namespaces = %d, want 401 or 403 (RBAC)", status)
		}
	})

	step("inner apiserver keeps watch caches of Pods and Nodes only", func(t *testing.T) {
		// Each watch cache wakes every second (issue 37, idle CPU); a
		// resource a later kube-apiserver adds shows up here until
		// controlplane names it.
		cached := map[string]bool{}
		for _, sample := range innerMetrics(t, c)["apiserver_watch_cache_initializations_total"] {
			gr := schema.GroupResource{Group: string(sample.Metric["group"]), Resource: string(sample.Metric["resource"])}
			cached[gr.String()] = true
		}
		if want := map[string]bool{"pods": true, "nodes": true}; !maps.Equal(cached, want) {
			t.Errorf("watch caches of %v, want %v", slices.Sorted(maps.Keys(cached)), slices.Sorted(maps.Keys(want)))
		}
	})

	step("CORS allows the configured origin only", func(t *testing.T) {
		for origin, want := range map[string]string{"http://localhost:3000": "http://localhost:3000", "http://localhost:3001": "", "http://evil.com": ""} {
			if _, header := sim.AnonymousGet(t, "/version", origin); header.Get("Access-Control-Allow-Origin") != want {
				t.Errorf("kube-apiserver: Origin %s got Access-Control-Allow-Origin %q, want %q", origin, header.Get("Access-Control-Allow-Origin"), want)
			}
			req, err := http.NewRequest(http.MethodOptions, sim.ServerURL+schedulerConfigPath, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", http.MethodPut)
			resp, err := sim.ServerClient(nil, 10*time.Second).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != want {
				t.Errorf("simulator server: Origin %s got Access-Control-Allow-Origin %q, want %q", origin, got, want)
			}
		}
	})

	// The apiserver keeps making its own objects (the kubernetes Service,
	// its identity lease, system namespaces) for a moment after it is
	// ready: the baseline is taken once they have settled.
	var system map[objectRef]bool
	if err := wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(context.Context) (bool, error) {
		now := systemObjects(t, c)
		settled := maps.Equal(now, system) && now[objectRef{"service", "default", "kubernetes"}]
		system = now
		return settled, nil
	}); err != nil {
		t.Fatalf("waiting for the system objects to settle: %v", err)
	}

	step("a fake node becomes Ready and a pod runs on it", func(t *testing.T) {
		if _, err := c.CoreV1().Nodes().Create(ctx, fakeNode("fake-0"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitNodeReady(t, c, "fake-0")
		if _, err := c.CoreV1().Pods("default").Create(ctx, testPod("default", "web"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitPodRunning(t, c, "default", "web", "fake-0")
		total, byName, err := framework.TreeMemory(sim.PID())
		if err != nil {
			t.Fatal(err)
		}
		rss := map[string]int64{}
		for name, m := range byName {
			rss[name] = m.RSS >> 20
		}
		t.Logf("RSS of the simulator process tree with 1 node and 1 pod: %d MiB %v (MiB)", total.RSS>>20, rss)
	})

	// The simulator server is reachable by whatever reaches the Pod: its API
	// answers the simulator's admin certificate (sim-apiserver's) alone.
	step("the simulator server refuses all but the simulator's admin", func(t *testing.T) {
		certOf := func(ca *pki.CA, user string, groups ...string) *tls.Certificate {
			pair, err := ca.IssueClient(user, groups, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			cert, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
			if err != nil {
				t.Fatal(err)
			}
			return &cert
		}
		simCA, err := pki.LoadCA(sim.Credentials.CAPEM, readFile(t, filepath.Join(sim.Credentials.Dir, contract.FileCAKey)))
		if err != nil {
			t.Fatal(err)
		}
		forger, err := pki.NewCA("simulator-ca:test/test")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			cert *tls.Certificate
			want int
		}{
			{"no certificate", nil, http.StatusUnauthorized},
			{"the admin's name from another CA", certOf(forger, contract.AdminUser, contract.AdminGroup), http.StatusUnauthorized},
			{"a user's certificate of the simulator CA (?mode=direct)", certOf(simCA, "alice", contract.AdminGroup), http.StatusForbidden},
		} {
			for _, r := range []struct{ method, path, body string }{
				{http.MethodPut, "/api/v1/reset", ""},
				{http.MethodPut, schedulerConfigPath, `{"kind":"KubeSchedulerConfiguration","apiVersion":"kubescheduler.config.k8s.io/v1"}`},
				{http.MethodGet, schedulerConfigPath, ""},
				{http.MethodGet, "/api/v1/export", ""},
				{http.MethodPost, "/api/v1/import", `{}`},
				{http.MethodGet, "/api/v1/schedulingresults/default/web", ""},
				{http.MethodGet, "/debug/processes", ""},
			} {
				if status, body := sim.DoAs(t, c.cert, r.method, r.path, r.body); status != c.want {
					t.Errorf("%s: %s %s = %d %s, want %d", c.name, r.method, r.path, status, body, c.want)
				}
			}
		}
		// Plain HTTP is not served.
		resp, err := http.Get(strings.Replace(sim.ServerURL, "https://", "http://", 1) + "/api/v1/export")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("plain HTTP GET /api/v1/export = %d, want 400 (TLS only)", resp.StatusCode)
			}
		}
		// Nothing was reset; the probes need no certificate.
		if _, err := c.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{}); err != nil {
			t.Errorf("pod web after refused resets: %v", err)
		}
		if status, body := sim.DoAs(t, nil, http.MethodGet, "/readyz", ""); status != http.StatusOK {
			t.Errorf("GET /readyz without a certificate = %d %s, want 200", status, body)
		}
		if status, body := sim.Do(t, http.MethodGet, schedulerConfigPath, ""); status != http.StatusOK {
			t.Errorf("GET %s as the admin = %d %s", schedulerConfigPath, status, body)
		}
	})

	step("kube's controllers run: a Deployment makes Pods, deleting it removes them", func(t *testing.T) {
		labels := map[string]string{"app": "web"}
		template := testPod("default", "")
		template.Labels = labels
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](2),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: template.ObjectMeta, Spec: template.Spec},
			},
		}
		if _, err := c.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitPodsRunning(t, c, "default", "app=web", "fake-0", 2)
		if err := c.AppsV1().Deployments("default").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.WaitUntil(t, time.Minute, "the garbage collector to remove the Deployment's Pods", func() (bool, error) {
			pods, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
			return err == nil && len(pods.Items) == 0, nil
		})
	})

	// A Pod's deletion with grace period 0 is done in its request (marked,
	// then removed); kwok plays only the graceful ones, for which no kubelet
	// confirms: before, it sent a DELETE for each Pod a trace removed, and
	// found it gone (3,554 404s of a 10,000-event replay's 33,000 requests).
	step("kwok finishes a graceful deletion, and leaves one with grace period 0 alone", func(t *testing.T) {
		missed := func() float64 { return podDeletes404(t, c) }
		before := missed()
		const quick = 5
		for i := range quick {
			name := fmt.Sprintf("quick-%d", i)
			if _, err := c.CoreV1().Pods("default").Create(ctx, testPod("default", name), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			waitPodRunning(t, c, "default", name, "fake-0")
		}
		if _, err := c.CoreV1().Pods("default").Create(ctx, testPod("default", "graceful"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitPodRunning(t, c, "default", "graceful", "fake-0")
		for i := range quick {
			if err := c.CoreV1().Pods("default").Delete(ctx, fmt.Sprintf("quick-%d", i), metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
				t.Fatal(err)
			}
		}
		// The default grace period (30 s): only kwok ends it sooner. kwok
		// has seen the quick ones' deletions by the time it plays this one.
		if err := c.CoreV1().Pods("default").Delete(ctx, "graceful", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		framework.WaitUntil(t, 20*time.Second, "kwok to finish the graceful deletion", func() (bool, error) {
			_, err := c.CoreV1().Pods("default").Get(ctx, "graceful", metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		t.Logf("a graceful deletion finished by kwok in %v", time.Since(start).Round(time.Millisecond))
		if after := missed(); after != before {
			t.Errorf("%v DELETEs of Pods gone already (kube-apiserver's 404s), want none", after-before)
		}
	})

	// Nothing heartbeats a Node (kwok holds no Leases), but the node
	// lifecycle controller still gives a Node the taints its conditions
	// call for, as in a cluster: the scheduler reads those, not conditions.
	step("a Node's conditions become its taints", func(t *testing.T) {
		node := fakeNode("sick-0")
		delete(node.Annotations, "kwok.x-k8s.io/node") // kwok would make it Ready
		node.Status.Conditions = []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "Test"},
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue, Reason: "Test"},
		}
		if _, err := c.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		want := []corev1.Taint{
			{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
			{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute},
			{Key: corev1.TaintNodeMemoryPressure, Effect: corev1.TaintEffectNoSchedule},
		}
		var taints []corev1.Taint
		framework.WaitUntil(t, time.Minute, "sick-0's taints", func() (bool, error) {
			n, err := c.CoreV1().Nodes().Get(ctx, "sick-0", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			taints = n.Spec.Taints
			for _, w := range want {
				if !slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.MatchTaint(&w) }) {
					return false, nil
				}
			}
			return true, nil
		})
		t.Logf("sick-0's taints: %v", taints)
		if err := c.CoreV1().Nodes().Delete(ctx, "sick-0", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})

	step("a refused scheduler configuration keeps the scheduler running", func(t *testing.T) {
		before := sim.Processes(t)["kube-scheduler"]
		_, effectiveBefore := sim.Do(t, http.MethodGet, schedulerConfigPath, "")
		for _, tc := range []struct{ body, reason string }{
			{"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 200\n", "percentageOfNodesToScore"},
			{`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[{"schedulerName":"default-scheduler","plugins":{"filter":{"enabled":[{"name":"NoSuchPlugin"}]}}}]}`, "NoSuchPlugin"},
			{"kind: Pod\n", "apiVersion must be"},
		} {
			status, body := sim.Do(t, http.MethodPut, schedulerConfigPath, tc.body)
			if status != http.StatusBadRequest || !strings.Contains(body, tc.reason) {
				t.Errorf("PUT %q = %d %s, want 400 naming %q", tc.body, status, body, tc.reason)
			}
		}
		if after := sim.Processes(t)["kube-scheduler"]; after.PID != before.PID || after.Starts != before.Starts {
			t.Errorf("kube-scheduler changed from %+v to %+v after refused configurations", before, after)
		}
		if status := sim.ReadyzStatus(); status != http.StatusOK {
			t.Errorf("readyz = %d after refused configurations", status)
		}
		if _, effectiveAfter := sim.Do(t, http.MethodGet, schedulerConfigPath, ""); effectiveAfter != effectiveBefore {
			t.Error("the configuration in effect changed after refused configurations")
		}
	})

	step("an accepted scheduler configuration restarts the scheduler with it", func(t *testing.T) {
		before := sim.Processes(t)["kube-scheduler"]
		status, body := sim.Do(t, http.MethodPut, schedulerConfigPath, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: ImageLocality
- schedulerName: bin-packing
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`)
		if status != http.StatusOK {
			t.Fatalf("PUT = %d %s", status, body)
		}
		var effective struct {
			PercentageOfNodesToScore int `json:"percentageOfNodesToScore"`
			LeaderElection           struct {
				LeaderElect bool `json:"leaderElect"`
			} `json:"leaderElection"`
		}
		if err := json.Unmarshal([]byte(body), &effective); err != nil {
			t.Fatalf("PUT answered %s: %v", body, err)
		}
		if effective.PercentageOfNodesToScore != 50 || effective.LeaderElection.LeaderElect {
			t.Errorf("PUT answered %+v, want percentageOfNodesToScore 50 and no leader election", effective)
		}
		framework.WaitUntil(t, 30*time.Second, "a new kube-scheduler", func() (bool, error) {
			after := sim.Processes(t)["kube-scheduler"]
			return after.PID != 0 && after.PID != before.PID && after.Starts == before.Starts+1, nil
		})
		framework.WaitUntil(t, 30*time.Second, "readyz after the restart", func() (bool, error) { return sim.ReadyzStatus() == http.StatusOK, nil })
		if _, got := sim.Do(t, http.MethodGet, schedulerConfigPath, ""); got != body {
			t.Errorf("GET answered another configuration than PUT:\n%s\n%s", got, body)
		}
		// Only a scheduler running the new configuration has this profile.
		pod := testPod("default", "after-restart")
		pod.Spec.SchedulerName = "bin-packing"
		if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitPodRunning(t, c, "default", "after-restart", "fake-0")
	})

	step("reset removes user objects and keeps the system's", func(t *testing.T) {
		mustCreate := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.CoreV1().ConfigMaps("team-a").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.CoreV1().Pods("team-a").Create(ctx, testPod("team-a", "worker"), metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.CoreV1().ConfigMaps("kube-system").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "user-config", Finalizers: []string{"example.com/hold"}}}, metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "user-high"}, Value: 1000}, metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "example.com/fast"}, metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "pv-1"},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/pv-1"}},
			},
		}, metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.CoreV1().PersistentVolumeClaims("team-a").Create(ctx, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		}, metav1.CreateOptions{})
		mustCreate(err)
		waitPodRunning(t, c, "team-a", "worker", "fake-0")
		// Cluster-wide kinds a user may add.
		_, err = c.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "user-role"}}, metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "user-binding"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "user-role"}}, metav1.CreateOptions{})
		mustCreate(err)
		ignore := admissionregistrationv1.Ignore
		none := admissionregistrationv1.SideEffectClassNone
		_, err = c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "user-webhook"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: "widgets.example.com", FailurePolicy: &ignore, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
				ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: new("https://webhook.example.com/validate")},
				Rules: []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}}}},
			}},
		}, metav1.CreateOptions{})
		mustCreate(err)
		_, err = c.FlowcontrolV1().FlowSchemas().Create(ctx, &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "user-flows"},
			Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "workload-low"}, MatchingPrecedence: 5000}}, metav1.CreateOptions{})
		mustCreate(err)
		// And a scheduler configuration of their own.
		if status, body := sim.Do(t, http.MethodPut, schedulerConfigPath, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 42\n"); status != http.StatusOK {
			t.Fatalf("PUT %s = %d %s", schedulerConfigPath, status, body)
		}

		status, body := sim.Do(t, http.MethodPut, "/api/v1/reset", "")
		if status != http.StatusOK {
			t.Fatalf("reset = %d %s", status, body)
		}
		t.Logf("reset answered %s", body)
		if !strings.Contains(body, `"schedulerConfigurationRestored":true`) {
			t.Errorf("reset does not say it restored the scheduler configuration: %s", body)
		}
		if _, effective := sim.Do(t, http.MethodGet, schedulerConfigPath, ""); strings.Contains(effective, `"percentageOfNodesToScore":42`) {
			t.Errorf("the scheduler configuration after reset is still the user's: %s", effective)
		}

		nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil || len(nodes.Items) != 0 {
			t.Errorf("nodes after reset: %d (%v), want none", len(nodes.Items), err)
		}
		pods, err := c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil || len(pods.Items) != 0 {
			t.Errorf("pods after reset: %d (%v), want none", len(pods.Items), err)
		}
		gone := map[string]error{}
		_, gone["namespace team-a"] = c.CoreV1().Namespaces().Get(ctx, "team-a", metav1.GetOptions{})
		_, gone["configmap kube-system/user-config"] = c.CoreV1().ConfigMaps("kube-system").Get(ctx, "user-config", metav1.GetOptions{})
		_, gone["priorityclass user-high"] = c.SchedulingV1().PriorityClasses().Get(ctx, "user-high", metav1.GetOptions{})
		_, gone["storageclass fast"] = c.StorageV1().StorageClasses().Get(ctx, "fast", metav1.GetOptions{})
		_, gone["persistentvolume pv-1"] = c.CoreV1().PersistentVolumes().Get(ctx, "pv-1", metav1.GetOptions{})
		_, gone["pvc team-a/data"] = c.CoreV1().PersistentVolumeClaims("team-a").Get(ctx, "data", metav1.GetOptions{})
		_, gone["clusterrole user-role"] = c.RbacV1().ClusterRoles().Get(ctx, "user-role", metav1.GetOptions{})
		_, gone["clusterrolebinding user-binding"] = c.RbacV1().ClusterRoleBindings().Get(ctx, "user-binding", metav1.GetOptions{})
		_, gone["validatingwebhookconfiguration user-webhook"] = c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "user-webhook", metav1.GetOptions{})
		_, gone["flowschema user-flows"] = c.FlowcontrolV1().FlowSchemas().Get(ctx, "user-flows", metav1.GetOptions{})
		for what, err := range gone {
			if !apierrors.IsNotFound(err) {
				t.Errorf("%s after reset: %v, want NotFound", what, err)
			}
		}
		after := systemObjects(t, c)
		for ref := range system {
			if !after[ref] {
				t.Errorf("reset removed system object %+v", ref)
			}
		}
		for ref := range after {
			if !system[ref] {
				t.Errorf("after reset, %+v is there that was not before", ref)
			}
		}
		// The cluster still works.
		if _, err := c.CoreV1().Nodes().Create(ctx, fakeNode("fake-1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitNodeReady(t, c, "fake-1")
	})

	// kwok holds no Node Leases: a restarted kwok (a new holder identity)
	// plays the Pods of the Nodes it finds at once. With Leases it waited
	// until the old ones expired (10 minutes).
	step("a killed kwok is restarted and runs Pods at once", func(t *testing.T) {
		before := sim.Kill(t, "kwok")
		framework.WaitUntil(t, time.Minute, "kwok to be restarted", func() (bool, error) {
			after := sim.Processes(t)["kwok"]
			return after.PID != 0 && after.PID != before.PID, nil
		})
		pod := testPod("default", "after-kwok")
		pod.Spec.NodeName = "fake-1"
		if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitPodRunning(t, c, "default", "after-kwok", "fake-1")
	})

	step("a killed kube-apiserver is restarted", func(t *testing.T) {
		before := sim.Kill(t, "kube-apiserver")
		framework.WaitUntil(t, time.Minute, "readyz to fail", func() (bool, error) { return sim.ReadyzStatus() != http.StatusOK, nil })
		start := time.Now()
		framework.WaitUntil(t, 90*time.Second, "readyz to pass again", func() (bool, error) { return sim.ReadyzStatus() == http.StatusOK, nil })
		t.Logf("ready again %v after readyz failed", time.Since(start).Round(time.Millisecond))
		after := sim.Processes(t)["kube-apiserver"]
		if after.PID == before.PID || after.Starts != before.Starts+1 {
			t.Errorf("kube-apiserver went from %+v to %+v, want one restart", before, after)
		}
		if _, err := c.CoreV1().Nodes().Get(ctx, "fake-1", metav1.GetOptions{}); err != nil {
			t.Errorf("the data did not survive the restart: %v", err)
		}
	})

	step("SIGTERM stops everything and exits 0", func(t *testing.T) {
		children := sim.Processes(t)
		if err := sim.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		exit := sim.WaitExit(t, 2*time.Minute)
		t.Logf("simulator stopped %v after SIGTERM", time.Since(start).Round(time.Millisecond))
		if exit != nil {
			var exitErr interface{ ExitCode() int }
			if errors.As(exit, &exitErr) {
				t.Errorf("simulator exited with code %d, want 0", exitErr.ExitCode())
			} else {
				t.Errorf("simulator: %v", exit)
			}
		}
		for name, p := range children {
			if p.PID != 0 && framework.Alive(p.PID) {
				t.Errorf("%s (pid %d) still alive after the simulator exited", name, p.PID)
			}
		}
		if left := processesMentioning(t, sim.Dir); len(left) > 0 {
			t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
		}
		if !strings.Contains(sim.Tail(20), "Stopped") {
			t.Errorf("no clean stop in the log:\n%s", sim.Tail(20))
		}
	})
}

// String helps failure messages.
func (r objectRef) String() string { return fmt.Sprintf("%s %s/%s", r.kind, r.namespace, r.name) }

// processesMentioning lists the live processes whose command line holds s.
func processesMentioning(tb testing.TB, s string) []string {
	tb.Helper()
	left, err := framework.ProcessesMentioning(s)
	if err != nil {
		tb.Fatal(err)
	}
	return left
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// TestSimulatorRefusedSchedulerConfiguration: a scheduler configuration that
// kube-scheduler refuses fails the start, saying why, although
// kube-apiserver starts while it is checked; nothing is left running.
func TestSimulatorRefusedSchedulerConfiguration(t *testing.T) {
	etcd := framework.StartThrowawayEtcd(t)
	config := filepath.Join(t.TempDir(), "scheduler.yaml")
	if err := os.WriteFile(config, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled:
      - name: NoSuchPlugin
`), 0o644); err != nil {
		t.Fatal(err)
	}
	sim := framework.StartStandaloneSimulator(t, etcd, "/simulators/test/refused/uid-1", contract.Environment{SchedulerConfigPath: config}.Strings()...)
	exit := sim.WaitExit(t, 2*time.Minute)
	var exitErr interface{ ExitCode() int }
	if !errors.As(exit, &exitErr) || exitErr.ExitCode() == 0 {
		t.Errorf("simulator exited with %v, want a non-zero exit code", exit)
	}
	if log := sim.Tail(30); !strings.Contains(log, "NoSuchPlugin") {
		t.Errorf("the log does not say which plugin was refused:\n%s", log)
	}
	if left := processesMentioning(t, sim.Dir); len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}
}

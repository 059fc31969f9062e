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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// kubectlSimCommand is `kubectl sim ARGS` as a user runs it: kubectl finds
// the plugin on PATH, in the directory `make build` puts it in (built from
// the tree, as every binary a test runs).
func kubectlSimCommand(t testing.TB, ctx context.Context, args ...string) *exec.Cmd {
	t.Helper()
	binDir, err := framework.Binaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path, err := exec.LookPath("kubectl")
	if err != nil {
		if framework.InCI() {
			t.Fatalf("kubectl not found on PATH: %v", err)
		}
		t.Skipf("kubectl not found on PATH: %v", err)
	}
	cmd := exec.CommandContext(ctx, path, append([]string{"sim"}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// kubectlSim runs `kubectl sim ARGS` and returns its stdout; a non-zero
// exit is an error carrying stderr, what the user reads.
func kubectlSim(t testing.TB, args ...string) (string, error) {
	t.Helper()
	cmd := kubectlSimCommand(t, t.Context(), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t.Logf("kubectl sim %s", strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("kubectl sim %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// TestKubectlSim drives a simulator with kubectl sim as a user would, with
// a kubeconfig of their own: connect, then plain kubectl inside; why, on a
// pending Pod and a bound one; export, reset, import; ui, serving the web
// view and what it reads on 127.0.0.1. Three Nodes: the plugin's cost
// at 5,000 is BenchmarkKubectlSimWhy's.
func TestKubectlSim(t *testing.T) {
	host := hostCluster(t)
	ns := createNamespace(t, "kubectl-sim")
	runningSimulator(t, ns, "sim")
	// connect writes to the caller's kubeconfig: a copy of the admin's.
	kc := filepath.Join(t.TempDir(), "config")
	data, err := os.ReadFile(host.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kc, data, 0o600); err != nil {
		t.Fatal(err)
	}
	sim := func(args ...string) (string, error) {
		t.Helper()
		return kubectlSim(t, append(args, "--kubeconfig", kc, "-n", ns)...)
	}
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pool := write("pool.yaml", fmt.Sprintf(`apiVersion: sim.x-k8s.io/v1alpha1
kind: NodePool
metadata: {name: workers, namespace: %s}
spec:
  simulatorName: sim
  replicas: 3
  template:
    status:
      capacity: {cpu: "4", memory: 16Gi, pods: "110"}
      allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
`, ns))
	if out, err := kubectl(t, kc, "apply", "-f", pool); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}

	t.Run("connect", func(t *testing.T) {
		out, err := sim("connect", "sim", "--context-name", "inside")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("kubectl sim connect:\n%s", out)
		if !strings.Contains(out, "kubectl --context inside get nodes") {
			t.Errorf("connect does not say how to use the context:\n%s", out)
		}
		if out, err := sim("connect", "sim", "--context-name", "inside-mine", "--use-host-credentials"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if out, err := kubectl(t, kc, "wait", "-n", ns, "--for=condition=Ready", "nodepool/workers", "--timeout=120s"); err != nil {
			t.Fatalf("kubectl wait: %v\n%s", err, out)
		}
		for _, context := range []string{"inside", "inside-mine"} {
			out, err := kubectl(t, kc, "--context", context, "get", "nodes", "-o", "name")
			if err != nil {
				t.Fatal(err)
			}
			if want := "node/workers-0\nnode/workers-1\nnode/workers-2\n"; out != want {
				t.Errorf("kubectl --context %s get nodes: %q, want %q", context, out, want)
			}
		}
		// Inside, the token's context acts as the simulator's proxy
		// account, the other as the caller.
		whoami := func(args ...string) string {
			out, err := kubectl(t, kc, append(args, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")...)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		me := whoami()
		if got := whoami("--context", "inside-mine"); got != me {
			t.Errorf("inside with --use-host-credentials the caller is %q, want %q, as on the host", got, me)
		}
		if got, want := whoami("--context", "inside"), "system:serviceaccount:"+ns+":sim-sim-proxy"; got != want {
			t.Errorf("inside with the served token the caller is %q, want %q", got, want)
		}
	})

	pods := write("pods.yaml", `apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: default}
spec:
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "100"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 500m}}}]
`)
	if out, err := kubectl(t, kc, "--context", "inside", "apply", "-f", pods); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	// why waits until the simulator has the Pod's result.
	why := func(t *testing.T, args ...string) string {
		t.Helper()
		var out string
		var err error
		if werr := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			out, err = sim(append([]string{"why"}, args...)...)
			return err == nil, nil
		}); werr != nil {
			t.Fatalf("kubectl sim why %s: %v", strings.Join(args, " "), err)
		}
		return out
	}

	t.Run("why: a pending Pod", func(t *testing.T) {
		out := why(t, "huge", "--simulator", "sim")
		t.Logf("kubectl sim why huge:\n%s", out)
		for _, want := range []string{
			`(?m)^OUTCOME:\s+Unschedulable$`,
			`(?m)^NODES:\s+3 \(0 feasible, 3 filtered out\)$`,
			`(?m)^SELECTED NODE:\s+<none>$`,
			`(?m)^FILTER PLUGIN\s+REASON\s+NODES$`,
			`(?m)^NodeResourcesFit\s+Insufficient cpu\s+3$`,
		} {
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("kubectl sim why huge does not show %s", want)
			}
		}
		// -o json: the full result, every node × plugin.
		out = why(t, "default/huge", "--simulator", "sim", "-o", "json")
		var doc struct {
			Summary struct{ Outcome string }
			Filter  map[string]map[string]string `json:"filter-result"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("kubectl sim why -o json: %v\n%s", err, out)
		}
		if doc.Summary.Outcome != "Unschedulable" || len(doc.Filter) != 3 || doc.Filter["workers-1"]["NodeResourcesFit"] != "Insufficient cpu" {
			t.Errorf("kubectl sim why -o json: outcome %q, filter-result %v; want Unschedulable, 3 nodes with NodeResourcesFit: Insufficient cpu", doc.Summary.Outcome, doc.Filter)
		}
	})

	t.Run("why: a bound Pod", func(t *testing.T) {
		out := why(t, "web", "--simulator", "sim", "-o", "wide")
		t.Logf("kubectl sim why web -o wide:\n%s", out)
		node, err := kubectl(t, kc, "--context", "inside", "get", "pod", "web", "-o", "jsonpath={.spec.nodeName}")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			`(?m)^OUTCOME:\s+Bound$`,
			`(?m)^SELECTED NODE:\s+` + regexp.QuoteMeta(node) + `$`,
			`(?m)^NODE\s+FINAL SCORE\s+.*NODERESOURCESFIT`,
			`(?m)^` + regexp.QuoteMeta(node) + `\s+\d+\s+.*<- selected$`,
		} {
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("kubectl sim why web -o wide does not show %s", want)
			}
		}
	})

	t.Run("why: errors as kubectl shows them", func(t *testing.T) {
		_, err := sim("why", "nope", "--simulator", "sim")
		if want := "Error from server (NotFound): no scheduling result for pod default/nope"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("kubectl sim why nope: %v, want %q", err, want)
		}
		stranger, err := host.UserKubeconfig("kubectl-sim-stranger")
		if err != nil {
			t.Fatal(err)
		}
		_, err = kubectlSim(t, "why", "huge", "--simulator", "sim", "-n", ns, "--kubeconfig", stranger)
		if want := `Error from server (Forbidden): `; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `cannot get resource "simulators/api"`) {
			t.Errorf("kubectl sim why as a stranger: %v, want the host's 403", err)
		}
	})

	t.Run("export, reset, import", func(t *testing.T) {
		export, err := sim("export", "sim")
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid([]byte(export)) || !strings.Contains(export, `"huge"`) {
			t.Fatalf("kubectl sim export: not a document with Pod huge:\n%.2000s", export)
		}
		file := write("export.json", export)

		out, err := sim("reset", "sim")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("kubectl sim reset:\n%s", out)
		if !regexp.MustCompile(`(?m)^pods\s+2\s+`).MatchString(out) {
			t.Errorf("kubectl sim reset does not say it deleted the 2 Pods:\n%s", out)
		}
		if _, err := kubectl(t, kc, "--context", "inside", "get", "pod", "huge"); err == nil {
			t.Error("Pod huge is still there after kubectl sim reset")
		}
		if _, err := sim("why", "huge", "--simulator", "sim"); err == nil || !strings.Contains(err.Error(), "NotFound") {
			t.Errorf("kubectl sim why huge after the reset: %v, want NotFound", err)
		}

		out, err = sim("import", "sim", "-f", file)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		t.Logf("kubectl sim import:\n%s", out)
		if !strings.Contains(out, "Import Succeeded") || !regexp.MustCompile(`(?m)^pods\s+2\s+2\s+0\s`).MatchString(out) {
			t.Errorf("kubectl sim import does not say it created the 2 Pods:\n%s", out)
		}
		if _, err := kubectl(t, kc, "--context", "inside", "get", "pod", "huge"); err != nil {
			t.Errorf("Pod huge is not back after kubectl sim import: %v", err)
		}
		// Again, from the document the simulator stored: nothing to create.
		out, err = sim("import", "sim", "--resume")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !regexp.MustCompile(`(?m)^pods\s+2\s+0\s+2\s`).MatchString(out) {
			t.Errorf("kubectl sim import --resume does not find the 2 Pods there:\n%s", out)
		}
	})

	t.Run("ui", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := kubectlSimCommand(t, ctx, "ui", "sim", "--kubeconfig", kc, "-n", ns)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		urlRE := regexp.MustCompile(`^http://127\.0\.0\.1:(\d+)` + regexp.QuoteMeta(framework.SimulatorPath(ns, "sim", "ui", "/")) + `$`)
		lines := bufio.NewScanner(stdout)
		var base string
		for base == "" && lines.Scan() {
			if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
				base = "http://127.0.0.1:" + m[1]
			}
		}
		go func() {
			_, _ = io.Copy(io.Discard, stdout)
			exited <- cmd.Wait()
		}()
		if base == "" {
			_ = cmd.Process.Kill()
			t.Fatalf("kubectl sim ui printed no URL of the view: %v\n%s", <-exited, stderr.String())
		}
		request := func(method, path, origin string) (int, string, http.Header) {
			req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close() //nolint:errcheck
			body, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(body), resp.Header
		}
		// The view itself, at the URL printed.
		view := framework.SimulatorPath(ns, "sim", "ui", "/")
		if code, body, header := request(http.MethodGet, view, ""); code != http.StatusOK || !strings.HasPrefix(header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s through kubectl sim ui: %d %s\n%.500s", view, code, header.Get("Content-Type"), body)
		}
		// What the view reads, through the host with the caller's rights.
		api := framework.SimulatorPath(ns, "sim", "api", "/v1/schedulerconfiguration")
		if code, body, _ := request(http.MethodGet, api, ""); code != http.StatusOK || !strings.Contains(body, "KubeSchedulerConfiguration") {
			t.Errorf("GET %s through kubectl sim ui: %d\n%.500s", api, code, body)
		}
		if code, _, _ := request(http.MethodGet, "/api/v1/namespaces/"+ns+"/secrets", ""); code != http.StatusForbidden {
			t.Errorf("GET the host's Secrets through kubectl sim ui: %d, want 403 (only sim.x-k8s.io is served)", code)
		}
		importPath := framework.SimulatorPath(ns, "sim", "api", "/v1/import")
		if code, _, _ := request(http.MethodPost, importPath, "https://evil.example"); code != http.StatusForbidden {
			t.Errorf("POST an import from a page of another origin through kubectl sim ui: %d, want 403", code)
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if err := <-exited; err != nil {
			t.Errorf("kubectl sim ui after Ctrl-C: %v\n%s", err, stderr.String())
		}
	})
}

// BenchmarkKubectlSimWhy: `kubectl sim why` explains a Pod that fits on no
// Node among n (framework.BenchNodes: 5,000), as a user runs it, through
// kubectl: the table (the compact result, from the full one) and -o json
// (the full result, every node × plugin), one of each per iteration. It
// reports each one's median and slowest time, and the full result's size.
// One iteration: go test -run '^$' -bench KubectlSimWhy -benchtime 1x ./test/integration/
func BenchmarkKubectlSimWhy(b *testing.B) {
	n := framework.BenchNodes(b)
	host := hostCluster(b)
	ns := createNamespace(b, "bench-why")
	runningSimulator(b, ns, "sim")
	np := &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "workers"},
		Spec:       v1alpha1.NodePoolSpec{SimulatorName: "sim", Replicas: ptr.To(int32(n))},
	}
	if _, err := simClient(b).SimV1alpha1().NodePools(ns).Create(b.Context(), np, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	inner := innerClient(b, ns, "sim")
	waitForPool(b, inner, ns, "workers")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "huge", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1000")}}}}},
	}
	if _, err := inner.CoreV1().Pods("default").Create(b.Context(), pod, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	why := func(args ...string) (string, time.Duration, error) {
		cmd := kubectlSimCommand(b, b.Context(), append([]string{"why", "huge", "--simulator", "sim", "-n", ns, "--kubeconfig", host.KubeconfigPath}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, stderr.String())
		}
		return stdout.String(), took, err
	}
	// The first attempt's result, once the scheduler has stored it.
	want := regexp.MustCompile(fmt.Sprintf(`(?m)^NodeResourcesFit\s+Insufficient cpu\s+%d$`, n))
	var out string
	var err error
	if werr := wait.PollUntilContextTimeout(b.Context(), time.Second, 2*time.Minute, true, func(context.Context) (bool, error) {
		out, _, err = why()
		return err == nil && want.MatchString(out), nil
	}); werr != nil {
		b.Fatalf("kubectl sim why huge does not show %s among %d Nodes: %v\n%s", want, n, err, out)
	}
	b.Logf("kubectl sim why huge, among %d Nodes:\n%s", n, out)
	var table, full []time.Duration
	var size int
	for b.Loop() {
		out, took, err := why()
		if err != nil || !want.MatchString(out) {
			b.Fatalf("kubectl sim why huge: %v\n%s", err, out)
		}
		table = append(table, took)
		out, took, err = why("-o", "json")
		if err != nil || !json.Valid([]byte(out)) {
			b.Fatalf("kubectl sim why huge -o json: %v\n%.1000s", err, out)
		}
		full = append(full, took)
		size = len(out)
	}
	for _, c := range []struct {
		name string
		d    []time.Duration
	}{{"table", table}, {"json", full}} {
		slices.Sort(c.d)
		framework.ReportContender(b, c.name, c.d[len(c.d)/2].Seconds(), "median-s")
		framework.ReportContender(b, c.name, c.d[len(c.d)-1].Seconds(), "max-s")
	}
	framework.ReportContender(b, "json", float64(size)/1024, "KiB")
}

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
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// hostile is markup a cluster's values may hold: were any of it parsed as
// HTML, it would set window.__pwned and open a dialog.
const hostile = `<img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2;alert(2)</script>`

// uiPool is the NodePool of the view's tests.
const uiPool = "big"

// uiPoolSize is the NodePool the view is tested with: 5,000 Nodes come
// Ready in about ten seconds here, so the test measures at the scale.
const uiPoolSize = 5000

// TestWebView is issue 35's browser test: Debian's Chromium, driven with
// chromedp, loads simulators/NAME/ui through `kubectl proxy` on loopback
// and, as the page's user would, finds a pool's 5,000 Nodes in the grid
// (by pool and by label selector), opens a pending Pod and sees the
// plugin that rejected every node (NodeResourcesFit), opens a bound Pod and
// sees its node chosen, edits the scheduler configuration as a writer
// (applied) and as a reader (the host's 403 shown), and scales the pool.
// Node and Pod annotations and a refused configuration carry markup and
// script: none of it runs or becomes an element (no dialog, no
// window.__pwned, no CSP violation). It logs the page's own measures:
// drawing 5,000 Nodes once their list arrived, and opening a Pod's result
// among them. Screenshots go to _output/ui.
func TestWebView(t *testing.T) {
	c := hostCluster(t)
	chromium, err := framework.InstallBrowser(t.Context())
	if err != nil {
		t.Fatalf("the browser test needs Chromium: %v", err)
	}
	ns, placed := webViewFixture(t)

	// A reader may load the view and read through it, and write nothing.
	const reader = "e2e-ui-reader"
	framework.Grant(t, c, ns, reader,
		rbacv1.PolicyRule{APIGroups: []string{sim.GroupName}, Resources: []string{"simulators", "nodepools"}, Verbs: []string{"get", "list", "watch"}},
		rbacv1.PolicyRule{APIGroups: []string{sim.GroupName}, Resources: []string{"simulators/ui", "simulators/proxy", "simulators/api"}, Verbs: []string{"get"}})
	readerKC, err := c.UserKubeconfig(reader)
	if err != nil {
		t.Fatal(err)
	}
	adminURL := kubectlProxy(t, c, c.KubeconfigPath)
	readerURL := kubectlProxy(t, c, readerKC)
	ui := framework.SimulatorPath(ns, "example", "ui", "")

	b := newBrowser(t, chromium)
	shots := screenshots(t)

	// Nodes: the list arrives, the grid draws every Node.
	b.do(chromedp.Navigate(adminURL + ui)) // ui, sent on to ui/
	b.waitJS("the grid's first drawing", `document.getElementById('grid').dataset.firstDrawn || ''`, 2*time.Minute)
	if got := b.js(`document.getElementById('grid').dataset.count`); got != fmt.Sprint(uiPoolSize) {
		t.Errorf("the grid drew %s Nodes, want %d", got, uiPoolSize)
	}
	t.Logf("nodes grid: %d Nodes drawn %s ms after their list arrived (list fetched in %s ms)", uiPoolSize,
		b.js(`performance.getEntriesByName('nodes-draw')[0].duration.toFixed(1)`), b.js(`performance.getEntriesByName('nodes-list')[0].duration.toFixed(1)`))
	b.waitJS("the Pods' requests in the grid", `/ 21 pods/.test(document.getElementById('nodes-summary').textContent) ? 'yes' : ''`, time.Minute)
	// By pool, then by label: a third of the pool is in zone-1.
	b.js(`(() => { const s = document.getElementById('pool-filter'); s.value = '` + uiPool + `'; s.dispatchEvent(new Event('change')); return ''; })()`)
	b.waitJS("the pool's Nodes", `document.getElementById('grid').dataset.count === '`+fmt.Sprint(uiPoolSize)+`' && document.getElementById('pool-filter').value === '`+uiPool+`' ? 'yes' : ''`, 10*time.Second)
	b.do(chromedp.SendKeys(chromedp.CSS("#selector"), "topology.kubernetes.io/zone=zone-1"))
	b.waitJS("the selector's Nodes", `document.getElementById('grid').dataset.count === '`+fmt.Sprint((uiPoolSize+1)/3)+`' ? 'yes' : ''`, 10*time.Second)
	// One Node, found by name: its annotation is text.
	b.do(chromedp.SendKeys(chromedp.CSS("#find-node"), sim.NodeName(uiPool, 1)+"\r"))
	b.waitJS("the Node's details", `document.querySelector('#node-detail h2')?.textContent || ''`, 10*time.Second)
	if detail := b.js(`document.getElementById('node-detail').textContent`); !strings.Contains(detail, sim.NodeName(uiPool, 1)) || !strings.Contains(detail, hostile) {
		t.Errorf("the Node's details do not show its name and annotation as text: %q", detail)
	}
	shots.take(b, "nodes")

	// Pods: the pending one with its reason; its result: every node
	// rejected by NodeResourcesFit.
	b.do(chromedp.Click(chromedp.CSS("#tab-pods")))
	b.waitJS("the pending Pod's row", `document.querySelector('tr[data-pod="default/too-big"]')?.textContent || ''`, 30*time.Second)
	if row := b.js(`document.querySelector('tr[data-pod="default/too-big"]').textContent`); !strings.Contains(row, "Insufficient cpu") {
		t.Errorf("the pending Pod's row does not say why: %q", row)
	}
	shots.take(b, "pods")
	b.click(`tr[data-pod="default/too-big"] a`)
	b.waitJS("the pending Pod's result", `document.getElementById('result-table').dataset.rendered || ''`, time.Minute)
	t.Logf("pod result: opened among %s nodes in %s ms (drawn in %s ms)", b.js(`document.getElementById('result-table').dataset.rendered`),
		b.js(`performance.getEntriesByName('result-open')[0].duration.toFixed(1)`), b.js(`performance.getEntriesByName('result-render')[0].duration.toFixed(1)`))
	if got := b.js(`document.getElementById('result-table').dataset.rendered`); got != fmt.Sprint(uiPoolSize) {
		t.Errorf("the pending Pod's result has %s nodes, want %d", got, uiPoolSize)
	}
	if failures := b.js(`document.getElementById('result-failures')?.textContent || ''`); !strings.Contains(failures, "NodeResourcesFit") || !strings.Contains(failures, "Insufficient cpu") {
		t.Errorf("the filter failures do not name NodeResourcesFit: %q", failures)
	}
	if row := b.js(`document.querySelector('#result-table tbody tr[data-node]')?.textContent || ''`); !strings.Contains(row, "rejected by NodeResourcesFit") {
		t.Errorf("the first node's row: %q, want it rejected by NodeResourcesFit", row)
	}
	if summary := b.js(`document.getElementById('result-summary').textContent`); !strings.Contains(summary, hostile) {
		t.Errorf("the Pod's annotation is not shown as text in its result: %q", summary)
	}
	shots.take(b, "result-pending")
	// A bound Pod: its node first, marked chosen.
	b.js(`location.hash = '#pod/default/placed-0'; ''`)
	b.waitJS("the bound Pod's result", `document.getElementById('result-title').textContent === 'Pod default/placed-0' && document.getElementById('result-table').dataset.rendered ? document.querySelector('#result-table tbody tr[data-node]')?.className || 'none' : ''`, time.Minute)
	if first := b.js(`(() => { const r = document.querySelector('#result-table tbody tr[data-node]'); return r.className + ' ' + r.dataset.node; })()`); first != "chosen "+placed.Spec.NodeName {
		t.Errorf("the bound Pod's first row: %q, want chosen %s", first, placed.Spec.NodeName)
	}
	shots.take(b, "result-bound")

	// The scheduler configuration, edited as a writer: applied. Then one
	// with markup for a plugin's name: refused, the message shown as text.
	b.do(chromedp.Click(chromedp.CSS("#tab-config")))
	b.waitJS("the scheduler configuration", `document.getElementById('config-text').value`, 30*time.Second)
	b.js(`(() => { const t = document.getElementById('config-text'); const c = JSON.parse(t.value); c.percentageOfNodesToScore = 42; t.value = JSON.stringify(c, null, 2); return ''; })()`)
	b.do(chromedp.Click(chromedp.CSS("#config-apply")))
	status := b.waitJS("the configuration applied", `(() => { const s = document.getElementById('config-status'); return s.className === 'muted' ? '' : s.className + ': ' + s.textContent; })()`, 2*time.Minute)
	if !strings.HasPrefix(status, "ok: ") {
		t.Errorf("the writer's configuration: %q, want it applied", status)
	}
	var effective struct {
		PercentageOfNodesToScore *int32 `json:"percentageOfNodesToScore"`
	}
	out, err := kubectl(t, "get", "--raw", framework.SimulatorPath(ns, "example", "api", "/v1/schedulerconfiguration"))
	if err := firstErr(err, json.Unmarshal([]byte(out), &effective)); err != nil || effective.PercentageOfNodesToScore == nil || *effective.PercentageOfNodesToScore != 42 {
		t.Errorf("the configuration after the writer's edit: %v %s", err, out)
	}
	b.js(`(() => { const t = document.getElementById('config-text'); const c = JSON.parse(t.value); c.profiles[0].plugins = {score: {enabled: [{name: ` + jsString(hostile) + `}]}}; t.value = JSON.stringify(c, null, 2); return ''; })()`)
	b.do(chromedp.Click(chromedp.CSS("#config-apply")))
	status = b.waitJS("the hostile configuration refused", `(() => { const s = document.getElementById('config-status'); return s.className === 'muted' ? '' : s.className + ': ' + s.textContent; })()`, 2*time.Minute)
	if !strings.HasPrefix(status, "error: 400") {
		t.Errorf("a configuration with an unknown plugin: %q, want the simulator's 400", status)
	}
	shots.take(b, "config-writer")

	// NodePools: scaled by the writer.
	b.do(chromedp.Click(chromedp.CSS("#tab-pools")))
	b.waitJS("the pool's row", `document.querySelector('tr[data-pool="`+uiPool+`"]')?.textContent || ''`, 30*time.Second)
	b.do(chromedp.Clear(chromedp.CSS(`tr[data-pool="`+uiPool+`"] input`)),
		chromedp.SendKeys(chromedp.CSS(`tr[data-pool="`+uiPool+`"] input`), fmt.Sprint(uiPoolSize+1)))
	b.click(`tr[data-pool="` + uiPool + `"] button`)
	status = b.waitJS("the pool scaled", `(() => { const s = document.getElementById('pools-status'); return s.className === 'muted' || !s.className ? '' : s.className + ': ' + s.textContent; })()`, 30*time.Second)
	got, err := simClient(t).SimV1alpha1().NodePools(ns).Get(t.Context(), uiPool, metav1.GetOptions{})
	if !strings.HasPrefix(status, "ok: ") || err != nil || *got.Spec.Replicas != uiPoolSize+1 {
		t.Errorf("the writer's scale: %q; the pool: %v %v", status, err, got.Spec.Replicas)
	}
	shots.take(b, "pools")
	b.checkInert("the writer's page")

	// The reader: the page loads and reads; applying a configuration or
	// scaling shows the host's 403.
	b.do(chromedp.Navigate(readerURL + ui + "/#config"))
	b.waitJS("the reader's configuration", `document.getElementById('config-text').value`, 30*time.Second)
	b.do(chromedp.Click(chromedp.CSS("#config-apply")))
	status = b.waitJS("the reader's apply refused", `(() => { const s = document.getElementById('config-status'); return s.className === 'muted' ? '' : s.className + ': ' + s.textContent; })()`, 30*time.Second)
	if !strings.HasPrefix(status, "error: 403") || !strings.Contains(status, `cannot update resource "simulators/api"`) {
		t.Errorf("the reader's apply: %q, want the host's 403 on update simulators/api", status)
	}
	shots.take(b, "config-reader")
	b.do(chromedp.Click(chromedp.CSS("#tab-pools")))
	b.waitJS("the reader's pool row", `document.querySelector('tr[data-pool="`+uiPool+`"]')?.textContent || ''`, 30*time.Second)
	b.click(`tr[data-pool="` + uiPool + `"] button`)
	status = b.waitJS("the reader's scale refused", `(() => { const s = document.getElementById('pools-status'); return s.className === 'muted' || !s.className ? '' : s.className + ': ' + s.textContent; })()`, 30*time.Second)
	if !strings.HasPrefix(status, "error: 403") || !strings.Contains(status, "nodepools/scale") {
		t.Errorf("the reader's scale: %q, want the host's 403 on nodepools/scale", status)
	}
	b.js(`location.hash = '#nodes'; ''`)
	b.waitJS("the reader's grid", `document.getElementById('grid').dataset.firstDrawn || ''`, time.Minute)
	if got := b.js(`document.getElementById('grid').dataset.count`); got != fmt.Sprint(uiPoolSize+1) && got != fmt.Sprint(uiPoolSize) {
		t.Errorf("the reader's grid drew %s Nodes, want %d", got, uiPoolSize+1)
	}
	b.checkInert("the reader's page")
}

// webViewFixture makes a simulator "example" in a new namespace with the
// pool "big" of uiPoolSize Nodes, whose annotation is hostile, and Pods
// inside: 20 placed (placed-N), and too-big, which fits nowhere, each with
// a hostile annotation; it returns the namespace and placed-0 once both
// Pods' scheduling results are stored.
func webViewFixture(t testing.TB) (string, *corev1.Pod) {
	t.Helper()
	ns := newNamespace(t, "webview-")
	if _, err := kubectl(t, "apply", "-n", ns, "-f", "artifacts/examples/simulator.yaml"); err != nil {
		t.Fatal(err)
	}
	np := &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: uiPool},
		Spec: v1alpha1.NodePoolSpec{
			SimulatorName: "example",
			Replicas:      ptr.To[int32](uiPoolSize),
			Template: v1alpha1.NodeTemplate{
				Metadata: v1alpha1.NodeTemplateMetadata{
					Labels:      map[string]string{"topology.kubernetes.io/zone": "zone-{{ mod .Index 3 }}"},
					Annotations: map[string]string{"example.com/note": hostile},
				},
				Status: v1alpha1.NodeTemplateStatus{Capacity: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110"),
				}},
			},
		},
	}
	waitAvailable(t, ns, "example")
	if _, err := simClient(t).SimV1alpha1().NodePools(ns).Create(t.Context(), np, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out, err := kubectl(t, "wait", "-n", ns, "--for=condition=Ready", "nodepool/"+uiPool, "--timeout=300s"); err != nil {
		t.Fatalf("the pool of %d: %v\n%s", uiPoolSize, err, out)
	}
	t.Logf("%d Nodes Ready in %v", uiPoolSize, time.Since(start).Round(100*time.Millisecond))

	// Pods inside: some placed (the grid's colours, a chosen node) and one
	// that fits nowhere, each with markup in an annotation.
	inner := proxyClient(t, ns, "example")
	pod := func(name, cpu string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, Annotations: map[string]string{"example.com/note": hostile}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi")},
			}}}},
		}
	}
	for i := range 20 {
		createPod(t, inner, pod(fmt.Sprintf("placed-%d", i), "12"))
	}
	createPod(t, inner, pod("too-big", "1000"))
	api := framework.SimulatorPath(ns, "example", "api", "/v1/schedulingresults/default/")
	for _, name := range []string{"too-big", "placed-0"} {
		poll(t, "the scheduling result of "+name, time.Minute, func(context.Context) (bool, string) {
			out, err := kubectl(t, "get", "--raw", api+name)
			if err != nil {
				return false, err.Error()
			}
			return strings.Contains(out, `"filter-result"`), out[:min(len(out), 200)]
		})
	}
	placed, err := inner.CoreV1().Pods(metav1.NamespaceDefault).Get(t.Context(), "placed-0", metav1.GetOptions{})
	if err != nil || placed.Spec.NodeName == "" {
		t.Fatalf("placed-0: %v, node %q", err, placed.Spec.NodeName)
	}

	return ns, placed
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func jsString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

// kubectlProxy runs `kubectl proxy` with kubeconfig on a free loopback port
// until the test ends, and returns its URL.
func kubectlProxy(t testing.TB, c *framework.Cluster, kubeconfig string) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl not found on PATH: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, path, "--kubeconfig="+kubeconfig, "--cache-dir="+filepath.Join(c.Dir, "kubectl-cache"),
		"proxy", "--address=127.0.0.1", "--port=0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-lines:
		// "Starting to serve on 127.0.0.1:PORT"
		addr := strings.TrimSpace(line[strings.LastIndex(line, " ")+1:])
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Fatalf("kubectl proxy said %q", line)
		}
		return "http://" + addr
	case <-time.After(30 * time.Second):
		t.Fatal("kubectl proxy did not start in 30s")
	}
	return ""
}

// browser is one headless Chromium tab.
type browser struct {
	t       testing.TB
	ctx     context.Context
	dialogs atomic.Int32
}

func newBrowser(t testing.TB, chromium string) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	b := &browser{t: t, ctx: ctx}
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting Chromium %s: %v", chromium, err)
	}
	t.Logf("Chromium up in %v", time.Since(start).Round(time.Millisecond))
	// A dialog is script that ran: counted, and closed so the page goes on.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.dialogs.Add(1)
			t.Logf("a dialog opened: %q", ev.Message)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return b
}

func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("in the browser: %v", err)
	}
}

// click clicks the element css selects, again if the page made it anew
// between finding it and clicking it (live views redraw their rows).
func (b *browser) click(css string) {
	b.t.Helper()
	var err error
	for range 5 {
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(css)))
		cancel()
		if err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.t.Fatalf("clicking %s: %v", css, err)
}

// js evaluates a JavaScript expression that yields a string.
func (b *browser) js(expr string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript expression until it yields a non-empty
// string, and returns it.
func (b *browser) waitJS(what, expr string, timeout time.Duration) string {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		cancel()
		if err == nil && v != "" {
			return v
		}
		if time.Now().After(deadline) {
			problems := b.js(`document.getElementById('errors')?.textContent || ''`)
			b.t.Fatalf("waiting %v for %s: %v; the page's errors: %q", timeout, what, err, problems)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkInert checks that no markup from the cluster ran or became an
// element: no dialog, no flag set, no image or script planted, and no
// Content-Security-Policy violation (the page itself makes none).
func (b *browser) checkInert(what string) {
	b.t.Helper()
	if n := b.dialogs.Load(); n > 0 {
		b.t.Errorf("%s: %d dialogs opened", what, n)
	}
	if v := b.js(`String(window.__pwned)`); v != "undefined" {
		b.t.Errorf("%s: window.__pwned = %s", what, v)
	}
	// The page's own images are a scenario's plots (img.plot), from the
	// report's URL.
	if v := b.js(`String(document.querySelectorAll('img:not(.plot), img.plot:not([src^="../../../scenarios/"]), body script, iframe, object').length)`); v != "0" {
		b.t.Errorf("%s: %s planted elements", what, v)
	}
	if v := b.js(`String(window.simUI.cspViolations)`); v != "0" {
		b.t.Errorf("%s: %s Content-Security-Policy violations", what, v)
	}
}

type shooter struct {
	t   testing.TB
	dir string
}

// screenshots saves PNGs of the page in _output/ui.
func screenshots(t testing.TB) *shooter {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "_output", "ui")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &shooter{t: t, dir: dir}
}

func (s *shooter) take(b *browser, name string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		s.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(s.dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		s.t.Error(err)
		return
	}
	s.t.Logf("screenshot %s", path)
}

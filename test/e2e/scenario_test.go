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
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/scenarioreport"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// TestExampleScenario runs the README's scenario example on the real node:
// three simulators (least, most, and least again for the noise floor), each
// with the example's 1,000 Nodes and its timeline of 600 Pods. It checks
// the comparison the README shows: MostAllocated uses fewer Nodes than
// LeastAllocated, and the noise floor stands beside it, in status, in
// kubectl describe and in the report. The figures it logs are README's
// outcome table. Then the web view of the variant most's simulator shows the
// scenario first in its Scenarios tab, with each variant's Nodes used as
// the report has it, the comparisons and the report's two plots.
func TestExampleScenario(t *testing.T) {
	ns := newNamespace(t, "example-scenario-")
	logPodsIfFailed(t, ns)
	start := time.Now()
	if _, err := kubectl(t, "apply", "-n", ns, "-f", "artifacts/examples/scenario-binpack.yaml"); err != nil {
		t.Fatal(err)
	}
	var scn *v1alpha1.Scenario
	poll(t, "the example scenario to end", 12*time.Minute, func(ctx context.Context) (bool, string) {
		got, err := simClient(t).SimV1alpha1().Scenarios(ns).Get(ctx, "binpack", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		scn = got
		var conds []string
		for _, c := range got.Status.Conditions {
			conds = append(conds, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
		}
		done := got.Status.Phase == v1alpha1.ScenarioSucceeded || got.Status.Phase == v1alpha1.ScenarioFailed
		return done, fmt.Sprintf("phase %s, progress %d%%, %s", got.Status.Phase, got.Status.Progress, strings.Join(conds, "; "))
	})
	if scn.Status.Phase != v1alpha1.ScenarioSucceeded {
		out, _ := kubectl(t, "describe", "-n", ns, "scenario", "binpack")
		t.Fatalf("the example scenario ended %s:\n%s", scn.Status.Phase, out)
	}
	t.Logf("applied → Succeeded in %v", time.Since(start).Round(time.Second))

	variants := map[string]v1alpha1.ScenarioVariantStatus{}
	for _, v := range scn.Status.Variants {
		variants[v.Name] = v
		t.Logf("variant %-12s nodes used %4d, scheduled %4d, unschedulable %d, attempts %d, bind p50/p99 %d/%d ms, cpu mean/p90 %d/%d%%, memory mean/p90 %d/%d%%, lag max %d ms (%d late); message %q",
			v.Name, v.NodesUsed, v.PodsScheduled, v.PodsUnschedulable, v.SchedulingAttempts,
			v.BindLatency.P50Milliseconds, v.BindLatency.P99Milliseconds, v.CPU.MeanPercent, v.CPU.P90Percent,
			v.Memory.MeanPercent, v.Memory.P90Percent, v.Lag.MaxMilliseconds, v.Lag.Late, v.Message)
	}
	least, most := variants["least"], variants["most"]
	if _, ok := variants["least"+"-again"]; !ok {
		t.Errorf("no noise floor run among the variants %v", scn.Status.Variants)
	}
	for _, v := range []v1alpha1.ScenarioVariantStatus{least, most} {
		// The example's 600 Pods fit with room to spare in either way.
		if v.PodsScheduled < 600 || v.PodsUnschedulable != 0 || v.NodesUsed == 0 {
			t.Errorf("variant %s: %d scheduled, %d unschedulable on %d Nodes; want all 600 placed (%s)", v.Name, v.PodsScheduled, v.PodsUnschedulable, v.NodesUsed, v.Message)
		}
	}
	if most.NodesUsed >= least.NodesUsed {
		t.Errorf("MostAllocated used %d Nodes, LeastAllocated %d: want fewer", most.NodesUsed, least.NodesUsed)
	}

	var vsLeast, noise *v1alpha1.ScenarioComparison
	for i, c := range scn.Status.Comparisons {
		t.Logf("comparison %s vs %s (noise floor %v): placed differently %d, only in variant %d, only in baseline %d, nodes used %+d",
			c.Variant, c.Baseline, c.NoiseFloor, c.PlacedDifferently, c.ScheduledOnlyInVariant, c.ScheduledOnlyInBaseline, c.NodesUsedDelta)
		switch {
		case c.NoiseFloor && c.Baseline == "least":
			noise = &scn.Status.Comparisons[i]
		case c.Variant == "most" && c.Baseline == "least":
			vsLeast = &scn.Status.Comparisons[i]
		}
	}
	if vsLeast == nil || noise == nil {
		t.Fatalf("want the comparisons most vs least and the noise floor of least, got %+v", scn.Status.Comparisons)
	}
	if vsLeast.NodesUsedDelta != most.NodesUsed-least.NodesUsed || vsLeast.NodesUsedDelta >= 0 {
		t.Errorf("most vs least: nodes used %+d, want %d-%d < 0", vsLeast.NodesUsedDelta, most.NodesUsed, least.NodesUsed)
	}
	// Chance moves Pods between equal Nodes; it does not change how many
	// Nodes LeastAllocated spreads over as much as MostAllocated does.
	if abs(noise.NodesUsedDelta) >= abs(vsLeast.NodesUsedDelta) {
		t.Errorf("the noise floor's Node difference %+d is not below the configuration's %+d", noise.NodesUsedDelta, vsLeast.NodesUsedDelta)
	}

	out, err := kubectl(t, "describe", "-n", ns, "scenario", "binpack")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Compared") || !strings.Contains(out, "Noise floor: two runs of least") {
		t.Errorf("kubectl describe shows no comparison with the noise floor:\n%s", out)
	}
	md, err := kubectl(t, "get", "--raw", fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/scenarios/binpack/report/markdown", ns))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, scenarioreport.NoiseFloorLabel) || !strings.Contains(md, "| most") {
		t.Errorf("the Markdown report lacks the noise floor or the variant most:\n%s", md)
	}
	t.Logf("report/markdown:\n%s", md)
	svg, err := kubectl(t, "get", "--raw", fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/scenarios/binpack/report/svg/%s", ns, scenarioreport.PlotAllocation))
	if err != nil || !strings.Contains(svg, "<svg") {
		t.Errorf("the allocation plot: %v\n%.300s", err, svg)
	}

	scenarioWebView(t, ns, most.SimulatorName)

	// Free the node for the tests after this one.
	if out, err := kubectl(t, "delete", "-n", ns, "scenario", "binpack", "--wait=true", "--timeout=2m"); err != nil {
		t.Errorf("deleting the scenario: %v\n%s", err, out)
	}
}

// scenarioWebView loads the web view of simulator (a variant's) through
// `kubectl proxy` in Chromium, opens its Scenarios tab and checks it
// against the report of binpack: the scenario first, every variant's Nodes
// used, the simulator's own variant marked, the noise floor among the
// comparisons, and both plots loaded. A screenshot of the whole page goes
// to _output/ui/scenario.png.
func scenarioWebView(t *testing.T, ns, simulator string) {
	start := time.Now()
	chromium, err := framework.InstallBrowser(t.Context())
	if err != nil {
		t.Fatalf("the browser check needs Chromium: %v", err)
	}
	raw, err := kubectl(t, "get", "--raw", fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/scenarios/binpack/report", ns))
	var report scenarioreport.Report
	if err := firstErr(err, json.Unmarshal([]byte(raw), &report)); err != nil || len(report.Variants) < 3 {
		t.Fatalf("the JSON report: %v, %d variants\n%.500s", err, len(report.Variants), raw)
	}
	proxy := kubectlProxy(t, hostCluster(t), hostCluster(t).KubeconfigPath)
	b := newBrowser(t, chromium)
	b.do(chromedp.Navigate(proxy + framework.SimulatorPath(ns, simulator, "ui", "/#scenarios")))
	b.waitJS("the scenario's variants", fmt.Sprintf(`document.querySelectorAll('#scenario-variants tbody tr[data-variant]').length === %d ? 'yes' : ''`, len(report.Variants)), 20*time.Second)
	if first := b.js(`document.querySelector('#scenarios tbody tr')?.dataset.scenario || ''`); first != "binpack" {
		t.Errorf("the first scenario listed is %q, want binpack", first)
	}
	if title := b.js(`document.getElementById('scenario-title').textContent`); title != "Scenario binpack" {
		t.Errorf("the scenario shown: %q", title)
	}
	for _, v := range report.Variants {
		got := b.js(fmt.Sprintf(`document.querySelector('#scenario-variants tr[data-variant=%q] td[data-field="nodesUsed"]')?.textContent || ''`, v.Name))
		if got != fmt.Sprint(v.NodesUsed) {
			t.Errorf("variant %s: the view shows %q Nodes used, the report %d", v.Name, got, v.NodesUsed)
		}
	}
	if mine := b.js(`[...document.querySelectorAll('#scenario-variants tr.this')].map((r) => r.cells[1].textContent).join(',')`); mine != simulator {
		t.Errorf("the rows marked as this simulator's: %q, want %s", mine, simulator)
	}
	if comps := b.js(`document.getElementById('scenario-comparisons').textContent`); !strings.Contains(comps, "noise floor") || !strings.Contains(comps, "most") {
		t.Errorf("the comparisons lack most or the noise floor: %q", comps)
	}
	plots := b.waitJS("the report's plots", `(() => { const i = [...document.querySelectorAll('img.plot')]; return i.length === 2 && i.every((x) => x.complete) ? i.map((x) => x.id + '=' + x.naturalWidth).join(' ') : ''; })()`, 20*time.Second)
	for _, p := range scenarioreport.Plots() {
		if !strings.Contains(plots, "plot-"+p+"=") || strings.Contains(plots, "plot-"+p+"=0") {
			t.Errorf("the plot %s did not load: %s", p, plots)
		}
	}
	screenshots(t).take(b, "scenario")
	b.checkInert("the scenario view")
	t.Logf("web view of %s: the scenario's variants, comparisons and plots (%s) checked in %v", simulator, plots, time.Since(start).Round(100*time.Millisecond))
}

func abs(n int32) int32 {
	if n < 0 {
		return -n
	}
	return n
}

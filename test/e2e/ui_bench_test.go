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
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkWebView: the web view in Chromium through `kubectl proxy`, over
// a simulator of 5,000 Nodes. Each round loads the page afresh and reads
// its own marks: nodes-draw (the Nodes' list arrived → the grid drawn),
// nodes-list (the list's fetch, through the host and its aggregator),
// result-open (a pending Pod's full result asked for → its table drawn,
// the fetch included) and result-render (the drawing alone). The figures
// are the rounds' medians.
func BenchmarkWebView(b *testing.B) {
	c := hostCluster(b)
	chromium, err := framework.InstallBrowser(b.Context())
	if err != nil {
		b.Fatalf("the web view's benchmark needs Chromium: %v", err)
	}
	waitNodeAtRest(b, c)
	ns, _ := webViewFixture(b)
	ui := kubectlProxy(b, c, c.KubeconfigPath) + framework.SimulatorPath(ns, "example", "ui", "/")
	br := newBrowser(b, chromium)
	figures := map[string][]float64{}
	mark := func(name string) float64 {
		v, err := strconv.ParseFloat(br.js(fmt.Sprintf(`String(performance.getEntriesByName(%q).at(-1).duration)`, name)), 64)
		if err != nil {
			b.Fatal(err)
		}
		return v
	}
	round := 0
	for b.Loop() {
		round++
		br.do(chromedp.Navigate(fmt.Sprintf("%s?round=%d", ui, round)))
		br.waitJS("the grid's first drawing", `document.getElementById('grid').dataset.firstDrawn || ''`, 2*time.Minute)
		figures["nodes-draw-ms"] = append(figures["nodes-draw-ms"], mark("nodes-draw"))
		figures["nodes-list-ms"] = append(figures["nodes-list-ms"], mark("nodes-list"))
		br.js(`location.hash = '#pod/default/too-big'; ''`)
		br.waitJS("the pending Pod's result", `document.getElementById('result-table').dataset.rendered || ''`, time.Minute)
		figures["result-open-ms"] = append(figures["result-open-ms"], mark("result-open"))
		figures["result-render-ms"] = append(figures["result-render-ms"], mark("result-render"))
		b.Logf("round %d: nodes-list %.0f ms, nodes-draw %.1f ms, result-open %.1f ms, result-render %.1f ms", round,
			figures["nodes-list-ms"][round-1], figures["nodes-draw-ms"][round-1], figures["result-open-ms"][round-1], figures["result-render-ms"][round-1])
	}
	for unit, values := range figures {
		slices.Sort(values)
		b.ReportMetric(values[len(values)/2], unit)
	}
}

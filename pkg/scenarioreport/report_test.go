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

package scenarioreport

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// scenario is a finished run of least and most, with least run twice;
// most placed 412 Pods differently from least, least-again noise.
func scenario(noise int64) *v1alpha1.Scenario {
	start := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	end := metav1.NewTime(start.Add(90 * time.Second))
	return &v1alpha1.Scenario{
		ObjectMeta: metav1.ObjectMeta{Name: "binpack", Namespace: "team-a"},
		Status: v1alpha1.ScenarioStatus{
			Phase: v1alpha1.ScenarioSucceeded, Progress: 100, StartTime: &start, CompletionTime: &end,
			Variants: []v1alpha1.ScenarioVariantStatus{
				{Name: "least", SimulatorName: "binpack-least", PodsScheduled: 1000, PodsUnschedulable: 3, PodsPreempted: 2, SchedulingAttempts: 1010,
					BindLatency: v1alpha1.LatencySummary{P50Milliseconds: 12, P99Milliseconds: 1500}, NodesUsed: 640,
					CPU: v1alpha1.AllocationSummary{MeanPercent: 41, P90Percent: 55}, Memory: v1alpha1.AllocationSummary{MeanPercent: 30, P90Percent: 44},
					Lag:        v1alpha1.LagSummary{Late: 4, MaxMilliseconds: 180},
					Rejections: map[string]int64{"NodeResourcesFit": 900, "TaintToleration": 50, "NodeAffinity": 50, "VolumeBinding": 1}},
				{Name: "most", SimulatorName: "binpack-most", PodsScheduled: 1000, NodesUsed: 410},
				{Name: "least-again", SimulatorName: "binpack-least-again", PodsScheduled: 1000, NodesUsed: 641},
			},
			Comparisons: []v1alpha1.ScenarioComparison{
				{Variant: "most", Baseline: "least", PlacedDifferently: 412, ScheduledOnlyInVariant: 5, NodesUsedDelta: -230},
				{Variant: "least-again", Baseline: "least", NoiseFloor: true, PlacedDifferently: noise, NodesUsedDelta: 1},
			},
		},
	}
}

func samples() map[string][]contract.ScenarioSample {
	return map[string][]contract.ScenarioSample{
		"least": {
			{ElapsedMilliseconds: 60_000, PodsPending: 3, CPUPercent: 100, MemoryPercent: 80},
			{ElapsedMilliseconds: 0, PodsPending: 40, CPUPercent: 0, MemoryPercent: 0},
			{ElapsedMilliseconds: 30_000, PodsPending: 12, CPUPercent: 50, MemoryPercent: 40},
		},
		"most":        {{ElapsedMilliseconds: 0, PodsPending: 40}, {ElapsedMilliseconds: 45_000, PodsPending: 7, CPUPercent: 90, MemoryPercent: 70}},
		"least-again": {{ElapsedMilliseconds: 0, PodsPending: 38}, {ElapsedMilliseconds: 60_000, CPUPercent: 99, MemoryPercent: 79}},
		"unknown":     {{ElapsedMilliseconds: 0}},
	}
}

func TestBuild(t *testing.T) {
	in := samples()
	r := Build(scenario(37), in)
	in["least"][0].CPUPercent = 1 // the report has its own copy

	if r.Duration == nil || r.Duration.Duration != 90*time.Second {
		t.Errorf("Duration = %v, want 1m30s", r.Duration)
	}
	var names, secondRuns []string
	for _, v := range r.Variants {
		names = append(names, v.Name)
		secondRuns = append(secondRuns, v.SecondRunOf)
	}
	if diff := cmp.Diff([]string{"least", "most", "least-again"}, names); diff != "" {
		t.Errorf("variants (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "", "least"}, secondRuns); diff != "" {
		t.Errorf("SecondRunOf (-want +got):\n%s", diff)
	}
	want := []contract.ScenarioSample{
		{ElapsedMilliseconds: 0, PodsPending: 40},
		{ElapsedMilliseconds: 30_000, PodsPending: 12, CPUPercent: 50, MemoryPercent: 40},
		{ElapsedMilliseconds: 60_000, PodsPending: 3, CPUPercent: 100, MemoryPercent: 80},
	}
	if diff := cmp.Diff(want, r.Variants[0].Samples); diff != "" {
		t.Errorf("least's samples, sorted and copied (-want +got):\n%s", diff)
	}

	// JSON: the status figures inline beside the samples.
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"podsScheduled":1000`, `"simulatorName":"binpack-least"`, `"samples":[{"elapsedMilliseconds":0`, `"noiseFloor":true`, `"duration":"1m30s"`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("JSON lacks %s:\n%s", s, data)
		}
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, &back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

func TestMarkdown(t *testing.T) {
	md := string(Build(scenario(37), nil).Markdown())
	for _, want := range []string{
		"# Scenario team-a/binpack\n",
		"Phase: Succeeded, started 2026-01-02T03:04:05Z, completed 2026-01-02T03:05:35Z, took 1m30s.",
		"| least | binpack-least | 1000 | 3 | 2 | 1010 | 12 ms | 1.5 s | 640 | 41 % | 55 % | 30 % | 44 % | 4 | 180 ms |\n",
		"| most | binpack-most | 1000 | 0 | 0 | 0 | 0 ms | 0 ms | 410 |",
		"| least-again (second run of least) | binpack-least-again |",
		"| most | least | 412 | 5 | 0 | -230 |\n",
		"| " + NoiseFloorLabel + " | least | 37 | 0 | 0 | +1 |\n",
		"most placed 412 Pods differently from least; two runs of least differ by 37: the configuration explains most of the difference.",
		"- least: NodeResourcesFit (900 Nodes), NodeAffinity (50 Nodes), TaintToleration (50 Nodes)\n",
		"- most: none\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "VolumeBinding") {
		t.Errorf("Markdown names a fourth rejecting plugin:\n%s", md)
	}
}

func TestMarkdownVerdict(t *testing.T) {
	for _, tc := range []struct {
		name  string
		noise int64 // -1: no noise floor
		want  string
	}{
		{"well above", 37, "two runs of least differ by 37: the configuration explains most of the difference."},
		{"above, but not twice", 300, "two runs of least differ by 300: the difference exceeds the noise floor, but chance explains much of it."},
		{"equal", 412, "two runs of least differ by 412: the difference is within the noise floor, and may be chance."},
		{"within", 500, "two runs of least differ by 500: the difference is within the noise floor, and may be chance."},
		{"no noise floor", -1, "most placed 412 Pods differently from least; no noise floor was run, so chance cannot be told from the configuration."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scn := scenario(tc.noise)
			if tc.noise < 0 {
				scn.Status.Comparisons = scn.Status.Comparisons[:1]
			}
			if md := string(Build(scn, nil).Markdown()); !strings.Contains(md, tc.want) {
				t.Errorf("Markdown lacks %q:\n%s", tc.want, md)
			}
		})
	}
}

// element is an SVG element, as parsed.
type element struct {
	name  string
	attrs map[string]string
	text  string
}

// parseSVG decodes the whole document, failing the test if it is not XML.
func parseSVG(t *testing.T, doc []byte) []element {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var out []element
	open := false // CharData belongs to the last element until it ends
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
			open = true
		case xml.EndElement:
			open = false
		case xml.CharData:
			if open {
				out[len(out)-1].text += string(tok)
			}
		}
	}
	if len(out) == 0 || out[0].name != "svg" || out[0].attrs["viewBox"] != "0 0 720 360" || out[0].attrs["width"] != "720" || out[0].attrs["height"] != "360" {
		t.Fatalf("not a 720x360 svg with a viewBox:\n%s", doc)
	}
	return out
}

func float(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSVG(t *testing.T) {
	r := Build(scenario(37), samples())
	for _, tc := range []struct {
		plot   string
		dashed int // lines per variant that are dashed
		lines  int // lines per variant
		legend []string
	}{
		{PlotAllocation, 1, 2, []string{"least", "most", "least-again", "CPU", "memory"}},
		{PlotPending, 0, 1, []string{"least", "most", "least-again"}},
	} {
		t.Run(tc.plot, func(t *testing.T) {
			doc, err := r.SVG(tc.plot)
			if err != nil {
				t.Fatal(err)
			}
			els := parseSVG(t, doc)
			byColour := map[string]int{}
			dashed := 0
			var texts []string
			for _, e := range els {
				for _, a := range []string{"x", "x1", "x2"} {
					if v, ok := e.attrs[a]; ok && (float(t, v) < 0 || float(t, v) > svgWidth) {
						t.Errorf("<%s %s=%s> outside the viewBox", e.name, a, v)
					}
				}
				for _, a := range []string{"y", "y1", "y2"} {
					if v, ok := e.attrs[a]; ok && (float(t, v) < 0 || float(t, v) > svgHeight) {
						t.Errorf("<%s %s=%s> outside the viewBox", e.name, a, v)
					}
				}
				if e.name == "text" {
					texts = append(texts, e.text)
				}
				if e.name != "polyline" {
					continue
				}
				byColour[e.attrs["stroke"]]++
				if e.attrs["stroke-dasharray"] != "" {
					dashed++
				}
				prevX := -1.0
				for _, p := range strings.Fields(e.attrs["points"]) {
					xs, ys, _ := strings.Cut(p, ",")
					x, y := float(t, xs), float(t, ys)
					if x <= prevX || x < plotLeft || x > plotRight || y < plotTop || y > plotBottom {
						t.Errorf("point %s: x not increasing or outside the plot area", p)
					}
					prevX = x
				}
			}
			if diff := cmp.Diff(map[string]int{palette[0]: tc.lines, palette[1]: tc.lines, palette[2]: tc.lines}, byColour); diff != "" {
				t.Errorf("polylines by colour (-want +got):\n%s", diff)
			}
			if dashed != 3*tc.dashed {
				t.Errorf("%d dashed polylines, want %d", dashed, 3*tc.dashed)
			}
			for _, want := range tc.legend {
				if !containsString(texts, want) {
					t.Errorf("no text %q in %q", want, texts)
				}
			}
		})
	}
}

func containsString(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func TestSVGScale(t *testing.T) {
	r := &Report{Name: "s", Namespace: "n", Variants: []Variant{{
		ScenarioVariantStatus: v1alpha1.ScenarioVariantStatus{Name: "v"},
		Samples:               []contract.ScenarioSample{{ElapsedMilliseconds: 0, CPUPercent: 0}, {ElapsedMilliseconds: 10_000, CPUPercent: 100}},
	}}}
	doc, err := r.SVG(PlotAllocation)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range parseSVG(t, doc) {
		if e.name == "polyline" && e.attrs["stroke-dasharray"] == "" {
			want := coord(plotLeft) + "," + coord(plotBottom) + " " + coord(plotRight) + "," + coord(plotTop)
			if got := e.attrs["points"]; got != want {
				t.Errorf("CPU line %q, want 0 %% at the bottom left and 100 %% at the top right: %q", got, want)
			}
			return
		}
	}
	t.Fatalf("no CPU line:\n%s", doc)
}

func TestSVGEscapes(t *testing.T) {
	evil := `a<script>alert("x")</script>&b`
	r := &Report{Name: evil, Namespace: "n", Variants: []Variant{{
		ScenarioVariantStatus: v1alpha1.ScenarioVariantStatus{Name: "<b>v</b>"},
		Samples:               []contract.ScenarioSample{{ElapsedMilliseconds: 0}, {ElapsedMilliseconds: 1000, PodsPending: 2}},
	}}}
	for _, plot := range Plots() {
		doc, err := r.SVG(plot)
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, e := range parseSVG(t, doc) {
			if e.name == "script" || e.name == "b" {
				t.Errorf("%s: markup injected: <%s>\n%s", plot, e.name, doc)
			}
			texts = append(texts, e.text)
		}
		if !containsString(texts, "<b>v</b>") || !strings.Contains(strings.Join(texts, "\n"), evil) {
			t.Errorf("%s: names not shown as text: %q", plot, texts)
		}
	}
}

func TestSVGNoSamples(t *testing.T) {
	r := Build(scenario(37), nil)
	for _, plot := range Plots() {
		doc, err := r.SVG(plot)
		if err != nil {
			t.Fatal(err)
		}
		els := parseSVG(t, doc)
		var texts []string
		for _, e := range els {
			if e.name == "polyline" {
				t.Errorf("%s: a line without samples", plot)
			}
			texts = append(texts, e.text)
		}
		if !containsString(texts, "no samples yet") {
			t.Errorf("%s: texts %q lack %q", plot, texts, "no samples yet")
		}
	}
}

func TestSVGUnknownPlot(t *testing.T) {
	_, err := Build(scenario(37), nil).SVG("latency")
	if err == nil || !strings.Contains(err.Error(), `"latency"`) || !strings.Contains(err.Error(), "allocation, pending") {
		t.Errorf("SVG(latency) = %v, want an error naming the plots", err)
	}
}

func TestSVGMinutes(t *testing.T) {
	r := &Report{Name: "s", Namespace: "n", Variants: []Variant{{
		ScenarioVariantStatus: v1alpha1.ScenarioVariantStatus{Name: "v"},
		Samples:               []contract.ScenarioSample{{ElapsedMilliseconds: 0}, {ElapsedMilliseconds: 10 * 60_000, PodsPending: 7}},
	}}}
	doc, err := r.SVG(PlotPending)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range parseSVG(t, doc) {
		texts = append(texts, e.text)
	}
	for _, want := range []string{"time (min)", "10", "8"} {
		if !containsString(texts, want) {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
}

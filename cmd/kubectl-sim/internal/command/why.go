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

package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/liggitt/tabwriter"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/printers"

	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

type whyOptions struct {
	*Options
	simulator    string
	podNamespace string
	output       string
}

func newWhyCommand(root *Options) *cobra.Command {
	o := &whyOptions{Options: root}
	cmd := &cobra.Command{
		Use:   "why POD --simulator NAME",
		Short: "Explain where the scheduler put a Pod of a simulator, or why nowhere",
		Long: `Show the latest scheduling result of Pod POD inside simulator NAME, from the
simulator's api subresource (needs get simulators/api): the nodes evaluated and
feasible, the nodes each filter plugin rejected and why, the best final scores,
the node chosen, and the Pods preemption evicts. -o wide adds each score plugin's
final score of those nodes; -o json prints the full result, every node × plugin.

-n is the simulator's namespace in the host, as for every kubectl sim command;
the Pod's namespace inside the simulator is --pod-namespace, or POD as NAMESPACE/NAME.`,
		Example: `  kubectl sim why web-1 --simulator example
  kubectl sim why shop/web-1 --simulator example -o json | jq '.["filter-result"]'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd, args[0]) },
	}
	cmd.Flags().StringVar(&o.simulator, "simulator", "", "Name of the simulator the Pod is in (required)")
	cmd.Flags().StringVar(&o.podNamespace, "pod-namespace", "default", "Namespace of the Pod inside the simulator")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: empty for a table, wide, or json")
	_ = cmd.MarkFlagRequired("simulator")
	return cmd
}

func (o *whyOptions) run(cmd *cobra.Command, pod string) error {
	switch o.output {
	case "", "wide", "json":
	default:
		return fmt.Errorf("--output %q: want wide or json, or nothing for a table", o.output)
	}
	podNamespace := o.podNamespace
	if ns, name, ok := strings.Cut(pod, "/"); ok {
		podNamespace, pod = ns, name
	}
	c, ns, err := o.client()
	if err != nil {
		return err
	}
	data, err := c.call(cmd.Context(), http.MethodGet,
		simulatorPath(ns, o.simulator, "api", "/v1/schedulingresults/"+podNamespace+"/"+pod), nil, nil)
	if err != nil {
		return err
	}
	if o.output == "json" {
		var b bytes.Buffer
		if err := json.Indent(&b, data, "", "    "); err != nil {
			return fmt.Errorf("the scheduling result of %s/%s: %w", podNamespace, pod, err)
		}
		b.WriteByte('\n')
		_, err := b.WriteTo(o.Out)
		return err
	}
	var doc Result
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("the scheduling result of %s/%s: %w", podNamespace, pod, err)
	}
	return PrintResult(o.Out, &doc, o.output == "wide")
}

// Result is what why reads of the simulator's full result of a Pod's
// latest attempt (docs/scheduling-results.md): the compact summary, and
// the final scores of every node scored, by plugin.
type Result struct {
	Name      string  `json:"name"`
	Namespace string  `json:"namespace"`
	Summary   Summary `json:"summary"`
	// FinalScores: {node: {plugin: "score"}}, kube-scheduler-simulator's
	// finalscore-result.
	FinalScores map[string]map[string]string `json:"finalscore-result"`
}

// Summary is the compact result, sim.x-k8s.io/scheduling-result, in the
// format sim-scheduler writes it.
type (
	Summary       = schedulingresult.Summary
	FilterFailure = schedulingresult.FilterFailure
	NodeScore     = schedulingresult.NodeScore
)

// PrintResult writes r as why's tables: the attempt, the filter failures
// by plugin and reason, the best final scores (with wide, each plugin's
// share of them), and the preemption victims.
func PrintResult(out io.Writer, r *Result, wide bool) error {
	s := &r.Summary
	t := newTable(out)
	t.row("POD:", r.Namespace+"/"+r.Name)
	t.row("OUTCOME:", s.Outcome)
	if s.Profile != "" {
		t.row("PROFILE:", s.Profile)
	}
	if s.Message != "" {
		t.row("MESSAGE:", s.Message)
	}
	t.row("NODES:", nodeCounts(s))
	t.row("SELECTED NODE:", orNone(s.SelectedNode))
	if s.NominatedNode != "" {
		t.row("NOMINATED NODE:", s.NominatedNode+" (preemption)")
	}
	if !s.Time.IsZero() {
		t.row("ATTEMPT:", s.Time.UTC().Format(time.RFC3339)+", took "+s.Duration)
	}
	if err := t.flush(); err != nil {
		return err
	}

	if len(s.FilterFailures) > 0 {
		fmt.Fprintln(out)
		t := newTable(out)
		t.row("FILTER PLUGIN", "REASON", "NODES")
		for _, f := range s.FilterFailures {
			t.row(f.Plugin, f.Reason, strconv.Itoa(f.Nodes))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}

	if len(s.TopScores) > 0 {
		fmt.Fprintln(out)
		var plugins []string
		if wide {
			for _, ns := range s.TopScores {
				for p := range r.FinalScores[ns.Node] {
					if !slices.Contains(plugins, p) {
						plugins = append(plugins, p)
					}
				}
			}
			slices.Sort(plugins)
		}
		t := newTable(out)
		header := []string{"NODE", "FINAL SCORE"}
		for _, p := range plugins {
			header = append(header, strings.ToUpper(p))
		}
		t.row(header...)
		for _, ns := range s.TopScores {
			cells := []string{ns.Node, strconv.FormatInt(ns.Score, 10)}
			for _, p := range plugins {
				v, ok := r.FinalScores[ns.Node][p]
				if !ok {
					v = "-"
				}
				cells = append(cells, v)
			}
			if ns.Node == s.SelectedNode {
				cells = append(cells, "<- selected")
			}
			t.row(cells...)
		}
		if err := t.flush(); err != nil {
			return err
		}
	}

	if len(s.Victims) > 0 {
		fmt.Fprintln(out)
		t := newTable(out)
		t.row("PREEMPTION VICTIM", "ON NODE")
		for _, v := range s.Victims {
			t.row(v, s.NominatedNode)
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	return nil
}

// table is one of why's tables, its columns as wide as its own cells.
type table struct{ w *tabwriter.Writer }

func newTable(out io.Writer) table { return table{printers.GetNewTabWriter(out)} }

// row writes a row. Every cell comes from the cluster: no terminal
// escapes or other control characters, and no newline or tab to break the
// table.
func (t table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = safe(c)
	}
	fmt.Fprintln(t.w, strings.Join(cells, "\t"))
}

func (t table) flush() error { return t.w.Flush() }

// nodeCounts says how many nodes there were, evaluated (when the scheduler
// stopped early: it counts them only for a Pod it placed), feasible and
// filtered out.
func nodeCounts(s *Summary) string {
	filtered := 0
	for _, f := range s.FilterFailures {
		filtered += f.Nodes
	}
	// The summary keeps the 20 largest groups of failures: past them, the
	// evaluated nodes that were not feasible.
	filtered = max(filtered, s.Evaluated-s.Feasible)
	if s.Evaluated > 0 && s.Evaluated < s.Nodes {
		return fmt.Sprintf("%d (%d evaluated, %d feasible, %d filtered out)", s.Nodes, s.Evaluated, s.Feasible, filtered)
	}
	return fmt.Sprintf("%d (%d feasible, %d filtered out)", s.Nodes, s.Feasible, filtered)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// safe is s for a terminal, on one line: a plugin's reason or the
// scheduler's message may hold newlines (a space each), a tab would shift
// the columns (a space), an escape sequence (ESC shown as ^[, as kubectl
// shows it) or another control character ('?') would drive the terminal.
func safe(s string) string {
	s = printers.EscapeTerminal(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s))
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

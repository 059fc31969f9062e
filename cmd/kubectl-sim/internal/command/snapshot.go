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
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/printers"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// apiPath is the path under simulators/NAME/api of a path of the simulator
// server (its API is under /api, and so is the subresource's).
func apiPath(serverPath string) string { return strings.TrimPrefix(serverPath, "/api") }

func newExportCommand(root *Options) *cobra.Command {
	return &cobra.Command{
		Use:   "export NAME",
		Short: "Write a simulator's objects and scheduler configuration to standard output",
		Long: `Write what simulator NAME holds (its Nodes, Pods and every kind the scheduler reads,
and its scheduler configuration), as kube-scheduler-simulator exports it, to standard
output (needs get simulators/api). kubectl sim import reads it into another simulator.`,
		Example: `  kubectl sim export example > example.json`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ns, err := root.client()
			if err != nil {
				return err
			}
			resp, err := c.do(cmd.Context(), http.MethodGet, simulatorPath(ns, args[0], "api", apiPath(contract.PathExport)), nil, nil)
			if err != nil {
				return err
			}
			defer resp.Body.Close() //nolint:errcheck // read to its end
			// Streamed: a large simulator's document is hundreds of MiB. A
			// failure after its start cuts the connection, which is an
			// error here, never a truncated document taken for a whole one.
			if _, err := io.Copy(root.Out, resp.Body); err != nil {
				return fmt.Errorf("exporting simulator %s/%s: %w", ns, args[0], err)
			}
			return nil
		},
	}
}

type importOptions struct {
	*Options
	filename string
	resume   bool
	wait     bool
	timeout  time.Duration
	output   string
	// poll is how often the import's status is read while waiting.
	poll time.Duration
}

func newImportCommand(root *Options) *cobra.Command {
	o := &importOptions{Options: root, poll: 500 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "import NAME -f FILE",
		Short: "Import an export into a simulator",
		Long: `Import a document of kubectl sim export (or of kube-scheduler-simulator) into
simulator NAME (needs create simulators/api; up to 256 MiB). The simulator imports in
the background; kubectl sim import waits until it is done (--wait=false does not) and
shows what became of each resource's objects. Objects that exist are left as they are,
so importing again, or --resume (the document the simulator stored, e.g. after its
container restarted mid-import), creates only what is missing.`,
		Example: `  kubectl sim import other -f example.json
  kubectl sim import other --resume`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), args[0]) },
	}
	cmd.Flags().StringVarP(&o.filename, "filename", "f", "", "The document to import; - for standard input")
	cmd.Flags().BoolVar(&o.resume, "resume", false, "Import again the document the simulator stored, without -f")
	cmd.Flags().BoolVar(&o.wait, "wait", true, "Wait until the import is done")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Minute, "How long to wait (with --wait)")
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: empty for a table, or json (the import's status)")
	return cmd
}

func (o *importOptions) run(ctx context.Context, name string) error {
	if o.resume == (o.filename != "") {
		return fmt.Errorf("import needs either -f FILE or --resume")
	}
	if o.output != "" && o.output != "json" {
		return fmt.Errorf("--output %q: want json, or nothing for a table", o.output)
	}
	c, ns, err := o.client()
	if err != nil {
		return err
	}
	path := simulatorPath(ns, name, "api", apiPath(contract.PathImport))
	query := url.Values{}
	var body io.Reader
	if o.resume {
		query.Set(contract.ImportResumeParam, "true")
	} else if o.filename == "-" {
		body = o.In
	} else {
		f, err := os.Open(o.filename)
		if err != nil {
			return err
		}
		defer f.Close() //nolint:errcheck // read only
		body = f
	}
	data, err := c.call(ctx, http.MethodPost, path, query, body)
	if err != nil {
		return err
	}
	var status contract.ImportStatus
	if err := json.Unmarshal(data, &status); err != nil {
		return fmt.Errorf("the import's status: %w", err)
	}
	if o.wait {
		ctx, cancel := context.WithTimeout(ctx, o.timeout)
		defer cancel()
		for status.Phase == contract.ImportImporting {
			select {
			case <-ctx.Done():
				return fmt.Errorf("simulator %s/%s still imports after %v; kubectl get --raw %s tells how it stands", ns, name, o.timeout, path)
			case <-time.After(o.poll):
			}
			if data, err = c.call(ctx, http.MethodGet, path, nil, nil); err != nil {
				return err
			}
			if err := json.Unmarshal(data, &status); err != nil {
				return fmt.Errorf("the import's status: %w", err)
			}
		}
	}
	if o.output == "json" {
		_, err := o.Out.Write(append(data, '\n'))
		return err
	}
	if err := PrintImportStatus(o.Out, &status); err != nil {
		return err
	}
	if status.Phase == contract.ImportFailed {
		return fmt.Errorf("the import into simulator %s/%s failed: %s", ns, name, status.LastError)
	}
	return nil
}

// PrintImportStatus writes how an import stands: its phase, how long it
// took, and a row per resource.
func PrintImportStatus(out io.Writer, s *contract.ImportStatus) error {
	phase := s.Phase
	if s.StartTime != nil && s.CompletionTime != nil {
		phase += fmt.Sprintf(" in %v", s.CompletionTime.Sub(*s.StartTime).Round(time.Millisecond))
	}
	fmt.Fprintf(out, "Import %s\n", phase)
	if s.LastError != "" {
		fmt.Fprintf(out, "Last error: %s\n", printers.EscapeTerminal(s.LastError))
	}
	if len(s.Resources) == 0 {
		return nil
	}
	w := printers.GetNewTabWriter(out)
	fmt.Fprintln(w, "RESOURCE\tTOTAL\tCREATED\tEXISTING\tSKIPPED\tFAILED")
	for _, r := range slices.Sorted(maps.Keys(s.Resources)) {
		n := s.Resources[r]
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\n", printers.EscapeTerminal(r), n.Total, n.Created, n.Existing, n.Skipped, n.Failed)
	}
	return w.Flush()
}

type resetOptions struct {
	*Options
	output string
}

func newResetCommand(root *Options) *cobra.Command {
	o := &resetOptions{Options: root}
	cmd := &cobra.Command{
		Use:   "reset NAME",
		Short: "Empty a simulator of what users added",
		Long: `Reset simulator NAME (needs update simulators/api): delete every object users added
inside (Nodes, CRDs, webhooks and cluster RBAC included), clear the scheduling results,
and put the spec's scheduler configuration back. Shows what was deleted and kept.`,
		Example: `  kubectl sim reset example`,
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), args[0]) },
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "Output format: empty for a table, or json")
	return cmd
}

// ResetResult is the simulator server's answer to a reset.
type ResetResult struct {
	Deleted                        map[string]int `json:"deleted"`
	Kept                           map[string]int `json:"kept"`
	SchedulerConfigurationRestored bool           `json:"schedulerConfigurationRestored"`
}

func (o *resetOptions) run(ctx context.Context, name string) error {
	if o.output != "" && o.output != "json" {
		return fmt.Errorf("--output %q: want json, or nothing for a table", o.output)
	}
	c, ns, err := o.client()
	if err != nil {
		return err
	}
	data, err := c.call(ctx, http.MethodPut, simulatorPath(ns, name, "api", apiPath(contract.PathReset)), nil, strings.NewReader("{}"))
	if err != nil {
		return err
	}
	if o.output == "json" {
		_, err := o.Out.Write(append(data, '\n'))
		return err
	}
	var r ResetResult
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("the reset's result: %w", err)
	}
	fmt.Fprintf(o.Out, "Simulator %s/%s reset.\n", ns, name)
	return PrintResetResult(o.Out, &r)
}

// PrintResetResult writes a row per resource of what a reset deleted,
// how many objects it kept (those the control plane made for itself:
// -o json lists them), and whether it restored the scheduler
// configuration.
func PrintResetResult(out io.Writer, r *ResetResult) error {
	var deleted []string
	for k, n := range r.Deleted {
		if n > 0 {
			deleted = append(deleted, k)
		}
	}
	slices.Sort(deleted)
	if len(deleted) == 0 {
		fmt.Fprintln(out, "Nothing to delete.")
	} else {
		w := printers.GetNewTabWriter(out)
		fmt.Fprintln(w, "RESOURCE\tDELETED")
		for _, k := range deleted {
			fmt.Fprintf(w, "%s\t%d\n", printers.EscapeTerminal(k), r.Deleted[k])
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	kept, resources := 0, 0
	for _, n := range r.Kept {
		if n > 0 {
			kept += n
			resources++
		}
	}
	if kept > 0 {
		fmt.Fprintf(out, "Kept %d objects of %d resources that the control plane made for itself.\n", kept, resources)
	}
	if r.SchedulerConfigurationRestored {
		fmt.Fprintln(out, "The scheduler configuration set through the API was replaced by the simulator's own.")
	}
	return nil
}

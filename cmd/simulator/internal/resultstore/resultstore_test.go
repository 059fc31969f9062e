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

package resultstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// appendResult appends a result of namespace/name, rejected on node by
// plugin, to segment seq of dir, as the scheduler's store does; tail is
// written after its line (a line being written).
func appendResult(t *testing.T, dir string, seq int, namespace, name, plugin, tail string) {
	t.Helper()
	d := &schedulingresult.Document{Namespace: namespace, Name: name, UID: "u", Summary: []byte("{}"),
		Fields: []schedulingresult.Field{{Name: "filter-result", Kind: schedulingresult.KindFilter, PerNode: true}},
		Filter: schedulingresult.FilterTable{Nodes: []string{"n1"}, Verdicts: [][]schedulingresult.PluginResult{{{Plugin: plugin, Result: "no"}}}, Of: []int{0}}}
	data, err := d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, fmt.Sprintf("%016d", seq))
	log, err := os.OpenFile(base+".log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := log.Stat()
	if _, err := log.Write(data); err != nil {
		t.Fatal(err)
	}
	_ = log.Close()
	idx, err := os.OpenFile(base+".idx", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(idx, "%s/%s %d %d\n%s", namespace, name, st.Size(), len(data), tail); err != nil {
		t.Fatal(err)
	}
	_ = idx.Close()
}

func TestSince(t *testing.T) {
	dir := t.TempDir()
	appendResult(t, dir, 1, "default", "before", "A", "")
	mark, err := MarkOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	appendResult(t, dir, 1, "default", "web", "NodeResourcesFit", "")
	appendResult(t, dir, 2, "team", "db", "TaintToleration", "team/half 0")

	type seen struct{ Pod, Plugin string }
	var got []seen
	next, err := Since(dir, mark, func(e Entry) {
		d, err := Read(dir, e)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, seen{e.Namespace + "/" + e.Name, d.Filter.Verdicts[0][0].Plugin})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{{"default/web", "NodeResourcesFit"}, {"team/db", "TaintToleration"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results since the mark (-want +got):\n%s", d)
	}

	// The next call reads only what came after.
	appendResult(t, dir, 3, "team", "later", "A", "")
	var later []string
	if _, err := Since(dir, next, func(e Entry) { later = append(later, e.Name) }); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"later"}, later); d != "" {
		t.Errorf("results since the second mark (-want +got):\n%s", d)
	}

	// Emptied (a reset) and written again: all of the new segment counts.
	for seq := 1; seq <= 3; seq++ {
		for _, ext := range []string{".idx", ".log"} {
			_ = os.Remove(filepath.Join(dir, fmt.Sprintf("%016d", seq)+ext))
		}
	}
	appendResult(t, dir, 1, "default", "x", "A", "")
	n := 0
	if _, err := Since(dir, Mark{"0000000000000001": 1 << 20}, func(Entry) { n++ }); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("after a reset: %d results, want 1", n)
	}

	// No directory: nothing, and no error.
	if m, err := MarkOf(filepath.Join(dir, "none")); err != nil || len(m) != 0 {
		t.Errorf("MarkOf(missing) = %v, %v", m, err)
	}
	if _, err := Since(filepath.Join(dir, "none"), nil, func(Entry) { t.Error("a result in no directory") }); err != nil {
		t.Error(err)
	}
}

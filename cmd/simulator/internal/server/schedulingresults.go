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

package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"

	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// The simulator serves the full result of a Pod's latest scheduling
// attempt at GET contract.PathSchedulingResults/{namespace}/{name}. The
// scheduler (cmd/sim-scheduler) keeps them in Config.SchedulingResultsDir,
// compact, up to a JSON of maxResultJSON; the Pod carries only what fits in
// its annotations.
//
// maxResultJSON bounds the JSON of one result that the simulator renders,
// and so what it reads of one (a result's JSON takes more bytes than its
// encoding, scores that an extender did not give aside): about 180 times
// the 363 KB of a Pod's result at 5,000 nodes (500 of them scored).
const maxResultJSON = 64 << 20

func (s *server) getSchedulingResult(w http.ResponseWriter, r *http.Request) {
	namespace, name := r.PathValue("namespace"), r.PathValue("name")
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		writeError(w, http.StatusBadRequest, fmt.Errorf("namespace %q: %v", namespace, errs))
		return
	}
	if errs := content.IsPathSegmentName(name); len(errs) > 0 || name == "" {
		writeError(w, http.StatusBadRequest, fmt.Errorf("name %q: %v", name, errs))
		return
	}
	if s.cfg.SchedulingResultsDir == "" {
		writeError(w, http.StatusNotFound, errors.New("this simulator records no scheduling results"))
		return
	}
	f, doc, err := latestResult(s.cfg.SchedulingResultsDir, namespace, name)
	if errors.Is(err, fs.ErrNotExist) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no scheduling result for pod %s/%s", namespace, name))
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err)
		return
	}
	if doc.Size() > maxResultJSON {
		// Its JSON would be larger still: refused before it is read.
		_ = f.Close()
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the scheduling result of pod %s/%s: %w: %d bytes stored, more than %d",
			namespace, name, schedulingresult.ErrMalformed, doc.Size(), maxResultJSON))
		return
	}
	data, err := io.ReadAll(doc)
	_ = f.Close()
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("reading the scheduling result of pod %s/%s: %w", namespace, name, err))
		return
	}
	// Stored compact (see schedulingresult): rendered only when asked for.
	var result schedulingresult.Document
	if err := result.UnmarshalBinary(data); err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the scheduling result of pod %s/%s: %w", namespace, name, err))
		return
	}
	// A planted record could be small and render to gigabytes: a node's
	// filter results are stored once and rendered for every node.
	size := result.Size()
	if size > maxResultJSON {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the scheduling result of pod %s/%s: %w: %d bytes of JSON, more than %d",
			namespace, name, schedulingresult.ErrMalformed, size, maxResultJSON))
		return
	}
	out := result.AppendJSON(make([]byte, 0, size))
	if !json.Valid(out) {
		// Only a record that the scheduler did not write gets here.
		writeError(w, http.StatusInternalServerError, fmt.Errorf("the scheduling result of pod %s/%s: %w: not JSON", namespace, name, schedulingresult.ErrMalformed))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// Answers HEAD and ranges too.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(out))
}

// latestResult opens the latest result of namespace/name in dir, which the
// scheduler's store writes (cmd/sim-scheduler/internal/sink.Store):
//
//	<dir>/<seq>.log  the results' documents (schedulingresult.Document, encoded), one after another
//	<dir>/<seq>.idx  a line per document: "<namespace>/<name> <offset> <length>\n"
//
// The result is the Pod's last line in the newest segment that has one.
// Only lines that end in a newline count: the store writes a document
// before its line. It returns the segment's file, to close, and the
// document in it; fs.ErrNotExist when there is none.
func latestResult(dir, namespace, name string) (*os.File, *io.SectionReader, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var seqs []string
	for _, e := range entries {
		if seq, ok := strings.CutSuffix(e.Name(), ".idx"); ok {
			if _, err := strconv.ParseUint(seq, 10, 64); err == nil {
				seqs = append(seqs, seq)
			}
		}
	}
	// Zero-padded: the newest sorts last.
	slices.Sort(seqs)
	key := namespace + "/" + name + " "
	for _, seq := range slices.Backward(seqs) {
		index, err := os.ReadFile(filepath.Join(dir, seq+".idx"))
		if err != nil {
			// Evicted since it was listed; the older ones went before it.
			continue
		}
		offset, length, ok := lastEntry(index, key)
		if !ok {
			continue
		}
		f, err := os.Open(filepath.Join(dir, seq+".log"))
		if err != nil {
			continue
		}
		if st, err := f.Stat(); err != nil || offset+length > st.Size() {
			_ = f.Close()
			continue
		}
		return f, io.NewSectionReader(f, offset, length), nil
	}
	return nil, nil, fs.ErrNotExist
}

// lastEntry finds the last whole line of index that starts with key, and
// its offset and length.
func lastEntry(index []byte, key string) (int64, int64, bool) {
	whole := index[:bytes.LastIndexByte(index, '\n')+1]
	for len(whole) > 0 {
		// The line before the trailing newline.
		end := len(whole) - 1
		start := bytes.LastIndexByte(whole[:end], '\n') + 1
		line := string(whole[start:end])
		whole = whole[:start]
		rest, ok := strings.CutPrefix(line, key)
		if !ok {
			continue
		}
		off, n, ok := strings.Cut(rest, " ")
		if !ok {
			continue
		}
		offset, err1 := strconv.ParseInt(off, 10, 64)
		length, err2 := strconv.ParseInt(n, 10, 64)
		if err1 != nil || err2 != nil || offset < 0 || length < 0 {
			continue
		}
		return offset, length, true
	}
	return 0, 0, false
}

// clearSchedulingResults removes every result in dir, keeping dir. The
// scheduler writes a Pod's result only while the Pod exists, so what it
// publishes after a reset is of Pods made after it.
func clearSchedulingResults(dir string) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clearing the scheduling results: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("clearing the scheduling results: %w", err)
	}
	return nil
}

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

// Package resultstore reads the scheduling results that the scheduler
// stores (cmd/sim-scheduler/internal/sink.Store) in a directory:
//
//	<dir>/<seq>.log  the results' documents (schedulingresult.Document, encoded), one after another
//	<dir>/<seq>.idx  a line per document: "<namespace>/<name> <offset> <length>\n"
//
// <seq> is zero-padded, so that the newest segment sorts last. The store
// writes a document before its line, and only lines that end in a newline
// count. The server serves a Pod's latest result from here; the scenario
// runner counts the attempts of a run and reads why Pods found no Node.
package resultstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/simulator-apiserver/pkg/schedulingresult"
)

// segments returns the sequence numbers of dir's segments, oldest first.
func segments(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
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
	return seqs, nil
}

// Latest opens the latest result of namespace/name in dir: the Pod's last
// line in the newest segment that has one. It returns the segment's file,
// to close, and the document in it; fs.ErrNotExist when there is none.
func Latest(dir, namespace, name string) (*os.File, *io.SectionReader, error) {
	seqs, err := segments(dir)
	if err != nil {
		return nil, nil, err
	}
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
		if offset, length, ok := parsePlace(rest); ok {
			return offset, length, true
		}
	}
	return 0, 0, false
}

// parsePlace parses "<offset> <length>".
func parsePlace(s string) (int64, int64, bool) {
	off, n, ok := strings.Cut(s, " ")
	if !ok {
		return 0, 0, false
	}
	offset, err1 := strconv.ParseInt(off, 10, 64)
	length, err2 := strconv.ParseInt(n, 10, 64)
	if err1 != nil || err2 != nil || offset < 0 || length < 0 {
		return 0, 0, false
	}
	return offset, length, true
}

// Mark is where the store stood at a moment: the length of each segment's
// index, by sequence number.
type Mark map[string]int64

// MarkOf returns where dir stands now; an empty Mark if there is no dir.
func MarkOf(dir string) (Mark, error) {
	seqs, err := segments(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Mark{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the scheduling results: %w", err)
	}
	m := Mark{}
	for _, seq := range seqs {
		if st, err := os.Stat(filepath.Join(dir, seq+".idx")); err == nil {
			m[seq] = st.Size()
		}
	}
	return m, nil
}

// Entry is one stored result.
type Entry struct {
	// Namespace and Name of its Pod.
	Namespace, Name string
	seq             string
	offset, length  int64
}

// Since calls fn for each result stored after mark, oldest first, and
// returns the mark of what it read, for the next call. A segment shorter
// than its mark is a new one of the same number (the directory was
// emptied since): all of it is read. Segments evicted since are not there
// to read.
func Since(dir string, mark Mark, fn func(Entry)) (Mark, error) {
	seqs, err := segments(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return Mark{}, nil
	}
	if err != nil {
		return mark, fmt.Errorf("reading the scheduling results: %w", err)
	}
	next := Mark{}
	for _, seq := range seqs {
		from, rest, err := readFrom(filepath.Join(dir, seq+".idx"), mark[seq])
		if err != nil {
			continue
		}
		// The mark is at a line's end: only whole lines are read.
		rest = rest[:bytes.LastIndexByte(rest, '\n')+1]
		next[seq] = from + int64(len(rest))
		for len(rest) > 0 {
			end := bytes.IndexByte(rest, '\n')
			line := string(rest[:end])
			rest = rest[end+1:]
			key, place, ok := strings.Cut(line, " ")
			if !ok {
				continue
			}
			namespace, name, ok := strings.Cut(key, "/")
			if !ok {
				continue
			}
			offset, length, ok := parsePlace(place)
			if !ok {
				continue
			}
			fn(Entry{Namespace: namespace, Name: name, seq: seq, offset: offset, length: length})
		}
	}
	return next, nil
}

// readFrom reads path from offset on, or from its start if it is
// shorter (a new file of the same name); it returns where it read from.
// Only what is new is read: the runner reads the store every sample.
func readFrom(path string, offset int64) (int64, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	if offset > st.Size() {
		offset = 0
	}
	data := make([]byte, st.Size()-offset)
	n, err := f.ReadAt(data, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, nil, err
	}
	return offset, data[:n], nil
}

// maxDocument bounds a document Read decodes, as the server bounds one it
// renders.
const maxDocument = 64 << 20

// Read reads and decodes the document of e.
func Read(dir string, e Entry) (*schedulingresult.Document, error) {
	if e.length > maxDocument {
		return nil, fmt.Errorf("the scheduling result of pod %s/%s: %w: %d bytes", e.Namespace, e.Name, schedulingresult.ErrMalformed, e.length)
	}
	f, err := os.Open(filepath.Join(dir, e.seq+".log"))
	if err != nil {
		return nil, fmt.Errorf("reading the scheduling result of pod %s/%s: %w", e.Namespace, e.Name, err)
	}
	defer func() { _ = f.Close() }()
	data := make([]byte, e.length)
	if _, err := f.ReadAt(data, e.offset); err != nil {
		return nil, fmt.Errorf("reading the scheduling result of pod %s/%s: %w", e.Namespace, e.Name, err)
	}
	d := &schedulingresult.Document{}
	if err := d.UnmarshalBinary(data); err != nil {
		return nil, fmt.Errorf("the scheduling result of pod %s/%s: %w", e.Namespace, e.Name, err)
	}
	return d, nil
}

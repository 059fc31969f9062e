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

package sink

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Store keeps the full result of each Pod's attempts in segment files, which
// the simulator's HTTP API serves (cmd/simulator/internal/server reads this layout,
// and renders a document as JSON when asked for it):
//
//	<dir>/<seq>.log  the results' documents (schedulingresult.Document, encoded), one after another
//	<dir>/<seq>.idx  a line per document: "<namespace>/<name> <offset> <length>\n"
//
// <seq> is a zero-padded decimal, so that names sort as numbers. A Pod's
// result is its last line in the newest segment that has one. A line is
// written after its document, whole, in one write: a reader that takes only
// lines that end in a newline finds only whole documents.
//
// Storing a result is so two appends. A file per result (created, renamed
// over the Pod's last one, removed when evicted) cost sim-scheduler about a
// tenth of its rate at 5,000 nodes (README, Performance). Segments go whole,
// oldest first, when all of them hold more than maxBytes; a reset (the
// simulator removing the directory's entries) starts a new one.
type Store struct {
	dir          string
	maxBytes     int64
	segmentBytes int64

	mu       sync.Mutex
	segments []segment // oldest first; the last one is written
	log, idx *os.File  // of the last segment; nil until the first Put
	line     []byte
}

type segment struct {
	seq  uint64
	size int64 // of its log
}

const (
	logExt = ".log"
	idxExt = ".idx"
	// Segments per maxBytes: what eviction drops at once.
	segmentsPerStore = 8
)

// NewStore opens dir, counting the results a previous run left there (the
// simulator restarts the scheduler when its configuration changes). Other
// files in dir are left alone.
func NewStore(dir string, maxBytes int64) (*Store, error) {
	s := &Store{dir: dir, maxBytes: maxBytes, segmentBytes: max(maxBytes/segmentsPerStore, 1)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.scanLocked(); err != nil {
		return nil, err
	}
	return s, s.evictLocked()
}

// segmentPath is the file of segment seq with extension ext.
func segmentPath(dir string, seq uint64, ext string) string {
	return filepath.Join(dir, fmt.Sprintf("%016d%s", seq, ext))
}

// scanLocked lists the segments in the directory.
func (s *Store) scanLocked() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	s.segments = s.segments[:0]
	for _, e := range entries {
		seq, ext, ok := parseSegmentName(e.Name())
		if !ok || ext != logExt {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		s.segments = append(s.segments, segment{seq: seq, size: info.Size()})
	}
	slices.SortFunc(s.segments, func(a, b segment) int { return cmp.Compare(a.seq, b.seq) })
	return nil
}

func parseSegmentName(name string) (uint64, string, bool) {
	ext := filepath.Ext(name)
	if ext != logExt && ext != idxExt {
		return 0, "", false
	}
	seq, err := strconv.ParseUint(strings.TrimSuffix(name, ext), 10, 64)
	return seq, ext, err == nil
}

// Put stores data as the latest result of namespace/name.
func (s *Store) Put(namespace, name string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.segmentForLocked(int64(len(data))); err != nil {
		return err
	}
	cur := &s.segments[len(s.segments)-1]
	offset := cur.size
	if _, err := s.log.Write(data); err != nil {
		// Whatever part was written, no line points at it.
		s.closeLocked()
		return fmt.Errorf("storing the result of %s/%s: %w", namespace, name, err)
	}
	cur.size += int64(len(data))
	s.line = append(s.line[:0], namespace...)
	s.line = append(s.line, '/')
	s.line = append(s.line, name...)
	s.line = append(s.line, ' ')
	s.line = strconv.AppendInt(s.line, offset, 10)
	s.line = append(s.line, ' ')
	s.line = strconv.AppendInt(s.line, int64(len(data)), 10)
	s.line = append(s.line, '\n')
	if _, err := s.idx.Write(s.line); err != nil {
		s.closeLocked()
		return fmt.Errorf("indexing the result of %s/%s: %w", namespace, name, err)
	}
	return s.evictLocked()
}

// segmentForLocked makes sure the last segment is open and takes n more
// bytes: a new one when it is full, or when a reset removed it.
func (s *Store) segmentForLocked(n int64) error {
	if s.log != nil {
		var st syscall.Stat_t
		if err := syscall.Fstat(int(s.log.Fd()), &st); err != nil || st.Nlink == 0 {
			// Removed under us: a reset. Count again what is left.
			s.closeLocked()
			if err := s.scanLocked(); err != nil {
				return err
			}
		} else if cur := s.segments[len(s.segments)-1]; cur.size > 0 && cur.size+n > s.segmentBytes {
			s.closeLocked()
		}
	}
	if s.log != nil {
		return nil
	}
	seq := uint64(1)
	if len(s.segments) > 0 {
		seq = s.segments[len(s.segments)-1].seq + 1
	}
	for {
		log, err := os.OpenFile(segmentPath(s.dir, seq, logExt), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if errors.Is(err, fs.ErrExist) {
			// Another writer (a scheduler still stopping) took it.
			seq++
			continue
		}
		if err != nil {
			return fmt.Errorf("opening a segment: %w", err)
		}
		idx, err := os.OpenFile(segmentPath(s.dir, seq, idxExt), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
		if err != nil {
			_ = log.Close()
			return fmt.Errorf("opening a segment's index: %w", err)
		}
		s.log, s.idx = log, idx
		s.segments = append(s.segments, segment{seq: seq})
		return nil
	}
}

func (s *Store) closeLocked() {
	if s.log != nil {
		_ = s.log.Close()
		_ = s.idx.Close()
		s.log, s.idx = nil, nil
	}
}

// evictLocked removes the oldest segments until all hold at most maxBytes
// (the one written stays).
func (s *Store) evictLocked() error {
	total := int64(0)
	for _, seg := range s.segments {
		total += seg.size
	}
	for total > s.maxBytes && len(s.segments) > 1 {
		seg := s.segments[0]
		for _, ext := range []string{idxExt, logExt} {
			if err := os.Remove(segmentPath(s.dir, seg.seq, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("evicting results: %w", err)
			}
		}
		s.segments = s.segments[1:]
		total -= seg.size
	}
	return nil
}

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
	"container/list"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Store keeps the full result of the latest attempt of each Pod as a file,
// <dir>/<namespace>/<name>.json, which the simulator's HTTP API serves. The
// files hold at most maxBytes together: the oldest go first.
type Store struct {
	dir      string
	maxBytes int64

	mu    sync.Mutex
	total int64
	order *list.List // of *entry, oldest first
	index map[string]*list.Element
}

type entry struct {
	path string
	size int64
}

// NewStore opens dir, counting the results a previous run left there (the
// simulator restarts the scheduler when its configuration changes).
func NewStore(dir string, maxBytes int64) (*Store, error) {
	s := &Store{dir: dir, maxBytes: maxBytes, order: list.New(), index: map[string]*list.Element{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	type found struct {
		entry
		mod int64
	}
	var files []found
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, found{entry{p, info.Size()}, info.ModTime().UnixNano()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].mod != files[j].mod {
			return files[i].mod < files[j].mod
		}
		return files[i].path < files[j].path
	})
	for _, f := range files {
		s.add(f.entry)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s, s.evictLocked()
}

// Path is where the result of namespace/name is kept. Object names cannot
// hold a slash, so the path stays inside dir.
func Path(dir, namespace, name string) string {
	return filepath.Join(dir, namespace, name+".json")
}

// Put replaces the result of namespace/name.
func (s *Store) Put(namespace, name string, data []byte) error {
	p := Path(s.dir, namespace, name)
	tmp := p + ".tmp"
	// The namespace's directory is made only when a write finds it missing
	// (first result, or a reset removed it): not a mkdir per result.
	err := os.WriteFile(tmp, data, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(tmp, data, 0o644)
		}
	}
	if err != nil {
		return err
	}
	// Readers see the old file or the new one, never half of one.
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	s.add(entry{p, int64(len(data))})
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evictLocked()
}

func (s *Store) add(e entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.index[e.path]; ok {
		s.total -= el.Value.(*entry).size
		s.order.Remove(el)
	}
	s.index[e.path] = s.order.PushBack(&e)
	s.total += e.size
}

func (s *Store) evictLocked() error {
	for s.total > s.maxBytes && s.order.Len() > 1 {
		el := s.order.Front()
		e := el.Value.(*entry)
		s.order.Remove(el)
		delete(s.index, e.path)
		s.total -= e.size
		if err := os.Remove(e.path); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("evicting %s: %w", e.path, err)
		}
	}
	return nil
}

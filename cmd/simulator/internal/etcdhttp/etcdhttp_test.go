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

package etcdhttp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestBatches: transactions keep to the ops and bytes limits, in order,
// and a key larger than the byte limit goes alone.
func TestBatches(t *testing.T) {
	kv := func(i, size int) KeyValue {
		return KeyValue{Key: fmt.Sprintf("/k/%03d", i), Value: []byte(strings.Repeat("v", size-6))}
	}
	var kvs []KeyValue
	for i := range 300 {
		kvs = append(kvs, kv(i, 100))
	}
	sizes := func(bs [][]KeyValue) []int {
		var out []int
		for _, b := range bs {
			out = append(out, len(b))
		}
		return out
	}
	if got := sizes(Batches(kvs, 128, 1<<20)); !slices.Equal(got, []int{128, 128, 44}) {
		t.Errorf("by ops: %v", got)
	}
	if got := sizes(Batches(kvs, 128, 1000)); !slices.Equal(got[:2], []int{10, 10}) || len(got) != 30 {
		t.Errorf("by bytes: %v", got)
	}
	big := []KeyValue{kv(0, 100), kv(1, 5000), kv(2, 100), kv(3, 100)}
	if got := sizes(Batches(big, 128, 1000)); !slices.Equal(got, []int{1, 1, 2}) {
		t.Errorf("a large value: %v", got)
	}
	var flat []KeyValue
	for _, b := range Batches(kvs, 7, 1000) {
		flat = append(flat, b...)
	}
	if !slices.EqualFunc(flat, kvs, func(a, b KeyValue) bool { return a.Key == b.Key }) {
		t.Error("batches do not hold every key once, in order")
	}
	if got := Batches(nil, 128, 1<<20); len(got) != 0 {
		t.Errorf("no keys: %d batches", len(got))
	}
}

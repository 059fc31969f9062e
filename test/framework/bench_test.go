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

package framework

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAlternate checks that every round runs each contender's batch whole,
// in an order that rotates, from every client, and that the figures add up.
func TestAlternate(t *testing.T) {
	var mu sync.Mutex
	var order []string
	clients := map[int]bool{}
	contender := func(name string) Contender {
		return Contender{Name: name, Do: func(_ context.Context, client int) (int64, error) {
			mu.Lock()
			defer mu.Unlock()
			if len(order) == 0 || order[len(order)-1] != name {
				order = append(order, name)
			}
			clients[client] = true
			return 10, nil
		}}
	}
	var measured []Measured
	var rounds int
	testing.Benchmark(func(b *testing.B) {
		measured = Alternate(b, 4, 40, []Contender{contender("a"), contender("b"), contender("c")})
		rounds = b.N
	})
	if rounds < 1 {
		t.Fatalf("%d rounds", rounds)
	}
	var want []string
	for r := range rounds {
		for k := range 3 {
			want = append(want, []string{"a", "b", "c"}[(r+k)%3])
		}
	}
	// Neighbouring batches of one contender (…c][c…) merge in order.
	var merged []string
	for _, n := range want {
		if len(merged) == 0 || merged[len(merged)-1] != n {
			merged = append(merged, n)
		}
	}
	if diff := cmp.Diff(merged, order); diff != "" {
		t.Errorf("order of batches (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[int]bool{0: true, 1: true, 2: true, 3: true}, clients); diff != "" {
		t.Errorf("clients (-want +got):\n%s", diff)
	}
	for _, m := range measured {
		if len(m.Latencies) != 40*rounds || m.Bytes != int64(400*rounds) || m.Elapsed <= 0 {
			t.Errorf("%s: %d requests, %d bytes in %v; want %d requests, %d bytes", m.Name, len(m.Latencies), m.Bytes, m.Elapsed, 40*rounds, 400*rounds)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1}, 2.5},
		{[]float64{9, 1, 2, 4}, 3},
	} {
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}

func TestBenchCounts(t *testing.T) {
	b := &testing.B{}
	t.Setenv("SIM_TEST_COUNTS", " 1000,5000 ,20000")
	if got, want := BenchCounts(b, "SIM_TEST_COUNTS", []int{1}, 1), []int{1000, 5000, 20000}; !cmp.Equal(got, want) {
		t.Errorf("BenchCounts = %v, want %v", got, want)
	}
	t.Setenv("SIM_TEST_COUNTS", "")
	if got, want := BenchCounts(b, "SIM_TEST_COUNTS", []int{7, 8}, 1), []int{7, 8}; !cmp.Equal(got, want) {
		t.Errorf("BenchCounts unset = %v, want %v", got, want)
	}
}

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
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
)

// RequestCounts are the API server's apiserver_request_total, summed by
// verb, resource and subresource: what a round made it serve, whoever asked.
type RequestCounts map[string]float64

var requestTotal = regexp.MustCompile(`^apiserver_request_total\{(.*)\} (\S+)$`)
var requestLabel = regexp.MustCompile(`(\w+)="([^"]*)"`)

// APIRequests reads the counts from c's API server's metrics.
func APIRequests(tb testing.TB, c kubernetes.Interface) RequestCounts {
	tb.Helper()
	data, err := c.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(TimeoutContext(tb, time.Minute))
	if err != nil {
		tb.Fatalf("reading the API server's metrics: %v", err)
	}
	out := RequestCounts{}
	for line := range strings.Lines(string(data)) {
		m := requestTotal.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, l := range requestLabel.FindAllStringSubmatch(m[1], -1) {
			labels[l[1]] = l[2]
		}
		key := labels["verb"] + " " + labels["resource"]
		if labels["subresource"] != "" {
			key += "/" + labels["subresource"]
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			tb.Fatalf("apiserver_request_total: %q: %v", line, err)
		}
		out[key] += v
	}
	return out
}

// Minus is what r counts beyond before.
func (r RequestCounts) Minus(before RequestCounts) RequestCounts {
	out := RequestCounts{}
	for k, v := range r {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// PerItem lists the requests of at least 0.05 per item (of n), most first.
func (r RequestCounts) PerItem(n int) string {
	keys := slices.Collect(maps.Keys(r))
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(r[b], r[a]) })
	var parts []string
	for _, k := range keys {
		if per := r[k] / float64(n); per >= 0.05 {
			parts = append(parts, fmt.Sprintf("%s %.2f", k, per))
		}
	}
	return strings.Join(parts, ", ")
}

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

package integration

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// Benchmarks (docs/performance.md) measure side by side in one run and report
// percentiles; hack/bench runs them. They never assert a time.

// timed runs do once per b.Loop iteration and reports the p50 and p90 in
// milliseconds.
func timed(b *testing.B, do func() error) {
	b.Helper()
	var durations []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := do(); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	ms := func(q float64) float64 {
		return float64(durations[int(q*float64(len(durations)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.9), "p90-ms")
}

func get(client *http.Client, url, accept string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close() //nolint:errcheck
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// kubectlTable is the Accept header of kubectl get.
const kubectlTable = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// BenchmarkListSimulators lists 100 simulators in all namespaces through
// the host as kubectl get simulators -A does (one request per b.Loop
// iteration), and reports sim-apiserver's RSS with them. They are 25 in
// each of four namespaces: the server holds at most 50 in one
// (--max-simulators-per-namespace).
func BenchmarkListSimulators(b *testing.B) {
	c := hostCluster(b)
	sims := simClient(b)
	const namespaces, each = 4, 25
	for range namespaces {
		ns := createNamespace(b, "bench-list")
		for i := range each {
			if _, err := sims.SimV1alpha1().Simulators(ns).Create(b.Context(), newSimulator(fmt.Sprintf("s%03d", i)), metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	client, err := rest.HTTPClientFor(c.Config)
	if err != nil {
		b.Fatal(err)
	}
	url := c.Config.Host + "/apis/sim.x-k8s.io/v1alpha1/simulators"
	timed(b, func() error { return get(client, url, kubectlTable) })
	pid, err := c.ProcessPID("sim-apiserver")
	if err != nil {
		b.Fatal(err)
	}
	rss, err := framework.ProcessRSS(pid)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(rss)/(1<<20), "sim-apiserver-rss-MiB")
}

func restClient(tb testing.TB, kubeconfig string) *rest.Config {
	tb.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

package integration

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Benchmarks (DESIGN §8) measure side by side in one run and report
// percentiles; hack/bench runs them. They never assert a time.

// timed runs do b.N times and reports the p50 and p90 in milliseconds.
func timed(b *testing.B, do func() error) {
	b.Helper()
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := do(); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	ms := func(q float64) float64 {
		return float64(durations[int(q*float64(len(durations)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.9), "p90-ms")
}

func get(client *http.Client, url string) error {
	resp, err := client.Get(url)
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

// BenchmarkProxyGet compares a small GET inside a simulator made directly
// (the physical limit) with the same GET through the host apiserver, its
// aggregator and sim-apiserver's proxy.
func BenchmarkProxyGet(b *testing.B) {
	ns := createNamespace(b, "bench-proxy")
	runningSimulator(b, ns, "bench")
	direct := restClient(b, fetchKubeconfig(b, ns, "bench", "?mode=direct"))
	proxied := restClient(b, fetchKubeconfig(b, ns, "bench", ""))
	for _, tc := range []struct {
		name string
		cfg  *rest.Config
	}{{"direct", direct}, {"through-host", proxied}} {
		client, err := rest.HTTPClientFor(tc.cfg)
		if err != nil {
			b.Fatal(err)
		}
		url := tc.cfg.Host + "/api/v1/namespaces/default"
		b.Run(tc.name, func(b *testing.B) { timed(b, func() error { return get(client, url) }) })
	}
}

// BenchmarkListSimulators lists 100 simulators in all namespaces through
// the host, and reports sim-apiserver's RSS with them.
func BenchmarkListSimulators(b *testing.B) {
	c := hostCluster(b)
	sims := simClient(b)
	ns := createNamespace(b, "bench-list")
	for i := range 100 {
		if _, err := sims.SimV1alpha1().Simulators(ns).Create(b.Context(), newSimulator(fmt.Sprintf("s%03d", i)), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	client, err := rest.HTTPClientFor(c.Config)
	if err != nil {
		b.Fatal(err)
	}
	url := c.Config.Host + "/apis/sim.x-k8s.io/v1alpha1/simulators"
	timed(b, func() error { return get(client, url) })
	if rss, err := processRSS("sim-apiserver", c.Dir); err == nil {
		b.ReportMetric(float64(rss)/(1<<20), "sim-apiserver-RSS-MiB")
	} else {
		b.Logf("RSS of sim-apiserver: %v", err)
	}
}

func restClient(tb testing.TB, kubeconfig string) *rest.Config {
	tb.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// processRSS finds the process running binary whose command line names dir
// and returns its resident set size in bytes.
func processRSS(binary, dir string) (int64, error) {
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		return 0, err
	}
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmdline), dir) {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if filepath.Base(args[0]) != binary {
			continue
		}
		status, err := os.ReadFile(filepath.Join(filepath.Dir(p), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, err := strconv.ParseInt(f[1], 10, 64)
				return kb * 1024, err
			}
		}
	}
	return 0, fmt.Errorf("no %s process of %s", binary, dir)
}

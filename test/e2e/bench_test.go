package e2e

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
)

// BenchmarkProxyPaths compares a small GET inside a simulator on three
// paths, side by side (DESIGN §8): directly to the Pod IP (the physical
// limit), through the host's own services/proxy to the simulator's Service
// (what the host costs; the inner apiserver refuses the host's proxy
// identity, which costs it about the same as an answer), and through the
// host, the aggregator and sim-apiserver's proxy. It reports p50 and p90.
func BenchmarkProxyPaths(b *testing.B) {
	c := hostCluster(b)
	ns := newNamespace(b, "bench-")
	created, err := simClient(b).SimV1alpha1().Simulators(ns).Create(b.Context(),
		&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := waitAvailable(b, ns, created.Name)
	direct := innerClient(b, s, simulatorPod(b, s)).CoreV1().RESTClient()
	host, err := rest.HTTPClientFor(c.Config)
	if err != nil {
		b.Fatal(err)
	}
	const inner = "/api/v1/namespaces/default"
	paths := []struct {
		name string
		do   func() (int, error)
	}{
		{"direct", func() (int, error) {
			var code int
			err := direct.Get().AbsPath(inner).Do(b.Context()).StatusCode(&code).Error()
			return code, err
		}},
		{"host-services-proxy", hostGet(host, c.Config.Host+fmt.Sprintf("/api/v1/namespaces/%s/services/https:%s:kube-apiserver/proxy%s", ns, sim.SimulatorServiceName(s.Name), inner))},
		{"sim-apiserver-proxy", hostGet(host, c.Config.Host+fmt.Sprintf("/apis/sim.x-k8s.io/v1alpha1/namespaces/%s/simulators/%s/proxy%s", ns, s.Name, inner))},
	}
	for _, p := range paths {
		b.Run(p.name, func(b *testing.B) {
			durations := make([]time.Duration, 0, b.N)
			for range b.N {
				start := time.Now()
				code, err := p.do()
				if err != nil && code == 0 {
					b.Fatal(err)
				}
				durations = append(durations, time.Since(start))
			}
			slices.Sort(durations)
			b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(durations[len(durations)*9/10].Microseconds())/1000, "p90-ms")
		})
	}
}

func hostGet(client *http.Client, url string) func() (int, error) {
	return func() (int, error) {
		resp, err := client.Get(url)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close() //nolint:errcheck
		_, err = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, err
	}
}

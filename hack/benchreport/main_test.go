package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAndRatios(t *testing.T) {
	out := `goos: linux
BenchmarkProxyPaths/direct-2         	     300	   1000000 ns/op	         1.00 p50-ms	         2.00 p90-ms
BenchmarkProxyPaths/services-proxy-2 	     300	   2000000 ns/op	         2.00 p50-ms	         3.00 p90-ms
BenchmarkProxyPaths/sim-proxy-2      	     300	   1500000 ns/op	         1.50 p50-ms	         2.50 p90-ms
BenchmarkListSimulators-2 log line
BenchmarkListSimulators-2            	     100	    500000 ns/op	        40.0 sim-apiserver-RSS-MiB
PASS
`
	figs, err := parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	rs := ratios(figs)
	for i, f := range figs {
		got = append(got, strings.TrimSpace(f.name+" "+f.unit+" "+rs[i]))
	}
	want := []string{
		"BenchmarkProxyPaths/direct ns/op", "BenchmarkProxyPaths/direct p50-ms", "BenchmarkProxyPaths/direct p90-ms",
		"BenchmarkProxyPaths/services-proxy ns/op 2.00× direct", "BenchmarkProxyPaths/services-proxy p50-ms 2.00× direct", "BenchmarkProxyPaths/services-proxy p90-ms 1.50× direct",
		"BenchmarkProxyPaths/sim-proxy ns/op 1.50× direct", "BenchmarkProxyPaths/sim-proxy p50-ms 1.50× direct", "BenchmarkProxyPaths/sim-proxy p90-ms 1.25× direct",
		"BenchmarkListSimulators ns/op", "BenchmarkListSimulators sim-apiserver-RSS-MiB",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
}

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

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// The benchmarks of docs/performance.md that need the Pod on the node. Each b.Loop
// iteration is one round; hack/bench.sh runs them with -benchtime 5x.
// Three paths reach the same inner apiserver:
//   - direct: to the Pod IP with the simulator's admin certificate (the
//     physical limit);
//   - services-proxy: the host's own services/proxy to the simulator's
//     Service (what the host's hop costs);
//   - sim-proxy: the host, its aggregator and sim-apiserver's
//     simulators/NAME/proxy (what users use).
var benchPaths = []string{"direct", "services-proxy", "sim-proxy"}

// The paths of simulators/NAME/proxy of a simulator of the same spec
// hosted in the host itself (spec.hosting, a namespace of its own), for
// BenchmarkProxyGet: hostedPath goes through the hosting cluster's
// pods/proxy and the simulator server's hop gate (route PodsProxy),
// nodePortPath to a NodePort of its Service (route NodePort).
const (
	hostedPath   = "hosted-proxy"
	nodePortPath = "hosted-nodeport"
)

// benchClients is how many clients make requests at once.
const benchClients = 8

// pathTarget is one running simulator and how to reach its inner apiserver
// on each path.
type pathTarget struct {
	ns, name string
	inner    kubernetes.Interface // admin, direct
	configs  map[string]*rest.Config
	bases    map[string]string // URL prefix of the inner API per path
	// extra are paths beyond benchPaths (hostedPath), for getContenders.
	extra []string
}

// newPathTarget creates a simulator and lets anonymous callers read what
// the benchmarks read inside: the host's services/proxy forwards no
// credential the simulator trusts (the host keeps the caller's), so its
// requests arrive anonymous, and without this they would be refused, which
// costs the inner apiserver less than answering.
func newPathTarget(b *testing.B) *pathTarget {
	b.Helper()
	c := hostCluster(b)
	waitNodeAtRest(b, c)
	ns := newNamespace(b, "bench-")
	if _, err := simClient(b).SimV1alpha1().Simulators(ns).Create(b.Context(),
		&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	s := waitAvailable(b, ns, "bench")
	innerCfg := innerConfig(b, s, simulatorPod(b, s))
	inner := kubernetes.NewForConfigOrDie(innerCfg)
	rbac := inner.RbacV1()
	if _, err := rbac.ClusterRoles().Create(b.Context(), &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "bench-read"},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"namespaces", "nodes", "configmaps"},
			Verbs: []string{"get", "list", "watch"},
		}},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(b.Context(), &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bench-read"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "bench-read"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "system:anonymous"}},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	return &pathTarget{
		ns: ns, name: s.Name, inner: inner,
		configs: map[string]*rest.Config{"direct": innerCfg, "services-proxy": c.Config, "sim-proxy": c.Config},
		bases: map[string]string{
			"direct":         innerCfg.Host,
			"services-proxy": c.Config.Host + fmt.Sprintf("/api/v1/namespaces/%s/services/https:%s:kube-apiserver/proxy", ns, sim.SimulatorServiceName(s.Name)),
			"sim-proxy":      c.Config.Host + framework.SimulatorPath(ns, s.Name, "proxy", ""),
		},
	}
}

// clients returns n HTTP clients of a path, each with a connection of its
// own, as n separate programs would have.
func (p *pathTarget) clients(b *testing.B, path string, n int) []*http.Client {
	b.Helper()
	out := make([]*http.Client, n)
	for i := range out {
		cfg := rest.CopyConfig(p.configs[path])
		// A dialer of its own keeps client-go from sharing one cached
		// transport between the clients.
		cfg.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		cfg.Timeout = 0 // watches
		client, err := rest.HTTPClientFor(cfg)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = client
	}
	return out
}

// addHosted adds path to p: a simulator named as p's, hosted with route
// in a namespace of the host through a kubeconfig with rights there alone.
func (p *pathTarget) addHosted(b *testing.B, path string, route v1alpha1.SimulatorHostingRoute) {
	b.Helper()
	c := hostCluster(b)
	ns, hostingNS := newNamespace(b, "bench-hosted-"), newNamespace(b, "bench-hosting-")
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hosting"},
		Data: map[string][]byte{contract.SourceKeyKubeconfig: framework.HostingKubeconfig(b, c, hostingNS)}}
	if _, err := c.Client.CoreV1().Secrets(ns).Create(b.Context(), secret, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := simClient(b).SimV1alpha1().Simulators(ns).Create(b.Context(), &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: p.name},
		Spec: v1alpha1.SimulatorSpec{Hosting: &v1alpha1.SimulatorHosting{SecretName: secret.Name, Namespace: hostingNS, Route: route}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	waitAvailable(b, ns, p.name)
	p.configs[path] = c.Config
	p.bases[path] = c.Config.Host + framework.SimulatorPath(ns, p.name, "proxy", "")
	p.extra = append(p.extra, path)
}

// getContenders returns, per path, a request of path with the Accept
// header accept that must answer 200.
func (p *pathTarget) getContenders(b *testing.B, path, accept string) []framework.Contender {
	b.Helper()
	var out []framework.Contender
	for _, name := range append(benchPaths[:len(benchPaths):len(benchPaths)], p.extra...) {
		clients := p.clients(b, name, benchClients)
		url := p.bases[name] + path
		var once sync.Once
		out = append(out, framework.Contender{Name: name, Do: func(ctx context.Context, client int) (int64, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return 0, err
			}
			req.Header.Set("Accept", accept)
			resp, err := clients[client].Do(req)
			if err != nil {
				return 0, err
			}
			defer resp.Body.Close() //nolint:errcheck
			n, err := io.Copy(io.Discard, resp.Body)
			once.Do(func() {
				// Go asks for gzip and undoes it; whether an answer came
				// compressed explains much of a large LIST's cost.
				b.Logf("%s %s: %s, %s, %d bytes, gzip on the wire: %v", name, path, resp.Proto, resp.Header.Get("Content-Type"), n, resp.Uncompressed)
			})
			if err == nil && resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("GET %s: %s", url, resp.Status)
			}
			return n, err
		}})
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkProxyGet: a small GET (a Namespace) from 8 clients at once on
// each path (and through simulators hosted in the host itself,
// hostedPath and nodePortPath), 400 per path per round: p50, p99 and requests/s.
func BenchmarkProxyGet(b *testing.B) {
	p := newPathTarget(b)
	p.addHosted(b, hostedPath, v1alpha1.SimulatorHostingRoutePodsProxy)
	p.addHosted(b, nodePortPath, v1alpha1.SimulatorHostingRouteNodePort)
	measured := framework.Alternate(b, benchClients, 400, p.getContenders(b, "/api/v1/namespaces/default", "application/json"))
	var cdf []framework.Series
	for _, m := range measured {
		framework.ReportContender(b, m.Name, ms(m.Quantile(0.5)), "p50-ms")
		framework.ReportContender(b, m.Name, ms(m.Quantile(0.99)), "p99-ms")
		framework.ReportContender(b, m.Name, float64(len(m.Latencies))/m.Elapsed.Seconds(), "req/s")
		s := framework.Series{Name: m.Name}
		for q := range 100 { // to p99: the slowest request would set the scale
			s.Points = append(s.Points, [2]float64{ms(m.Quantile(float64(q) / 100)), float64(q)})
		}
		cdf = append(cdf, s)
	}
	framework.WriteSeries(b, "proxy-get-latency", "Small GET, 8 clients: latency distribution", "latency (ms)", "requests at or below (%)", cdf)
}

// BenchmarkListNodes: LIST of 1,000 Nodes (made by a NodePool, all Ready)
// as JSON and as protobuf from 8 clients at once on each path, 16 per path
// per round: lists/s, MB/s and p50.
func BenchmarkListNodes(b *testing.B) {
	const nodes = 1000
	p := newPathTarget(b)
	createPool(b, p.ns, p.name, "list", nodes)
	for _, format := range []struct{ name, accept string }{
		{"json", "application/json"},
		{"protobuf", runtime.ContentTypeProtobuf},
	} {
		b.Run(format.name, func(b *testing.B) {
			measured := framework.Alternate(b, benchClients, 16, p.getContenders(b, "/api/v1/nodes", format.accept))
			for _, m := range measured {
				framework.ReportContender(b, m.Name, float64(len(m.Latencies))/m.Elapsed.Seconds(), "lists/s")
				framework.ReportContender(b, m.Name, float64(m.Bytes)/1e6/m.Elapsed.Seconds(), "MB/s")
				framework.ReportContender(b, m.Name, ms(m.Quantile(0.5)), "p50-ms")
			}
		})
	}
}

// BenchmarkWatchLatency: the time from a ConfigMap's create (direct)
// until a watcher sees it, on each path: one watch per path, each on a
// namespace of its own, so that every event reaches one watcher, and on
// the benchmark's label only (the namespace's kube-root-ca.crt is not
// one); 20 creates, one at a time, per path per round.
func BenchmarkWatchLatency(b *testing.B) {
	const perRound = 20
	p := newPathTarget(b)
	type seen struct {
		name string
		at   time.Time
	}
	events := map[string]chan seen{}
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	for _, path := range benchPaths {
		ns := "watch-" + path
		if _, err := p.inner.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		url := p.bases[path] + "/api/v1/namespaces/" + ns + "/configmaps?watch=1&timeoutSeconds=3600&labelSelector=bench%3Dwatch"
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := p.clients(b, path, 1)[0].Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("watch %s: %s", url, resp.Status)
		}
		ch := make(chan seen, perRound)
		events[path] = ch
		go func() {
			defer resp.Body.Close() //nolint:errcheck
			dec := json.NewDecoder(resp.Body)
			for {
				var ev struct {
					Type   string
					Object metav1.PartialObjectMetadata
				}
				if err := dec.Decode(&ev); err != nil {
					close(ch)
					return
				}
				if ev.Type == "ADDED" {
					ch <- seen{ev.Object.Name, time.Now()}
				}
			}
		}()
	}
	latencies := map[string][]time.Duration{}
	round := 0
	for b.Loop() {
		for k := range benchPaths {
			path := benchPaths[(round+k)%len(benchPaths)]
			for i := range perRound {
				name := fmt.Sprintf("r%d-%d", round, i)
				start := time.Now()
				if _, err := p.inner.CoreV1().ConfigMaps("watch-"+path).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"bench": "watch"}}}, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
				select {
				case ev, ok := <-events[path]:
					if !ok {
						b.Fatalf("%s: the watch ended", path)
					}
					if ev.name != name {
						b.Fatalf("%s: saw %s, want %s", path, ev.name, name)
					}
					latencies[path] = append(latencies[path], ev.at.Sub(start))
				case <-time.After(time.Minute):
					b.Fatalf("%s: no event for %s within a minute", path, name)
				}
			}
		}
		round++
	}
	for _, path := range benchPaths {
		l := latencies[path]
		slices.Sort(l)
		m := framework.Measured{Name: path, Latencies: l}
		framework.ReportContender(b, path, ms(m.Quantile(0.5)), "p50-ms")
		framework.ReportContender(b, path, ms(m.Quantile(0.99)), "p99-ms")
	}
}

// createPool makes a NodePool of n Nodes in the simulator and waits until
// all are Ready.
func createPool(b *testing.B, ns, simulator, pool string, n int) {
	b.Helper()
	pools := simClient(b).SimV1alpha1().NodePools(ns)
	if _, err := pools.Create(b.Context(), &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: pool},
		Spec:       v1alpha1.NodePoolSpec{SimulatorName: simulator, Replicas: ptr.To(int32(n))},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	poll(b, fmt.Sprintf("%d Nodes of pool %s Ready", n, pool), 10*time.Minute, func(ctx context.Context) (bool, string) {
		np, err := pools.Get(ctx, pool, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return int(np.Status.ReadyReplicas) == n, fmt.Sprintf("%d exist, %d Ready", np.Status.Replicas, np.Status.ReadyReplicas)
	})
}

// waitNodeAtRest waits until no simulator Pod is left on the host: the
// simulators of the benchmarks run before (their namespaces deleted, not
// waited for, as each ended) would otherwise take CPU from the one that
// starts.
func waitNodeAtRest(b *testing.B, c *framework.Cluster) {
	b.Helper()
	start := time.Now()
	poll(b, "the simulator Pods of earlier benchmarks to be gone", 5*time.Minute, func(ctx context.Context) (bool, string) {
		pods, err := c.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator})
		if err != nil {
			return false, err.Error()
		}
		return len(pods.Items) == 0, fmt.Sprintf("%d Pods", len(pods.Items))
	})
	b.Logf("waited %v for the simulator Pods of earlier benchmarks to be gone", time.Since(start).Round(time.Millisecond))
}

// BenchmarkSimulatorPod: create → Available of simulators made one after
// the other (one per iteration: the median, min and max); then the memory
// of the last one's Pod once it and two more simulators have idled
// SIM_BENCH_IDLE (default 60s), and once it holds 5,000 Ready Nodes. The
// two more say what each further simulator on a node costs: the page cache
// of the image's binaries (most of an idle Pod's RSS) is shared by every
// Pod that maps it and charged once.
func BenchmarkSimulatorPod(b *testing.B) {
	c := hostCluster(b)
	ns := newNamespace(b, "bench-pod-")
	client := simClient(b).SimV1alpha1().Simulators(ns)
	var times []time.Duration
	var starts [][]milestone
	var last *v1alpha1.Simulator
	// Creates on a node at rest, as each of this loop's own waits for the
	// one before to leave.
	waitNodeAtRest(b, c)
	for b.Loop() {
		if last != nil {
			// One at a time: the previous one's Pod leaves the node first.
			if err := client.Delete(b.Context(), last.Name, metav1.DeleteOptions{}); err != nil {
				b.Fatal(err)
			}
			poll(b, "the Pod of "+last.Name+" to be gone", 2*time.Minute, func(ctx context.Context) (bool, string) {
				pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=" + last.Name})
				if err != nil {
					return false, err.Error()
				}
				return len(pods.Items) == 0, fmt.Sprintf("%d Pods", len(pods.Items))
			})
		}
		name := fmt.Sprintf("pod-%d", len(times))
		timeline := watchStartup(b, ns, name)
		start := time.Now()
		if _, err := client.Create(b.Context(), &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		last = waitAvailable(b, ns, name)
		available := time.Now()
		times = append(times, available.Sub(start))
		starts = append(starts, timeline.report(b, simulatorPod(b, last), start, available))
	}
	reportMilestones(b, starts)
	slices.Sort(times)
	b.ReportMetric(times[len(times)/2].Seconds(), "create-to-available-median-s")
	b.ReportMetric(times[0].Seconds(), "create-to-available-min-s")
	b.ReportMetric(times[len(times)-1].Seconds(), "create-to-available-max-s")

	// The alternative measured beside them: a simulator whose control
	// plane is four processes (SIMULATOR_SHARED_RUNTIME=false).
	more := []string{"second", "third", "separate"}
	for _, name := range more {
		s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if name == "separate" {
			s.Spec.PodTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: contract.SimulatorContainer,
				Env:  []corev1.EnvVar{{Name: contract.EnvSharedRuntime, Value: "false"}},
			}}}}
		}
		if _, err := client.Create(b.Context(), s, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	var morePods []*corev1.Pod
	for _, name := range more {
		morePods = append(morePods, simulatorPod(b, waitAvailable(b, ns, name)))
	}
	time.Sleep(framework.BenchIdle(b, time.Minute)) // the state measured: idle
	reportPodMemory(b, "idle", podMemory(b, simulatorPod(b, last)))
	for i, pod := range morePods {
		m := podMemory(b, pod)
		if more[i] == "separate" {
			reportPodMemory(b, "idle-separate", m)
			continue
		}
		b.ReportMetric(framework.MiB(m.cgroup.WorkingSet), more[i]+"-pod-working-set-MiB")
		b.ReportMetric(framework.MiB(m.total.Private), more[i]+"-pod-private-MiB")
	}
	for _, name := range more {
		if err := client.Delete(b.Context(), name, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
	}

	n := framework.BenchNodes(b)
	createPool(b, ns, last.Name, "rss", n)
	reportPodMemory(b, fmt.Sprintf("%d-nodes", n), podMemory(b, simulatorPod(b, last)))
}

// podMem is what a Pod's processes have resident, per program (the base
// name of argv[0]) and in all, and what its containers' cgroups are
// charged for, in all.
type podMem struct {
	byProgram map[string]framework.Memory
	total     framework.Memory
	cgroup    framework.CgroupMemory
}

func podMemory(b *testing.B, pod *corev1.Pod) podMem {
	b.Helper()
	m := podMem{byProgram: map[string]framework.Memory{}}
	for _, cs := range pod.Status.ContainerStatuses {
		cg, err := framework.ContainerMemory(cs.ContainerID)
		if err != nil {
			b.Fatalf("container %s: %v", cs.Name, err)
		}
		m.cgroup = m.cgroup.Add(cg)
	}
	for _, p := range podProcesses(b, pod) {
		pm, err := framework.ProcessMemory(p.pid)
		if err != nil {
			continue // exited meanwhile
		}
		m.byProgram[p.program] = m.byProgram[p.program].Add(pm)
		m.total = m.total.Add(pm)
	}
	if m.total.RSS == 0 {
		b.Fatalf("no process found in the containers of Pod %s", pod.Name)
	}
	return m
}

// process is one of a Pod's: its PID and program (the base name of argv[0]).
type process struct {
	pid     int
	program string
}

// podProcesses are the processes of a Pod's containers (from their
// cgroups), but those that exit meanwhile.
func podProcesses(b *testing.B, pod *corev1.Pod) []process {
	b.Helper()
	var out []process
	for _, cs := range pod.Status.ContainerStatuses {
		pids, err := framework.ContainerPIDs(cs.ContainerID)
		if err != nil {
			b.Fatalf("container %s: %v", cs.Name, err)
		}
		for _, pid := range pids {
			cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
			if err != nil {
				continue
			}
			out = append(out, process{pid, filepath.Base(strings.SplitN(string(cmdline), "\x00", 2)[0])})
		}
	}
	return out
}

// reportPodMemory reports a Pod's memory as figures of contender state: the
// RSS and its anonymous part per program; RSS, anonymous, file-backed and
// private (no other process maps it) in all; and, as the kubelet sees
// it, its containers' working set and their cgroups' anonymous and page
// cache charges.
func reportPodMemory(b *testing.B, state string, m podMem) {
	b.Helper()
	for _, program := range slices.Sorted(maps.Keys(m.byProgram)) {
		framework.ReportContender(b, state, framework.MiB(m.byProgram[program].RSS), "rss-"+program+"-MiB")
		framework.ReportContender(b, state, framework.MiB(m.byProgram[program].Anon), "anon-"+program+"-MiB")
	}
	framework.ReportContender(b, state, framework.MiB(m.total.RSS), "rss-total-MiB")
	framework.ReportContender(b, state, framework.MiB(m.total.Anon), "anon-total-MiB")
	framework.ReportContender(b, state, framework.MiB(m.total.File), "file-total-MiB")
	framework.ReportContender(b, state, framework.MiB(m.total.Private), "private-total-MiB")
	framework.ReportContender(b, state, framework.MiB(m.cgroup.WorkingSet), "working-set-MiB")
	framework.ReportContender(b, state, framework.MiB(m.cgroup.Anon), "cgroup-anon-MiB")
	framework.ReportContender(b, state, framework.MiB(m.cgroup.File), "cgroup-file-MiB")
}

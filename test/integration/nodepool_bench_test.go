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
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/controller/nodepool"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// BenchmarkNodesToReady measures, each against a fresh simulator, how long n
// Nodes take to exist and be Ready (kwok makes them Ready) when made by a
// NodePool, by a raw 32-worker protobuf create loop, and by
// `kwokctl scale node`, and reports the three and their ratios (docs/performance.md).
// Each iteration runs the three, the order rotating from one to the next so
// that a machine getting busier or idler favours none; a contender's rate is
// over every iteration's Nodes and time (one 5,000-Node run of each moved
// the kwokctl ratio from 3.97× to 4.64× between two make bench runs).
// One iteration: go test -p 1 -run '^$' -bench NodesToReady -benchtime 1x ./test/integration/
func BenchmarkNodesToReady(b *testing.B) {
	n := framework.BenchNodes(b)
	ns := createNamespace(b, "bench-nodes")
	type contender struct {
		name   string
		create func(ctx context.Context, name string, cfg *rest.Config) error
		took   time.Duration
		cpu    time.Duration // the simulator's, every program and its etcd
	}
	contenders := []*contender{
		{name: "raw", create: func(ctx context.Context, _ string, cfg *rest.Config) error {
			return rawCreate(ctx, cfg, n)
		}},
		{name: "nodepool", create: nodePoolOf(b, ns, n)},
		{name: "kwokctl", create: kwokctlOf(b, ns, n)},
	}
	var series []framework.Series
	for i := range b.N {
		// The plot shows the last iteration.
		series = series[:0]
		for j := range contenders {
			c := contenders[(i+j)%len(contenders)]
			r := timeToReady(b, ns, fmt.Sprintf("%s-%d-%d", c.name, b.N, i), n, &series, c.create, nil)
			c.took += r.took
			c.cpu += r.cpu
		}
	}
	for _, c := range contenders {
		framework.ReportContender(b, c.name, c.took.Seconds()/float64(b.N), "s")
		framework.ReportContender(b, c.name, float64(n*b.N)/c.took.Seconds(), "nodes/s")
		// The report's reason when the NodePool's lead misses its budget:
		// the makers share the simulator's CPUs, so their rates differ by
		// about what a Node costs them.
		framework.ReportContender(b, c.name, framework.MsPer(c.cpu, n*b.N), "cpu-ms/node")
	}
	framework.WriteSeries(b, "nodes-ready", fmt.Sprintf("%d Nodes to Ready, each against a fresh simulator", n), "seconds", "Nodes Ready", series)
}

// readyRun is what timeToReady measured: the time from the start of make
// until every Node was Ready, and the CPU the simulator's processes (its
// etcd included) used meanwhile.
type readyRun struct {
	took, cpu time.Duration
}

// timeToReady starts a simulator, runs create, and measures the time from the
// start of make until n Nodes are Ready inside; then calls then, if not
// nil, with the simulator and a direct protobuf client configuration, and
// stops the simulator, so that the next measurement has the machine to
// itself. It appends to series how many Nodes were Ready when, in steps of
// n/100.
func timeToReady(b *testing.B, ns, name string, n int, series *[]framework.Series, create func(ctx context.Context, name string, cfg *rest.Config) error,
	then func(p *framework.SimulatorProcess, cfg *rest.Config)) readyRun {
	b.Helper()
	ctx := b.Context()
	p := runningSimulator(b, ns, name)
	defer p.Stop()
	cfg := restClient(b, fetchKubeconfig(b, ns, name, "?mode=direct"))
	cfg.QPS, cfg.Burst = -1, 0
	cfg.ContentType = runtime.ContentTypeProtobuf
	client := kubernetes.NewForConfigOrDie(cfg)

	// A watch counts Nodes that exist and that turned Ready, the same way
	// for every maker. Handlers of one informer run one at a time.
	var readyCount atomic.Int64
	var start, allExist time.Time
	done := make(chan struct{})
	exist, ready := map[string]bool{}, map[string]bool{}
	type sample struct {
		at    time.Time
		ready int64
	}
	var samples []sample
	count := func(obj interface{}) {
		node, ok := obj.(*corev1.Node)
		if !ok {
			return
		}
		if !exist[node.Name] {
			exist[node.Name] = true
			if len(exist) == n {
				allExist = time.Now()
			}
		}
		if ready[node.Name] || !nodeReady(node) {
			return
		}
		ready[node.Name] = true
		count := readyCount.Add(1)
		if step := max(n/100, 1); count%int64(step) == 0 || count == int64(n) {
			samples = append(samples, sample{time.Now(), count})
		}
		if count == int64(n) {
			close(done)
		}
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().Nodes().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    count,
		UpdateFunc: func(_, obj interface{}) { count(obj) },
	}); err != nil {
		b.Fatal(err)
	}
	watchCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	factory.Start(watchCtx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		b.Fatal("the Node watch did not sync")
	}

	// Where the work goes: the inner kube-apiserver's requests and the
	// simulator's processes' CPU, per Node.
	requestsBefore, cpuBefore := framework.APIRequests(b, client), simulatorCPU(b, p)
	start = time.Now()
	if err := create(ctx, name, cfg); err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		b.Fatalf("%s: %d of %d Nodes Ready after 10 minutes", name, readyCount.Load(), n)
	}
	elapsed := time.Since(start)
	made := allExist.Sub(start)
	points := [][2]float64{{0, 0}}
	for _, s := range samples {
		points = append(points, [2]float64{s.at.Sub(start).Seconds(), float64(s.ready)})
	}
	*series = append(*series, framework.Series{Name: strings.SplitN(name, "-", 2)[0], Points: points})
	b.Logf("%s: %d Nodes exist after %v (%.0f/s), all Ready after %v (%.0f/s)", name, n,
		made.Round(time.Millisecond), float64(n)/made.Seconds(), elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
	requests, cpu := framework.APIRequests(b, client).Minus(requestsBefore), simulatorCPU(b, p)
	var cpuParts []string
	used, cpuAll := framework.CPUUsed(cpuBefore, cpu)
	for _, program := range slices.Sorted(maps.Keys(used)) {
		if ms := framework.MsPer(used[program], n); ms >= 0.01 {
			cpuParts = append(cpuParts, fmt.Sprintf("%s %.2f", program, ms))
		}
	}
	b.Logf("%s: per Node, the inner kube-apiserver served %s; CPU ms: %s", name, requests.PerItem(n), strings.Join(cpuParts, ", "))
	cancel()
	if then != nil {
		then(p, cfg)
	}
	return readyRun{took: elapsed, cpu: cpuAll}
}

// nodePoolOf makes n Nodes in simulator name by a NodePool of its name.
func nodePoolOf(b *testing.B, ns string, n int) func(ctx context.Context, name string, _ *rest.Config) error {
	return func(ctx context.Context, name string, _ *rest.Config) error {
		np := &v1alpha1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       v1alpha1.NodePoolSpec{SimulatorName: name, Replicas: ptr.To(int32(n))},
		}
		_, err := simClient(b).SimV1alpha1().NodePools(ns).Create(ctx, np, metav1.CreateOptions{})
		return err
	}
}

// kwokctlOf makes n Nodes in simulator name by `kwokctl scale node`.
func kwokctlOf(b *testing.B, ns string, n int) func(ctx context.Context, name string, _ *rest.Config) error {
	return func(ctx context.Context, name string, _ *rest.Config) error {
		return kwokctlScale(ctx, b, ns, name, n)
	}
}

// simulatorCPU is the CPU time the processes of simulator p (its etcd
// among them) have used, by program.
func simulatorCPU(b *testing.B, p *framework.SimulatorProcess) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, pid := range p.PIDs() {
		_, byProgram, err := framework.TreeCPUByProgram(pid)
		if err != nil {
			b.Fatal(err)
		}
		for program, cpu := range byProgram {
			out[program] += cpu
		}
	}
	return out
}

// rawCreate is the physical limit: 32 workers creating kwok Nodes with
// protobuf and no client-side rate limit, nothing else.
func rawCreate(ctx context.Context, cfg *rest.Config, n int) error {
	client := kubernetes.NewForConfigOrDie(cfg)
	var failed atomic.Pointer[error]
	workqueue.ParallelizeUntil(ctx, 32, n, func(i int) {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        fmt.Sprintf("raw-%d", i),
				Labels:      map[string]string{nodepool.LabelType: "kwok"},
				Annotations: map[string]string{nodepool.AnnotationKwokNode: "fake"},
			},
			Status: corev1.NodeStatus{Capacity: v1alpha1.DefaultNodeCapacity(), Allocatable: v1alpha1.DefaultNodeCapacity()},
		}
		if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			failed.Store(&err)
		}
	})
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}

// kwokctlScale runs `kwokctl scale node --replicas n` against the simulator
// as against a cluster kwokctl made: its workdir holds a binary-runtime
// cluster whose kubeconfig is the simulator's ?mode=direct one.
func kwokctlScale(ctx context.Context, b *testing.B, ns, name string, n int) error {
	binDir, err := framework.Binaries(ctx)
	if err != nil {
		return err
	}
	workdir := b.TempDir()
	clusterDir := filepath.Join(workdir, "clusters", name)
	if err := os.MkdirAll(clusterDir, 0o700); err != nil {
		return err
	}
	kubeconfig, err := os.ReadFile(fetchKubeconfig(b, ns, name, "?mode=direct"))
	if err != nil {
		return err
	}
	conf := "apiVersion: config.kwok.x-k8s.io/v1alpha1\nkind: KwokctlConfiguration\noptions:\n  runtime: binary\n"
	if err := os.WriteFile(filepath.Join(clusterDir, "kwok.yaml"), []byte(conf), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(clusterDir, "kubeconfig.yaml"), kubeconfig, 0o600); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "kwokctl"), "--name", name, "scale", "node", fmt.Sprintf("--replicas=%d", n))
	cmd.Env = append(os.Environ(), "KWOK_WORKDIR="+workdir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("kwokctl scale node: %w\n%s", err, out)
	}
	return nil
}

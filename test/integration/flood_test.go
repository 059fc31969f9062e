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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// The flood of issue 31: what one tenant can pile up on the host and then
// read as fast as it likes, against what another tenant and the
// reconcilers still get.
const (
	// floodSecrets labelled Secrets of floodSecretBytes each, in a namespace
	// with no simulator (~420 MB in the host).
	floodSecrets     = 600
	floodSecretBytes = 700 << 10
	// floodPools NodePools of about floodPoolBytes each (the size limit),
	// spread over floodPoolNamespaces of the flooding tenant so that no per-namespace default quota is in the way.
	floodPools          = 500
	floodPoolNamespaces = 5
	floodPoolBytes      = validation.MaxNodePoolBytes
	// floodReaders goroutines of the flooding tenant, each listing
	// NodePools and getting one (resourceVersion unset) in turn, for
	// floodDuration.
	floodReaders  = 32
	floodDuration = 30 * time.Second
	// The budgets: sim-apiserver's RSS throughout, the other
	// tenant's GET p99 through the flood, and (ours) how long the
	// reconcilers may take to make a new simulator's Pod during it.
	floodRSSBudget        = 256 << 20
	floodGETBudget        = time.Second
	floodReconcilerBudget = 10 * time.Second
)

// TestFlood: tenant A, bound to the shipped edit role in its namespaces,
// fills them with 500 NodePools at the size limit, next to 600 labelled
// 700 KB Secrets in a namespace that has not opted in, and then reads
// NodePools with 32 goroutines as fast as it can. Meanwhile tenant B, in its
// own namespace, gets its simulator and its NodePool in a loop, and creates
// a simulator whose Pod the reconcilers must make. sim-apiserver's RSS stays
// under 256 MiB throughout, B's GET p99 under 1 s and the reconcilers make
// the Pod within 10 s. It runs on a host of its own, so that its 420 MB of
// Secrets and its load touch no other test, with sim-apiserver's default
// flags.
func TestFlood(t *testing.T) {
	hostCluster(t)
	ctx := t.Context()
	c := floodCluster(t)

	rss := startRSSSampler(t, c)

	// The Secrets, as the host admin: a namespace that never holds a
	// simulator, so nothing of the server needs them.
	start := time.Now()
	secretsNS := floodNamespace(t, c, "flood-secrets")
	createInParallel(t, 8, floodSecrets, func(ctx context.Context, i int) error {
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s-%03d", i), Labels: map[string]string{sim.LabelSimulator: "x"}},
			Data:       map[string][]byte{"data": bytes.Repeat([]byte{byte('a' + i%26)}, floodSecretBytes)},
		}
		_, err := c.Client.CoreV1().Secrets(secretsNS).Create(ctx, s, metav1.CreateOptions{})
		return err
	})
	t.Logf("%d Secrets of %d KiB in %s in %v; sim-apiserver max RSS so far %d MiB",
		floodSecrets, floodSecretBytes>>10, secretsNS, time.Since(start).Round(time.Millisecond), rss.max()>>20)

	if _, err := kubectlWith(t, c, c.KubeconfigPath, "apply", "-f", filepath.Join(repoRoot, userRolesManifest)); err != nil {
		t.Fatal(err)
	}
	// Tenant A: its namespaces and NodePools at the size limit, made by A.
	const userA, userB = "tenant-a", "tenant-b"
	var poolNS []string
	for range floodPoolNamespaces {
		poolNS = append(poolNS, floodTenantNamespace(t, c, "flood-a", userA))
	}
	simsA := floodClient(t, c, userA)
	start = time.Now()
	createInParallel(t, 8, floodPools, func(ctx context.Context, i int) error {
		ns := poolNS[i%len(poolNS)]
		_, err := simsA.SimV1alpha1().NodePools(ns).Create(ctx, largeNodePool(t, ns, fmt.Sprintf("pool-%03d", i)), metav1.CreateOptions{})
		return err
	})
	t.Logf("%d NodePools of %d KiB in %d namespaces in %v; sim-apiserver max RSS so far %d MiB",
		floodPools, floodPoolBytes>>10, len(poolNS), time.Since(start).Round(time.Millisecond), rss.max()>>20)

	// Tenant B: its simulator and NodePool.
	nsB := floodTenantNamespace(t, c, "flood-b", userB)
	simsB := floodClient(t, c, userB)
	if _, err := simsB.SimV1alpha1().Simulators(nsB).Create(ctx, newSimulator("b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poolB := &v1alpha1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Spec: v1alpha1.NodePoolSpec{SimulatorName: "b", Replicas: ptr.To[int32](0)}}
	if _, err := simsB.SimV1alpha1().NodePools(nsB).Create(ctx, poolB, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	getB := func(ctx context.Context) error {
		if _, err := simsB.SimV1alpha1().Simulators(nsB).Get(ctx, "b", metav1.GetOptions{}); err != nil {
			return err
		}
		_, err := simsB.SimV1alpha1().NodePools(nsB).Get(ctx, "b", metav1.GetOptions{})
		return err
	}
	quiet := floodLatencies(t, ctx, 50, getB)
	t.Logf("tenant B's GETs before the flood: p50 %v, p99 %v", quiet.quantile(0.5), quiet.quantile(0.99))
	rss.reset()

	// The flood.
	floodCtx, stopFlood := context.WithTimeout(ctx, floodDuration)
	defer stopFlood()
	var lists, gets, failures atomic.Int64
	var lastFailure atomic.Value
	var wg sync.WaitGroup
	for r := range floodReaders {
		wg.Go(func() {
			for i := 0; floodCtx.Err() == nil; i++ {
				ns := poolNS[(r+i)%len(poolNS)]
				_, err := simsA.SimV1alpha1().NodePools(ns).List(floodCtx, metav1.ListOptions{})
				if floodCtx.Err() != nil {
					return
				}
				lists.Add(1)
				if err != nil {
					failures.Add(1)
					lastFailure.Store(err.Error())
				}
				pool := fmt.Sprintf("pool-%03d", (r*7+i)%floodPools)
				_, err = simsA.SimV1alpha1().NodePools(poolNS[(r*7+i)%floodPools%len(poolNS)]).Get(floodCtx, pool, metav1.GetOptions{})
				if floodCtx.Err() != nil {
					return
				}
				gets.Add(1)
				if err != nil {
					failures.Add(1)
					lastFailure.Store(err.Error())
				}
			}
		})
	}
	// Once the flood is on, B makes a simulator: the reconcilers make its Pod.
	var reconciled time.Duration
	wg.Go(func() {
		select {
		case <-time.After(floodDuration / 3):
		case <-floodCtx.Done():
			return
		}
		start := time.Now()
		if _, err := simsB.SimV1alpha1().Simulators(nsB).Create(ctx, newSimulator("during"), metav1.CreateOptions{}); err != nil {
			t.Errorf("tenant B creating a simulator during the flood: %v", err)
			return
		}
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			pods, err := c.Client.CoreV1().Pods(nsB).List(ctx, metav1.ListOptions{LabelSelector: sim.LabelSimulator + "=during"})
			return err == nil && len(pods.Items) > 0, nil
		})
		if err != nil {
			t.Errorf("the reconcilers made no Pod for a simulator created during the flood: %v", err)
			return
		}
		reconciled = time.Since(start)
	})
	var during latencies
	for floodCtx.Err() == nil {
		start := time.Now()
		err := getB(floodCtx)
		if floodCtx.Err() != nil {
			break
		}
		during.add(time.Since(start))
		if err != nil {
			during.failed++
			during.lastErr = err
		}
	}
	stopFlood()
	wg.Wait()
	rssFlood := rss.max()

	t.Logf("flood: tenant A made %d lists and %d gets in %v with %d readers (%d failed; last: %v)",
		lists.Load(), gets.Load(), floodDuration, floodReaders, failures.Load(), lastFailure.Load())
	t.Logf("tenant B's GETs during the flood: %d, p50 %v, p99 %v, max %v (%d failed; last: %v)",
		len(during.d), during.quantile(0.5), during.quantile(0.99), during.quantile(1), during.failed, during.lastErr)
	t.Logf("the reconcilers made the Pod of a simulator created during the flood in %v", reconciled.Round(time.Millisecond))
	t.Logf("sim-apiserver RSS: max %d MiB during the flood, %d MiB throughout", rssFlood>>20, rss.overall()>>20)

	if got := rss.overall(); got >= floodRSSBudget {
		t.Errorf("sim-apiserver's RSS reached %d MiB, over the budget of %d MiB", got>>20, floodRSSBudget>>20)
	}
	if p99 := during.quantile(0.99); p99 >= floodGETBudget {
		t.Errorf("tenant B's GET p99 during the flood is %v, over the budget of %v", p99, floodGETBudget)
	}
	if during.failed > 0 {
		t.Errorf("%d of tenant B's GETs failed during the flood; last: %v", during.failed, during.lastErr)
	}
	if reconciled > floodReconcilerBudget {
		t.Errorf("the reconcilers took %v to make a simulator's Pod during the flood, over %v", reconciled, floodReconcilerBudget)
	}
}

// floodCluster starts a host with sim-apiserver of its own, with its
// default flags but the request timeout of the other tests.
func floodCluster(t *testing.T) *framework.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	c, err := framework.StartCluster(ctx, framework.Options{SimAPIServerArgs: []string{"--request-timeout=" + requestTimeout.String()}})
	if err != nil {
		t.Fatalf("starting the flood's host: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the flood's host logs:\n%s", c.LogTails(30))
		}
		c.Stop()
	})
	return c
}

// floodNamespace creates a namespace in c (c.Stop removes everything).
func floodNamespace(t *testing.T, c *framework.Cluster, prefix string) string {
	t.Helper()
	ns, err := c.Client.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// floodTenantNamespace creates a namespace where user is bound to the
// host's edit role (which aggregates sim-x-k8s-io:edit and :view).
func floodTenantNamespace(t *testing.T, c *framework.Cluster, prefix, user string) string {
	t.Helper()
	ns := floodNamespace(t, c, prefix)
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if _, err := c.Client.RbacV1().RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitForAccess(t, c, ns, user, authorizationv1.ResourceAttributes{Verb: "create", Group: sim.GroupName, Resource: "nodepools"})
	return ns
}

// floodClient is a client of user through the host, without a client-side
// rate limit: the server must hold its own.
func floodClient(t *testing.T, c *framework.Cluster, user string) simclientset.Interface {
	t.Helper()
	cfg, err := c.UserConfig(user)
	if err != nil {
		t.Fatal(err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	client, err := simclientset.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// largeNodePool is a NodePool of about floodPoolBytes as validation counts
// it (JSON of metadata but managedFields, and spec), with room for what the
// server adds (uid, creationTimestamp, generation, the spec's defaults).
func largeNodePool(t *testing.T, ns, name string) *v1alpha1.NodePool {
	t.Helper()
	const padKey = "flood.sim.x-k8s.io/pad"
	np := &v1alpha1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{padKey: ""}},
		Spec:       v1alpha1.NodePoolSpec{SimulatorName: "absent", Replicas: ptr.To[int32](0)},
	}
	meta, err := json.Marshal(&np.ObjectMeta)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := json.Marshal(&np.Spec)
	if err != nil {
		t.Fatal(err)
	}
	const serverAdds = 1 << 10
	np.Annotations[padKey] = strings.Repeat("p", floodPoolBytes-serverAdds-len(meta)-len(spec))
	return np
}

// createInParallel runs create(i) for i in [0, n) on workers goroutines.
func createInParallel(t *testing.T, workers, n int, create func(ctx context.Context, i int) error) {
	t.Helper()
	next := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := create(t.Context(), i); err != nil {
					errs <- fmt.Errorf("%d: %w", i, err)
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// latencies are the durations of a series of requests.
type latencies struct {
	d       []time.Duration
	failed  int
	lastErr error
}

func (l *latencies) add(d time.Duration) { l.d = append(l.d, d) }

// quantile is the q-quantile (nearest rank) of the durations.
func (l *latencies) quantile(q float64) time.Duration {
	if len(l.d) == 0 {
		return 0
	}
	s := slices.Clone(l.d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)].Round(time.Millisecond)
}

// floodLatencies times n calls of do; any failure fails the test.
func floodLatencies(t *testing.T, ctx context.Context, n int, do func(context.Context) error) *latencies {
	t.Helper()
	l := &latencies{}
	for range n {
		start := time.Now()
		if err := do(ctx); err != nil {
			t.Fatal(err)
		}
		l.add(time.Since(start))
	}
	return l
}

// rssSampler keeps the largest RSS of sim-apiserver, sampled every 100ms.
type rssSampler struct {
	mu         sync.Mutex
	since, all int64
}

func startRSSSampler(t *testing.T, c *framework.Cluster) *rssSampler {
	t.Helper()
	pid, err := c.ProcessPID("sim-apiserver")
	if err != nil {
		t.Fatal(err)
	}
	s := &rssSampler{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			if rss, err := framework.ProcessRSS(pid); err == nil {
				s.mu.Lock()
				s.since, s.all = max(s.since, rss), max(s.all, rss)
				s.mu.Unlock()
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s
}

// max is the largest RSS since the last reset.
func (s *rssSampler) max() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.since
}

// overall is the largest RSS since the sampler started.
func (s *rssSampler) overall() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all
}

func (s *rssSampler) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.since = 0
}

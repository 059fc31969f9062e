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

// Package framework starts a real host control plane (etcd, kube-apiserver,
// kube-controller-manager) on loopback, runs sim-apiserver next to it as a
// process and registers it with the host aggregator, for integration tests
// (Start) and for a person (StartCluster, used by `make run`). With
// Options.WithNode it adds kube-scheduler and a real node: a kubelet with its
// own containerd, its pods on a bridge the framework creates, running images
// built from this tree (e2e tests, `make run`); that needs root.
package framework

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	simclientset "sigs.k8s.io/simulator-apiserver/pkg/generated/clientset/versioned"
)

// Options configure StartCluster.
type Options struct {
	// Dir is the state directory (certificates, kubeconfigs, logs, etcd
	// data). Empty means a new temporary directory that Stop removes; a
	// given directory is created if needed and kept by Stop.
	Dir string
	// WithoutSimAPIServer starts only the host control plane.
	WithoutSimAPIServer bool
	// SimAPIServerArgs are extra flags for sim-apiserver.
	SimAPIServerArgs []string
	// KubeAPIServerArgs are extra flags for the host kube-apiserver.
	KubeAPIServerArgs []string
	// WithNode adds kube-scheduler and the local node (NodeName: kubelet,
	// containerd, kube-proxy), with the images of hack/build-images.sh
	// imported. kube-apiserver then serves
	// on NodeIP, which pods can reach. It needs root, changes the machine
	// (a bridge, iptables chains, sysctls; Stop undoes them, and the next
	// cluster with a node undoes them after a crash) and allows one such
	// cluster per machine at a time.
	WithNode bool
	// NodeImages are images of hack/build-images.sh the node imports
	// besides the sandbox and the simulator, e.g. "sim-apiserver" to deploy
	// it from artifacts/deploy.
	NodeImages []string
	// MachineLock, with WithNode, is the machine lock the caller holds
	// (LockMachine) and releases after Stop; nil makes the cluster take it
	// for its lifetime.
	MachineLock *MachineLock
}

// Cluster is a running host control plane, with sim-apiserver registered
// unless Options.WithoutSimAPIServer.
type Cluster struct {
	// Dir is the state directory.
	Dir string
	// Host is the URL of kube-apiserver.
	Host string
	// Config is an admin (system:masters) client config for kube-apiserver.
	Config *rest.Config
	// Client is a clientset for Config.
	Client kubernetes.Interface
	// Sims is a clientset of sim.x-k8s.io for Config.
	Sims simclientset.Interface
	// KubeconfigPath is a kubeconfig file for Config.
	KubeconfigPath string
	// SimAPIServerPort is the port sim-apiserver serves on, on 127.0.0.1.
	SimAPIServerPort int
	// NodeName is the local node with Options.WithNode, else empty.
	NodeName string
	// EtcdURL is the client URL of the host's etcd, for tests that act on
	// the host's storage itself (compaction).
	EtcdURL string

	clusterCA         *certificateAuthority // serving and client certificates of the host
	frontProxyCA      *certificateAuthority // requestheader client CA
	simCA             *certificateAuthority // sim-apiserver serving certificate, the APIService caBundle
	frontProxyClient  *keyPair
	serviceAccountKey string

	// bindIP is where kube-apiserver serves: loopback, or NodeIP with a node.
	bindIP string

	removeDir bool
	mu        sync.Mutex                  // guards processes: the node's runtime starts in the background
	processes []*process                  // in start order, for their logs
	stops     []func(ctx context.Context) // in start order; Stop runs them in reverse
	stopOnce  sync.Once
}

// StartCluster starts etcd, kube-apiserver, kube-controller-manager, with
// opts.WithNode kube-scheduler and the node, and, unless
// opts.WithoutSimAPIServer, sim-apiserver, and waits until the APIService
// v1alpha1.sim.x-k8s.io is Available and the host serves sim.x-k8s.io in
// discovery and OpenAPI v3. ctx bounds the start only; the processes run
// until Stop. On error everything started is stopped. Missing tool binaries
// make the error wrap ErrMissingBinary; a node when not root, ErrNeedsRoot.
func StartCluster(ctx context.Context, opts Options) (_ *Cluster, retErr error) {
	logger := klog.FromContext(ctx)
	start := time.Now()
	binDir, err := Binaries(ctx)
	if err != nil {
		return nil, err
	}
	binaries := map[string]string{}
	names := []string{etcdBinary, kubeAPIServerBinary, kubeControllerManagerBinary}
	if opts.WithNode {
		names = append(names, kubeSchedulerBinary, kubeletBinary, kubeProxyBinary)
	}
	for _, name := range names {
		path, err := findTool(binDir, name)
		if err != nil {
			return nil, err
		}
		binaries[name] = path
	}

	c, err := newCluster(opts.Dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if retErr != nil {
			c.Stop()
		}
	}()

	var simBinary string
	if !opts.WithoutSimAPIServer {
		if simBinary, err = findTool(binDir, simAPIServerBinary); err != nil {
			return nil, err
		}
	}
	var node *nodeSetup
	if opts.WithNode {
		if node, err = prepareNode(ctx, c, opts.MachineLock, binDir, simBinary, opts.NodeImages); err != nil {
			return nil, err
		}
		c.bindIP = NodeIP
		logger.V(1).Info("Node network is set up", "bridge", nodeBridge, "nodeIP", NodeIP, "elapsed", time.Since(start))
	}

	etcd, etcdURL, err := startEtcd(ctx, c, binaries[etcdBinary])
	if err := c.track(etcd, err); err != nil {
		return nil, err
	}
	c.EtcdURL = etcdURL
	logger.V(1).Info("etcd is healthy", "url", etcdURL, "elapsed", time.Since(start))

	apiserver, err := startKubeAPIServer(ctx, c, binaries[kubeAPIServerBinary], etcdURL, opts.KubeAPIServerArgs)
	if err := c.track(apiserver, err); err != nil {
		return nil, err
	}
	if err := writeKubeconfig(c.KubeconfigPath, c.Config); err != nil {
		return nil, err
	}
	logger.V(1).Info("kube-apiserver is ready", "host", c.Host, "elapsed", time.Since(start))

	kcm, err := startKubeControllerManager(ctx, c, binaries[kubeControllerManagerBinary], opts.WithNode)
	if err := c.track(kcm, err); err != nil {
		return nil, err
	}
	logger.V(1).Info("kube-controller-manager is working", "elapsed", time.Since(start))

	if opts.WithNode {
		if err := startNode(ctx, c, binaries, node); err != nil {
			return nil, err
		}
		logger.V(1).Info("Node is up", "node", c.NodeName, "elapsed", time.Since(start))
	}

	if !opts.WithoutSimAPIServer {
		sim, err := startSimAPIServer(ctx, c, simBinary, opts.SimAPIServerArgs)
		if err := c.track(sim, err); err != nil {
			return nil, err
		}
		if err := registerSimAPIServer(ctx, c, sim); err != nil {
			return nil, err
		}
		logger.V(1).Info("APIService is Available", "apiService", SimAPIService, "elapsed", time.Since(start))
		if err := waitForPublished(ctx, c, sim); err != nil {
			return nil, err
		}
		logger.V(1).Info("Host publishes discovery and OpenAPI v3", "apiService", SimAPIService, "elapsed", time.Since(start))
	}
	logger.Info("Host cluster started", "dir", c.Dir, "kubeconfig", c.KubeconfigPath, "elapsed", time.Since(start))
	return c, nil
}

func newCluster(dir string) (*Cluster, error) {
	c := &Cluster{Dir: dir, bindIP: "127.0.0.1"}
	var err error
	if dir == "" {
		if c.Dir, err = os.MkdirTemp("", "sim-cluster-"); err != nil {
			return nil, fmt.Errorf("creating state directory: %w", err)
		}
		c.removeDir = true
	} else if c.Dir, err = filepath.Abs(dir); err != nil {
		return nil, fmt.Errorf("state directory %s: %w", dir, err)
	}
	for _, d := range []string{c.pkiDir(), c.logDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s: %w", d, err)
		}
	}
	c.KubeconfigPath = filepath.Join(c.Dir, "kubeconfig")

	if c.clusterCA, err = newCA(c.pkiDir(), "ca", "sim-host-ca"); err != nil {
		return nil, err
	}
	if c.frontProxyCA, err = newCA(c.pkiDir(), "front-proxy-ca", "sim-front-proxy-ca"); err != nil {
		return nil, err
	}
	if c.simCA, err = newCA(c.pkiDir(), "sim-apiserver-ca", "sim-apiserver-ca"); err != nil {
		return nil, err
	}
	if c.serviceAccountKey, err = newServiceAccountKey(c.pkiDir()); err != nil {
		return nil, err
	}
	return c, nil
}

// track records a started process so that Stop stops it, and returns err.
// Stop stops whatever runs in its place then, after a restart (see
// restartProcess).
func (c *Cluster) track(p *process, err error) error {
	if p != nil {
		i := c.addProcess(p)
		c.onStop(func(ctx context.Context) { c.processAt(i).stop(ctx, stopTimeout) })
	}
	return err
}

// addProcess records a process for LogTails and returns its index.
func (c *Cluster) addProcess(p *process) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.processes = append(c.processes, p)
	return len(c.processes) - 1
}

func (c *Cluster) processAt(i int) *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.processes[i]
}

// onStop registers what Stop does to undo a step of the start; Stop runs
// them last registered first.
func (c *Cluster) onStop(f func(ctx context.Context)) { c.stops = append(c.stops, f) }

func (c *Cluster) pkiDir() string { return filepath.Join(c.Dir, "pki") }
func (c *Cluster) logDir() string { return filepath.Join(c.Dir, "logs") }

// Stop undoes the start in reverse order: it stops the processes
// (sim-apiserver, the kubelet, containerd after removing its containers,
// kube-scheduler, kube-controller-manager, kube-apiserver, etcd: SIGTERM,
// then SIGKILL after a timeout), then undoes the node's changes to the
// machine. It removes a temporary state directory. It is safe to call more
// than once.
func (c *Cluster) Stop() {
	c.stopOnce.Do(func() {
		ctx := context.Background()
		for i := len(c.stops) - 1; i >= 0; i-- {
			c.stops[i](ctx)
		}
		if c.removeDir {
			if err := os.RemoveAll(c.Dir); err != nil {
				klog.FromContext(ctx).Error(err, "Removing state directory", "dir", c.Dir)
			}
		}
	})
}

// LogTails returns the last lines of every process log, for failure reports.
func (c *Cluster) LogTails(lines int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, p := range c.processes {
		fmt.Fprintf(&b, "===== last %d lines of %s =====\n%s\n", lines, p.logPath, p.tail(lines))
	}
	return b.String()
}

// CACertPEM returns the CA of kube-apiserver's serving certificate and of
// client certificates.
func (c *Cluster) CACertPEM() []byte { return c.clusterCA.certPEM() }

// SimCACertPEM returns the CA of sim-apiserver's serving certificate.
func (c *Cluster) SimCACertPEM() []byte { return c.simCA.certPEM() }

// SimAPIServerURL is the URL sim-apiserver serves on directly, not through
// the aggregator.
func (c *Cluster) SimAPIServerURL() string { return loopbackURL("https", c.SimAPIServerPort) }

// UserConfig returns a client config for kube-apiserver authenticating as
// user in groups with a client certificate signed by the cluster's client CA.
func (c *Cluster) UserConfig(user string, groups ...string) (*rest.Config, error) {
	pair, err := c.clusterCA.issueClient(c.pkiDir(), "user-"+fileName(user), user, groups)
	if err != nil {
		return nil, err
	}
	return restConfig(c.Host, c.clusterCA.certPEM(), pair), nil
}

// UserKubeconfig writes a kubeconfig for user in groups (see UserConfig)
// into the state directory and returns its path.
func (c *Cluster) UserKubeconfig(user string, groups ...string) (string, error) {
	cfg, err := c.UserConfig(user, groups...)
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, "user-"+fileName(user)+".kubeconfig")
	if err := writeKubeconfig(path, cfg); err != nil {
		return "", err
	}
	return path, nil
}

// FrontProxyConfig returns a client config that talks to sim-apiserver
// directly the way the aggregator does: with the front-proxy client
// certificate and the user and groups in X-Remote-User/X-Remote-Group.
// Responses then come from sim-apiserver only.
func (c *Cluster) FrontProxyConfig(user string, groups ...string) *rest.Config {
	return c.frontProxyConfig(c.SimAPIServerURL(), user, groups)
}

func (c *Cluster) frontProxyConfig(url, user string, groups []string) *rest.Config {
	cfg := restConfig(url, c.simCA.certPEM(), c.frontProxyClient)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return &requestHeaderRoundTripper{user: user, groups: groups, next: rt}
	}
	return cfg
}

type requestHeaderRoundTripper struct {
	user   string
	groups []string
	next   http.RoundTripper
}

func (rt *requestHeaderRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("X-Remote-User", rt.user)
	for _, g := range rt.groups {
		req.Header.Add("X-Remote-Group", g)
	}
	return rt.next.RoundTrip(req)
}

// fileName makes a user name usable in a file name.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ':' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s)
}

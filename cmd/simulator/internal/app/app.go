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

// Package app runs the simulator: it supervises kube-apiserver,
// kube-scheduler and the kwok controller and serves the simulator API
// until its context ends.
package app

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/bootstrapseed"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/config"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/controlplane"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/etcdhttp"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/etcdprobe"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/etcdstore"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/reset"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/sandbox"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/scenario"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/schedconfig"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/server"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/snapshot"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/source"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/supervisor"
	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/termination"
)

// Run runs the simulator until ctx ends, then stops every child and
// returns nil; it returns an error if it cannot start or serve.
func Run(ctx context.Context, o *config.Options) error {
	logger := klog.FromContext(ctx)
	start := time.Now()
	if err := checkCredentials(o); err != nil {
		return err
	}
	bins, err := controlplane.FindBinaries(o.BinDir, o.SharedRuntime)
	if err != nil {
		return err
	}
	dataDir := o.DataDir
	if dataDir == "" {
		if dataDir, err = os.MkdirTemp("", "simulator-"); err != nil {
			return fmt.Errorf("creating a data directory: %w", err)
		}
		defer func() { _ = os.RemoveAll(dataDir) }()
	} else if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("creating the data directory: %w", err)
	}
	layout := controlplane.Layout{Dir: dataDir}
	if err := controlplane.WriteFiles(o, layout); err != nil {
		return err
	}

	// A configuration kube-scheduler would refuse fails the start, rather
	// than have kube-scheduler crash in a loop.
	var initial []byte
	if o.SchedulerConfigPath != "" {
		if initial, err = os.ReadFile(o.SchedulerConfigPath); err != nil {
			return fmt.Errorf("reading %s: %w", contract.EnvSchedulerConfigPath, err)
		}
	}
	// The components' kubeconfig: in a shared runtime, kube-apiserver
	// serves them within its process.
	componentsKubeconfig := layout.AdminKubeconfig()
	if o.SharedRuntime {
		componentsKubeconfig = layout.InProcessKubeconfig()
	}
	store := schedconfig.NewStore(layout.SchedulerConfig(), componentsKubeconfig, schedconfig.DryRun{Binary: bins.KubeScheduler})
	// The check (a dry start of kube-scheduler) runs while kube-apiserver
	// starts: only kube-scheduler needs its result, and done first it would
	// delay the whole start by a process start (issue 13, create → Available).
	configChecked := make(chan struct{})
	configFailed := make(chan error, 1)
	schedConfig := &schedulerConfig{store: store, initial: initial, setFile: layout.SchedulerConfigSet()}
	go func() {
		defer close(configChecked)
		if err := schedConfig.start(ctx); err != nil {
			configFailed <- fmt.Errorf("scheduler configuration %q: %w", o.SchedulerConfigPath, err)
		}
	}()

	restConfig := controlplane.AdminRESTConfig(o)
	client, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("creating the kube-apiserver client: %w", err)
	}
	metadataClient, err := metadata.NewForConfig(restConfig)
	if err != nil {
		return fmt.Errorf("creating the kube-apiserver metadata client: %w", err)
	}
	probeConfig := rest.CopyConfig(restConfig)
	probeConfig.Timeout = 5 * time.Second
	probeClient, err := kubernetes.NewForConfig(probeConfig)
	if err != nil {
		return fmt.Errorf("creating the kube-apiserver client: %w", err)
	}
	// The simulator CA: kube-scheduler's serving certificate is checked
	// against it, and the server's clients are authenticated with it.
	caPool, err := certutil.NewPool(o.Credential(contract.FileCACert))
	if err != nil {
		return fmt.Errorf("reading the CA: %w", err)
	}
	caClient := server.CAClient(caPool)
	// Asked by many (see server.Shared): at most fifty times a second, as
	// often as a waiting probe asks again (server.readyzRecheck), so that
	// its answer follows kube-apiserver's readiness closely (issue 13,
	// create → Available). Once the seed has written everything the
	// bootstrap hooks would create, their checks are left out: each sleeps
	// a second before its first look, and finds nothing to add.
	var seeded atomic.Bool
	leftOut := func() []string {
		if seeded.Load() {
			return bootstrapseed.Hooks
		}
		return nil
	}
	apiReady := server.Shared(server.ReadyzCheck(controlplane.KubeAPIServer, probeClient.Discovery().RESTClient(), leftOut), 20*time.Millisecond)
	schedulerHealthy := server.HealthCheck(controlplane.KubeScheduler,
		"https://"+net.JoinHostPort("127.0.0.1", strconv.Itoa(o.SchedulerPort))+"/healthz", caClient)
	// kwok and kube-controller-manager start once kube-apiserver is ready:
	// started earlier, they would sit in their client backoffs after it is,
	// and take CPU from it while it bootstraps.
	waitForAPIServer := func(ctx context.Context) error {
		return wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			return apiReady.Check(ctx) == nil, nil
		})
	}
	// kube-scheduler, which the simulator's readiness waits for, starts once
	// kube-apiserver serves (its admin certificate is authorized before the
	// bootstrap policy exists) and the configuration is checked: its own
	// start then overlaps kube-apiserver's post-start hooks (issue 13). A
	// refused configuration ends Run.
	waitForConfig := func(ctx context.Context) error {
		select {
		case <-configChecked:
		case <-ctx.Done():
			return ctx.Err()
		}
		if store.Effective() == nil {
			return errors.New("the scheduler configuration was refused")
		}
		return nil
	}
	waitForConfigAndAPIServing := func(ctx context.Context) error {
		if err := waitForConfig(ctx); err != nil {
			return err
		}
		return wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			return probeClient.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error() == nil, nil
		})
	}
	etcdListening := func(ctx context.Context) error { return etcdprobe.Listening(ctx, o) }
	waitForEtcdListening := func(ctx context.Context) error { return waitForEtcd(ctx, etcdListening, etcdStartWait) }
	// apiserver is the child kube-apiserver runs in; clients are the
	// others, which stop first.
	var apiserver *supervisor.Process
	var clients []*supervisor.Process
	// holdControllers stops kube-controller-manager until released: an
	// import holds it while it writes (snapshot.Config.HoldControllers).
	var holdControllers func(ctx context.Context) (context.Context, func(), error)
	if o.SharedRuntime {
		// One child: sim-scheduler starts in it with kube-apiserver, so
		// the configuration is checked first.
		apiserver = supervisor.New(controlplane.SharedRuntimeSpec(o, bins, layout), supervisor.Options{
			BeforeStart: func(ctx context.Context) error {
				if err := waitForConfig(ctx); err != nil {
					return err
				}
				return waitForEtcdListening(ctx)
			},
		})
		schedConfig.scheduler = hangup{apiserver}
		holdControllers = func(ctx context.Context) (context.Context, func(), error) {
			return controlplane.HoldOverSocket(ctx, layout.HoldSocket(), controlplane.KubeControllerManager)
		}
	} else {
		apiserver = supervisor.New(controlplane.KubeAPIServerSpec(o, bins.KubeAPIServer), supervisor.Options{BeforeStart: waitForEtcdListening})
		scheduler := supervisor.New(controlplane.KubeSchedulerSpec(o, bins.KubeScheduler, layout), supervisor.Options{BeforeStart: waitForConfigAndAPIServing})
		schedConfig.scheduler = scheduler
		controllers := supervisor.New(controlplane.KubeControllerManagerSpec(o, bins.KubeControllerManager, layout, componentsKubeconfig), supervisor.Options{BeforeStart: waitForAPIServer})
		// The child's supervisor is in this process: its hold ends only
		// at release.
		holdControllers = func(ctx context.Context) (context.Context, func(), error) {
			release, err := controllers.Hold(ctx)
			return ctx, release, err
		}
		clients = []*supervisor.Process{
			scheduler,
			supervisor.New(controlplane.KwokSpec(o, bins.Kwok, layout, componentsKubeconfig), supervisor.Options{BeforeStart: waitForAPIServer}),
			controllers,
		}
	}
	children := append([]*supervisor.Process{apiserver}, clients...)
	var serverDone, clientsDone sync.WaitGroup

	origins, err := config.CompileOrigins(o.CORSAllowedOrigins)
	if err != nil {
		return err
	}
	// The mirror of the source, if any: it starts once kube-apiserver is
	// ready, and readiness does not wait for its copy (its progress is
	// its status, contract.PathSource).
	var src server.Source
	var mirrorSource func(ctx context.Context) error
	if o.Source != nil {
		m, err := newMirror(o, restConfig)
		if err != nil {
			return err
		}
		src = m
		mirrorSource = func(ctx context.Context) error {
			if err := waitForAPIServer(ctx); err != nil {
				return nil
			}
			return m.Run(ctx)
		}
	}
	granter := &sandbox.Granter{Client: client.RbacV1()}
	sandboxReady := server.Check{Name: "sandbox-rbac", Check: func(ctx context.Context) error {
		if err := apiReady.Check(ctx); err != nil {
			return err
		}
		return granter.Ensure(ctx)
	}}
	checks := []server.Check{apiReady, schedulerHealthy, sandboxReady}
	importer, err := newImporter(restConfig, filepath.Join(dataDir, "import"), schedConfig, holdControllers)
	if err != nil {
		return err
	}
	scenarios, err := newScenarioRunner(restConfig, layout.SchedulingResults())
	if err != nil {
		return err
	}
	hopToken, err := readHopToken(o)
	if err != nil {
		return err
	}
	var hop http.Handler
	if len(hopToken) > 0 {
		if hop, err = newHop(restConfig); err != nil {
			return err
		}
	}
	handler := server.NewHandler(server.Config{
		Checks:          checks,
		SchedulerConfig: schedConfig,
		Resetter:        &reset.Resetter{Discovery: client.Discovery(), Metadata: metadataClient, Client: client},
		Processes: func() []supervisor.Status {
			out := make([]supervisor.Status, 0, len(children))
			for _, c := range children {
				out = append(out, c.Status())
			}
			return out
		},
		AllowedOrigins:       origins,
		SchedulingResultsDir: layout.SchedulingResults(),
		Snapshotter:          snapshotter{client},
		Importer:             importer,
		Source:               src,
		Scenario:             scenarios,
		Hop:                  hop,
	})
	// The server is TLS with the inner apiserver's serving certificate, and
	// only the simulator's admin may use its API (server.AdminOnly): the Pod
	// is reachable by every Pod of the host that its NetworkPolicy admits.
	// A hosted simulator's admin comes through its hosting cluster's
	// pods/proxy, without a certificate, with the hop token instead; a token
	// that is wrong fails the request even beside a certificate.
	serving, err := tls.LoadX509KeyPair(o.Credential(contract.FileServingCert), o.Credential(contract.FileServingKey))
	if err != nil {
		return fmt.Errorf("loading the serving certificate: %w", err)
	}
	addr := net.JoinHostPort(o.BindAddress, strconv.Itoa(o.Port))
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler: server.Marked(server.AdminOnly(handler,
			union.NewFailOnError(server.HopTokenAuthenticator(hopToken), server.ClientCertAuthenticator(caPool)))),
		// A certificate is asked for, not required, so that the probes get
		// an answer and others a 401; the authenticator verifies the chain.
		TLSConfig: &tls.Config{
			MinVersion:   tls.VersionTLS12,
			Certificates: []tls.Certificate{serving},
			ClientAuth:   tls.RequestClientCert,
		},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}

	// Children stop in two waves: the apiserver's clients first, so that
	// the apiserver has no watches left to drain and exits at once.
	base := klog.NewContext(context.WithoutCancel(ctx), logger)
	clientsCtx, stopClients := context.WithCancel(base)
	serverCtx, stopServer := context.WithCancel(base)
	stopChildren := func() {
		stopClients()
		clientsDone.Wait()
		stopServer()
		serverDone.Wait()
	}
	defer stopChildren()
	serverDone.Go(func() { apiserver.Run(serverCtx) })
	go func() {
		if seedBootstrapObjects(ctx, o).Complete() {
			seeded.Store(true)
		}
	}()
	for _, c := range clients {
		clientsDone.Go(func() { c.Run(clientsCtx) })
	}
	// The sandbox's binding is made as soon as kube-apiserver serves (its
	// admin is authorized before the bootstrap policy exists), so that
	// readiness does not wait for one more write once kube-apiserver is
	// ready (issue 13, create → Available).
	clientsDone.Go(func() {
		_ = wait.PollUntilContextCancel(clientsCtx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			return granter.Ensure(ctx) == nil, nil
		})
	})
	// Imports are written once kube-apiserver is ready; one accepted
	// earlier waits.
	clientsDone.Go(func() {
		if waitForAPIServer(clientsCtx) == nil {
			importer.Run(clientsCtx)
		}
	})
	// Scenario runs start once kube-apiserver is ready; one accepted
	// earlier waits (its start time is the server's to choose).
	clientsDone.Go(func() {
		if waitForAPIServer(clientsCtx) == nil {
			scenarios.Run(clientsCtx)
		}
	})
	if mirrorSource != nil {
		clientsDone.Go(func() {
			if err := mirrorSource(clientsCtx); err != nil {
				logger.Error(err, "Mirroring the source")
			}
		})
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.ServeTLS(listener, "", "") }()
	go logWhenReady(ctx, start, checks, leftOut)
	etcdErr := make(chan error, 1)
	go func() {
		probe := func(ctx context.Context) error { return etcdprobe.Probe(ctx, o) }
		if err := watchEtcd(ctx, apiReady, probe, etcdGrace, etcdWatchInterval); err != nil {
			etcdErr <- err
		}
	}()
	logger.Info("Simulator started", "server", addr, "kubeAPIServer", restConfig.Host, "dataDir", dataDir)

	var runErr error
	select {
	case <-ctx.Done():
		logger.Info("Stopping")
	case runErr = <-serveErr:
		runErr = fmt.Errorf("serving on %s: %w", addr, runErr)
	case runErr = <-etcdErr:
		// Ending is how the reason reaches the Pod's status (the
		// termination message); the kubelet starts the container again.
		logger.Error(runErr, "Stopping: kube-apiserver cannot use etcd")
	case runErr = <-configFailed:
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error(err, "Shutting down the server")
	}
	stopChildren()
	logger.Info("Stopped")
	return runErr
}

func checkCredentials(o *config.Options) error {
	var errs []error
	for _, f := range []string{
		contract.FileCACert, contract.FileServingCert, contract.FileServingKey, contract.FileAdminCert,
		contract.FileAdminKey, contract.FileServiceAccountKey, contract.FileServiceAccountPub,
	} {
		if _, err := os.Stat(o.Credential(f)); err != nil {
			errs = append(errs, fmt.Errorf("credential %s: %w", f, err))
		}
	}
	return errors.Join(errs...)
}

// readHopToken reads the hop gate's token (contract.FileHopToken): none,
// and the gate refuses every request, when the credentials have no such
// file, as those of a simulator that is not hosted. A new token takes a
// restart, as new certificates do.
func readHopToken(o *config.Options) ([]byte, error) {
	token, err := os.ReadFile(o.Credential(contract.FileHopToken))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the hop token: %w", err)
	}
	return bytes.TrimSpace(token), nil
}

// newHop is the hop gate to the inner kube-apiserver of restConfig, as
// its admin.
func newHop(restConfig *rest.Config) (http.Handler, error) {
	target, err := url.Parse(restConfig.Host)
	if err != nil {
		return nil, fmt.Errorf("the hop gate's kube-apiserver %q: %w", restConfig.Host, err)
	}
	transport, err := server.HopTransport(restConfig)
	if err != nil {
		return nil, err
	}
	return server.HopProxy(target, transport), nil
}

// seedBootstrapObjects stores what kube-apiserver's bootstrap hooks create
// into its etcd while it starts (see bootstrapseed). Past seedWindow the
// hooks have done the work themselves; a simulator that cannot seed starts
// as without, its readiness waiting for the hooks.
func seedBootstrapObjects(ctx context.Context, o *config.Options) bootstrapseed.Result {
	logger := klog.FromContext(ctx)
	client, err := etcdhttp.NewClient(o)
	if err != nil {
		logger.Info("Not seeding the bootstrap objects", "err", err)
		return bootstrapseed.Result{}
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, seedWindow)
	defer cancel()
	start := time.Now()
	r, err := bootstrapseed.Seed(ctx, client, o.EtcdPrefix)
	if err != nil {
		logger.Info("Not seeding the bootstrap objects", "objects", r.Written, "err", err)
		return r
	}
	logger.V(2).Info("Seeded the bootstrap objects", "objects", r.Written, "of", r.Total, "duration", time.Since(start))
	return r
}

// seedWindow bounds the seeding: kube-apiserver's hook starts a second
// after it serves.
const seedWindow = 10 * time.Second

// etcdGrace is how long kube-apiserver may be not ready before etcd is
// probed: longer than kube-apiserver's own etcd dial timeout (20 s) and
// than a loaded node may take to start the Pod's etcd container.
const etcdGrace = 30 * time.Second

// etcdWatchInterval is how often watchEtcd asks kube-apiserver's /readyz,
// which reads from etcd each time: an idle simulator's own requests are
// most of what its kube-apiserver and etcd do (issue 37, idle CPU), and a
// third of the grace is soon enough to notice.
const etcdWatchInterval = 10 * time.Second

// watchEtcd checks kube-apiserver every interval and returns an
// EtcdUnavailable error once it has not been ready for grace and probe says
// why: etcd does not answer or refuses us. It returns nil when ctx ends.
func watchEtcd(ctx context.Context, apiReady server.Check, probe func(context.Context) error, grace, interval time.Duration) error {
	notReadySince := time.Now()
	var reason error
	_ = wait.PollUntilContextCancel(ctx, interval, false, func(ctx context.Context) (bool, error) {
		if apiReady.Check(ctx) == nil {
			notReadySince = time.Now()
			return false, nil
		}
		if time.Since(notReadySince) < grace {
			return false, nil
		}
		if err := probe(ctx); err != nil && ctx.Err() == nil {
			reason = &termination.Error{Reason: contract.ReasonEtcdUnavailable, Err: fmt.Errorf(
				"kube-apiserver has not been ready for %s and its etcd cannot be used: %w", time.Since(notReadySince).Round(time.Second), err)}
			return true, nil
		}
		return false, nil
	})
	return reason
}

// etcdStartWait bounds how long kube-apiserver's start waits for etcd to
// listen: past it, kube-apiserver starts anyway and says in its own log
// what it finds wrong with etcd (watchEtcd then decides).
const etcdStartWait = 10 * time.Second

// waitForEtcd returns once probe passes, or after at most limit. A
// kube-apiserver started before etcd listens fails its first dial at once,
// and its etcd client (gRPC) waits a reconnect backoff of about a second
// before the next, while its start stands still (issue 13: the etcd
// container started 0.49 s after the simulator's on the local node).
func waitForEtcd(ctx context.Context, probe func(context.Context) error, limit time.Duration) error {
	waitCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last error
	_ = wait.PollUntilContextCancel(waitCtx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		last = probe(ctx)
		return last == nil, nil
	})
	if err := ctx.Err(); err != nil {
		// The simulator stops: no start.
		return err
	}
	if last != nil {
		klog.FromContext(ctx).Info("Starting kube-apiserver before etcd listens", "waited", limit, "err", last)
	}
	return nil
}

// logWhenReady logs how long the simulator took to become ready, and which
// of kube-apiserver's checks its readiness left out.
func logWhenReady(ctx context.Context, start time.Time, checks []server.Check, leftOut func() []string) {
	err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, c := range checks {
			if c.Check(ctx) != nil {
				return false, nil
			}
		}
		return true, nil
	})
	if err == nil {
		klog.FromContext(ctx).Info("Simulator ready", "after", time.Since(start).Round(time.Millisecond), "kubeAPIServerChecksLeftOut", leftOut())
	}
}

// restarter restarts the scheduler.
type restarter interface{ Restart() }

// hangup restarts the scheduler of a shared runtime, which restarts it in
// its process on SIGHUP. A runtime not running reads the configuration
// when it starts.
type hangup struct{ p *supervisor.Process }

func (h hangup) Restart() { _ = h.p.Signal(syscall.SIGHUP) }

// schedulerConfig updates the scheduler configuration and restarts
// kube-scheduler with it.
type schedulerConfig struct {
	store     *schedconfig.Store
	scheduler restarter
	// initial is the simulator's own configuration (its spec's; nil for
	// the default), which Restore puts back.
	initial []byte
	// setFile keeps the configuration set through the API while it is in
	// effect, so that a restarted simulator runs it again.
	setFile string
	// custom says whether a configuration set through the API is in effect.
	custom atomic.Bool
}

// start makes the configuration the simulator last ran the one in effect:
// the one set through the API, kept in setFile, else its own.
func (s *schedulerConfig) start(ctx context.Context) error {
	set, err := os.ReadFile(s.setFile)
	switch {
	case err == nil:
		if _, err := s.store.Set(ctx, set); err == nil {
			s.custom.Store(true)
			klog.FromContext(ctx).Info("Running the scheduler configuration set through the API before the restart")
			return nil
		} else {
			// The same binary took it before: only a file damaged since.
			klog.FromContext(ctx).Error(err, "The scheduler configuration set through the API before the restart is refused now; running the simulator's own")
		}
		if err := os.Remove(s.setFile); err != nil {
			return fmt.Errorf("removing %s: %w", s.setFile, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("reading %s: %w", s.setFile, err)
	}
	_, err = s.store.Set(ctx, s.initial)
	return err
}

func (s *schedulerConfig) Effective() []byte { return s.store.Effective() }

func (s *schedulerConfig) Update(ctx context.Context, data []byte) ([]byte, error) {
	effective, err := s.store.Set(ctx, data)
	if err != nil {
		return nil, err
	}
	// Kept before kube-scheduler restarts with it: a simulator restarted
	// from here on runs what its API answered.
	if err := writeFileAtomic(s.setFile, data); err != nil {
		return nil, fmt.Errorf("keeping the configuration for a restart: %w", err)
	}
	s.custom.Store(true)
	s.scheduler.Restart()
	return effective, nil
}

func (s *schedulerConfig) Restore(ctx context.Context) (bool, error) {
	if !s.custom.Load() {
		return false, nil
	}
	if _, err := s.store.Set(ctx, s.initial); err != nil {
		return false, err
	}
	if err := os.Remove(s.setFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("removing %s: %w", s.setFile, err)
	}
	s.custom.Store(false)
	s.scheduler.Restart()
	return true, nil
}

// writeFileAtomic writes data to path through a rename, so that a crash
// leaves the old file or the new one, never half of one.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	_, err = tmp.Write(data)
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// copyClient is a client of the inner cluster, whose admin's configuration
// is inner, for copying objects in (the source mirror, the import). Its
// writes are protobuf and not rate limited: the copy's workers bound them,
// and the copy is to be fast.
func copyClient(inner *rest.Config, userAgent string) (kubernetes.Interface, error) {
	cfg := rest.CopyConfig(inner)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cfg.QPS, cfg.Burst = -1, 0
	cfg.UserAgent = userAgent
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the %s kube-apiserver client: %w", userAgent, err)
	}
	return client, nil
}

// newMirror returns the mirror of o.Source into the inner cluster, whose
// admin's configuration is inner.
func newMirror(o *config.Options, inner *rest.Config) (*source.Mirror, error) {
	client, err := copyClient(inner, "simulator-source-mirror")
	if err != nil {
		return nil, err
	}
	etcd, err := etcdhttp.NewClient(o)
	if err != nil {
		return nil, err
	}
	return source.New(source.Config{
		Source: o.Source,
		SourceConfig: func() (*rest.Config, error) {
			return source.RESTConfig(o.Source.Dir, o.Source.QPS, os.LookupEnv)
		},
		Inner: client,
		Store: &etcdstore.Store{Client: etcd.Bulk(), Prefix: o.EtcdPrefix},
	})
}

// newScenarioRunner returns the runner of scenarios in the inner cluster,
// whose admin's configuration is inner, reading the scheduler's results in
// resultsDir. Its writes are not rate limited, as a copy's: a trace
// replayed at 60× writes hundreds of objects a second, and the runner's
// workers bound them.
func newScenarioRunner(inner *rest.Config, resultsDir string) (*scenario.Runner, error) {
	const userAgent = "simulator-scenario"
	client, err := copyClient(inner, userAgent)
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(inner)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.UserAgent = userAgent
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the %s dynamic client: %w", userAgent, err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the %s discovery client: %w", userAgent, err)
	}
	return scenario.New(scenario.Config{
		Client:     client,
		Dynamic:    dyn,
		Mapper:     restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
		ResultsDir: resultsDir,
	}), nil
}

// snapshotter exports the inner cluster's scenario.
type snapshotter struct{ client kubernetes.Interface }

func (s snapshotter) Export(ctx context.Context, schedulerConfig []byte, w io.Writer) error {
	return snapshot.Export(ctx, s.client, schedulerConfig, w)
}

// newImporter returns the importer of scenarios into the inner cluster,
// keeping its documents in dir. A document's scheduler configuration is
// applied unless it is the one in effect already (an export's is): a
// resumed import does not restart the scheduler for nothing.
func newImporter(inner *rest.Config, dir string, sc server.SchedulerConfig, holdControllers func(context.Context) (context.Context, func(), error)) (*snapshot.Importer, error) {
	client, err := copyClient(inner, "simulator-import")
	if err != nil {
		return nil, err
	}
	return snapshot.New(snapshot.Config{
		Client:          client,
		Dir:             dir,
		HoldControllers: holdControllers,
		SchedulerConfig: func(ctx context.Context, data []byte) error {
			var doc, effective bytes.Buffer
			if json.Compact(&doc, data) == nil && json.Compact(&effective, sc.Effective()) == nil && bytes.Equal(doc.Bytes(), effective.Bytes()) {
				return nil
			}
			_, err := sc.Update(ctx, data)
			return err
		},
	})
}

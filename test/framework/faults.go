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
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
)

// Fault injection for fault tests: crash, restart and duplicate the
// processes of the cluster, which keeps working afterwards.

const (
	simAPIServerName  = "sim-apiserver"
	kubeAPIServerName = "kube-apiserver"
	kubeletName       = "kubelet"
)

// processNamed returns the index and the current process of a tracked
// process by name.
func (c *Cluster) processNamed(name string) (int, *process, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := slices.IndexFunc(c.processes, func(p *process) bool { return p.name == name })
	if i < 0 {
		return 0, nil, fmt.Errorf("the cluster runs no %s", name)
	}
	return i, c.processes[i], nil
}

// restartProcess stops a tracked process (SIGTERM, unless it has exited
// already) and starts it again in its place with the same command line.
func (c *Cluster) restartProcess(ctx context.Context, name string) (*process, error) {
	_, p, err := c.processNamed(name)
	if err != nil {
		return nil, err
	}
	p.stop(ctx, stopTimeout)
	return c.startAgain(ctx, name)
}

// startAgain starts an exited tracked process again in its place with the
// same command line.
func (c *Cluster) startAgain(ctx context.Context, name string) (*process, error) {
	i, p, err := c.processNamed(name)
	if err != nil {
		return nil, err
	}
	next, err := p.again(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.processes[i] = next
	c.mu.Unlock()
	return next, nil
}

// ProcessLogPath returns the log file of a process of the cluster, e.g.
// "sim-apiserver"; a restarted process appends to the same file.
func (c *Cluster) ProcessLogPath(name string) (string, error) {
	_, p, err := c.processNamed(name)
	if err != nil {
		return "", err
	}
	return p.logPath, nil
}

// KillSimAPIServer kills sim-apiserver with SIGKILL, as a crash would, and
// returns once it is gone. RestartSimAPIServer brings it back.
func (c *Cluster) KillSimAPIServer() error {
	_, p, err := c.processNamed(simAPIServerName)
	if err != nil {
		return err
	}
	p.kill()
	return nil
}

// RestartSimAPIServer stops sim-apiserver (SIGTERM) unless it has exited,
// starts it again with the same flags on the same port, and waits until it
// serves and the host finds its APIService Available again.
func (c *Cluster) RestartSimAPIServer(ctx context.Context) error {
	wait, err := c.StartSimAPIServerAgain(ctx)
	if err != nil {
		return err
	}
	return wait(ctx)
}

// StartSimAPIServerAgain restarts sim-apiserver as RestartSimAPIServer
// does but returns once the process has started, for tests of what it
// answers while it starts; wait waits as RestartSimAPIServer does.
func (c *Cluster) StartSimAPIServerAgain(ctx context.Context) (wait func(context.Context) error, err error) {
	p, err := c.restartProcess(ctx, simAPIServerName)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		if err := waitForSimAPIServer(ctx, c, p, c.SimAPIServerPort); err != nil {
			return err
		}
		client, err := aggregator.NewForConfig(c.Config)
		if err != nil {
			return err
		}
		return waitForAPIService(ctx, client, p)
	}, nil
}

// RestartKubeAPIServer stops kube-apiserver (SIGTERM), starts it again with
// the same flags on the same port, and waits until it is ready. Clients of
// the cluster (Config, Client) work again afterwards; nothing else is
// restarted.
func (c *Cluster) RestartKubeAPIServer(ctx context.Context) error {
	p, err := c.restartProcess(ctx, kubeAPIServerName)
	if err != nil {
		return err
	}
	return waitFor(ctx, p, time.Minute, func(ctx context.Context) (bool, error) {
		var status int
		c.Client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&status)
		return status == 200, nil
	})
}

// StopKubelet stops the node's kubelet (SIGTERM), as an upgrade or a
// restart of it does: the containers run on under containerd, and nothing
// reports their state until StartKubelet.
func (c *Cluster) StopKubelet(ctx context.Context) error {
	_, p, err := c.processNamed(kubeletName)
	if err != nil {
		return err
	}
	p.stop(ctx, stopTimeout)
	return nil
}

// StartKubelet starts the kubelet that StopKubelet stopped, with the same
// configuration, and waits until the node is Ready again.
func (c *Cluster) StartKubelet(ctx context.Context) error {
	p, err := c.startAgain(ctx, kubeletName)
	if err != nil {
		return err
	}
	return waitForNodeReady(ctx, c, p)
}

// SimAPIServerReplica is one more sim-apiserver next to the cluster's own,
// with the same flags but its own port, as a second replica of the
// Deployment would be. The host routes to the cluster's own; tests reach a
// replica directly (FrontProxyConfig), as the aggregator would.
type SimAPIServerReplica struct {
	// Port is the replica's port on 127.0.0.1.
	Port int
	// LogPath is the replica's log file.
	LogPath string

	c *Cluster
	p *process
}

// StartSimAPIServerReplica starts a replica of sim-apiserver named name
// (its log is logs/<name>.log), with extraArgs after the cluster's own
// (a flag given again overrides), and waits until it serves. Cluster.Stop
// stops it too.
func (c *Cluster) StartSimAPIServerReplica(ctx context.Context, name string, extraArgs ...string) (*SimAPIServerReplica, error) {
	_, main, err := c.processNamed(simAPIServerName)
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := slices.Clone(main.cmd.Args[1:])
	for i, a := range args {
		if strings.HasPrefix(a, "--secure-port=") {
			args[i] = "--secure-port=" + strconv.Itoa(port)
		}
	}
	args = append(args, extraArgs...)
	p, err := startCommand(ctx, name, filepath.Join(c.logDir(), name+".log"), main.cmd.Env, main.cmd.Path, args...)
	if err := c.track(p, err); err != nil {
		return nil, err
	}
	if err := waitForSimAPIServer(ctx, c, p, port); err != nil {
		p.stop(ctx, stopTimeout)
		return nil, err
	}
	return &SimAPIServerReplica{Port: port, LogPath: p.logPath, c: c, p: p}, nil
}

// FrontProxyConfig is Cluster.FrontProxyConfig for this replica.
func (r *SimAPIServerReplica) FrontProxyConfig(user string, groups ...string) *rest.Config {
	return r.c.frontProxyConfig(loopbackURL("https", r.Port), user, groups)
}

// Kill kills the replica with SIGKILL.
func (r *SimAPIServerReplica) Kill() { r.p.kill() }

// Stop stops the replica: SIGTERM, then SIGKILL after a timeout.
func (r *SimAPIServerReplica) Stop() { r.p.stop(context.Background(), stopTimeout) }

// ProcessPID returns the process id of a running process of the cluster,
// e.g. to show that a process was not restarted.
func (c *Cluster) ProcessPID(name string) (int, error) {
	_, p, err := c.processNamed(name)
	if err != nil {
		return 0, err
	}
	if exited, _ := p.exited(); exited {
		return 0, p.exitError()
	}
	return p.cmd.Process.Pid, nil
}

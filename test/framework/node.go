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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// The local node: a kubelet with its own containerd, its pods on a bridge
// the framework creates. One such node per machine (a lock ensures it).
const (
	// NodeName is the name of the local node.
	NodeName = "sim-node"
	// NodeIP is the node's address, on its bridge: kube-apiserver and the
	// kubelet serve on it, pods reach the host there.
	NodeIP = "10.213.57.1"
	// PodSubnet holds the pods' IPs, reachable from the host.
	PodSubnet = nodeSubnet

	nodeBridge     = "simbr0"
	nodeSubnet     = "10.213.57.0/24"
	nodeSubnetBits = "24"
	nodeReadyTime  = 2 * time.Minute
)

// ErrNeedsRoot is wrapped by the error StartCluster returns for a node when
// not running as root.
var ErrNeedsRoot = errors.New("a cluster with a node (containerd, kubelet, a bridge) must run as root")

// nodeSetup is the node between prepareNode and startNode.
type nodeSetup struct {
	dir  string // the node's state directory
	host *nodeHost

	// The runtime (images, containerd) starts in the background, next to
	// the control plane; runtimeDone is closed when it is up or failed.
	runtimeDone chan struct{}
	containerd  *process
	runtimeErr  error
}

// nodeTools are the commands of the node's packages the framework runs,
// SnapshotMachine included.
var nodeTools = []string{"containerd", "ctr", "runc", "ip", "iptables", "iptables-save", "ip6tables-save", "nft"}

// InstallNodePackages installs the Debian packages a node needs
// (hack/node/install-deps.sh; nothing to do once they are there) and checks
// their commands. StartCluster does it for a node; a test that compares the
// machine before and after a node does it before its first SnapshotMachine,
// as installing them changes the machine (an iptables ruleset appears).
func InstallNodePackages(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w (running as uid %d)", ErrNeedsRoot, os.Geteuid())
	}
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	if _, err := runCommand(ctx, filepath.Join(root, "hack", "node", "install-deps.sh")); err != nil {
		return fmt.Errorf("installing the node's packages: %w", err)
	}
	for _, tool := range nodeTools {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("the node needs %s: %w", tool, err)
		}
	}
	return nil
}

// prepareNode does what the node needs before the control plane starts:
// packages, the machine-wide lock and the record of the machine's state,
// then the bridge with the node address (kube-apiserver binds to it). Then
// it builds and imports the images into a new containerd in the background.
// Stop undoes it all.
func prepareNode(ctx context.Context, c *Cluster, machineLock *MachineLock, binDir, simAPIServer string, extraImages []string) (*nodeSetup, error) {
	if err := InstallNodePackages(ctx); err != nil {
		return nil, err
	}
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	n := &nodeSetup{dir: filepath.Join(c.Dir, "node"), runtimeDone: make(chan struct{})}
	if err := os.MkdirAll(n.dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", n.dir, err)
	}
	removeDir := ""
	if c.removeDir {
		removeDir = c.Dir
	}
	if n.host, err = acquireNodeHost(ctx, machineLock, n.dir, removeDir, containerdSocket(n.dir)); err != nil {
		return nil, err
	}
	c.onStop(n.host.tearDown)
	if err := setUpNodeNetwork(ctx, &n.host.record); err != nil {
		return nil, err
	}

	runtimeCtx, cancel := context.WithCancel(ctx)
	c.onStop(func(ctx context.Context) {
		cancel() // a failed start need not wait for the images
		<-n.runtimeDone
		if n.containerd == nil {
			return
		}
		// containerd leaves its containers running when it stops.
		n.removeContainers(ctx)
		n.containerd.stop(ctx, stopTimeout)
	})
	go func() {
		defer close(n.runtimeDone)
		n.runtimeErr = startRuntime(runtimeCtx, c, n, root, binDir, simAPIServer, append([]string{"pause", "simulator"}, extraImages...))
	}()
	return n, nil
}

// startRuntime builds the images, starts containerd and imports them.
func startRuntime(ctx context.Context, c *Cluster, n *nodeSetup, root, binDir, simAPIServer string, images []string) error {
	logger := klog.FromContext(ctx)
	start := time.Now()
	tarballs, err := buildImages(ctx, root, binDir, simAPIServer, images)
	if err != nil {
		return err
	}
	logger.V(1).Info("Node images are built", "images", tarballs, "elapsed", time.Since(start))
	containerd, err := startContainerd(ctx, c, n.dir)
	if containerd != nil {
		n.containerd = containerd
		c.addProcess(containerd)
	}
	if err != nil {
		return err
	}
	importStart := time.Now()
	if err := importImages(ctx, containerdSocket(n.dir), tarballs); err != nil {
		return err
	}
	logger.V(1).Info("containerd is up with the images imported", "import", time.Since(importStart), "elapsed", time.Since(start))
	return nil
}

// startNode starts kube-scheduler and, once the runtime is up, the kubelet,
// waits until the node is Ready and schedulable, then starts kube-proxy.
func startNode(ctx context.Context, c *Cluster, binaries map[string]string, n *nodeSetup) error {
	logger := klog.FromContext(ctx)
	start := time.Now()
	scheduler, err := startKubeScheduler(ctx, c, binaries[kubeSchedulerBinary])
	if err := c.track(scheduler, err); err != nil {
		return err
	}
	select {
	case <-n.runtimeDone:
	case <-ctx.Done():
		return fmt.Errorf("waiting for containerd: %w", ctx.Err())
	}
	if n.runtimeErr != nil {
		return n.runtimeErr
	}
	logger.V(1).Info("Runtime is up", "waited", time.Since(start))

	// Once the kubelet is stopped, the pods go, before the control plane
	// they may be talking to.
	c.onStop(n.removeContainers)

	kubelet, err := startKubelet(ctx, c, binaries[kubeletBinary], n.dir)
	if err := c.track(kubelet, err); err != nil {
		return err
	}
	if err := waitForNodeReady(ctx, c, kubelet); err != nil {
		return err
	}
	proxy, err := startKubeProxy(ctx, c, binaries[kubeProxyBinary], n.dir)
	if err := c.track(proxy, err); err != nil {
		return err
	}
	c.NodeName = NodeName
	logger.V(1).Info("Node is Ready", "node", NodeName, "elapsed", time.Since(start))
	return nil
}

// removeContainers kills and deletes the node's containers.
func (n *nodeSetup) removeContainers(ctx context.Context) {
	if err := removeTasks(ctx, containerdSocket(n.dir)); err != nil {
		klog.FromContext(ctx).Error(err, "Removing the node's containers")
	}
}

// waitForNodeReady waits until the node is Ready and has no taints (the
// node lifecycle controller removes not-ready once it is Ready).
func waitForNodeReady(ctx context.Context, c *Cluster, kubelet *process) error {
	var last string
	err := waitFor(ctx, kubelet, nodeReadyTime, func(ctx context.Context) (bool, error) {
		node, err := c.Client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				last = fmt.Sprintf("Ready=%s %s: %s; taints %v", cond.Status, cond.Reason, cond.Message, node.Spec.Taints)
				return cond.Status == corev1.ConditionTrue && len(node.Spec.Taints) == 0, nil
			}
		}
		last = "no Ready condition"
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for node %s to be Ready (%s): %w", NodeName, last, err)
	}
	return nil
}

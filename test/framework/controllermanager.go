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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// controllers are the kube-controller-manager controllers a host cluster
// without nodes needs: garbage collection, namespace deletion, service
// accounts with their tokens and kube-root-ca.crt, aggregated
// ClusterRoles (so that view/edit/admin pick up the sim.x-k8s.io rules),
// and ResourceQuota status (hard and used, which quota admission needs;
// it counts sim.x-k8s.io objects as it finds them through discovery).
var controllers = []string{
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"root-ca-certificate-publisher-controller",
	"clusterrole-aggregation-controller",
	"resourcequota-controller",
}

// nodeControllers are the controllers added for a cluster with a node: the
// node lifecycle (not-ready taint), pod GC, what Deployments and Services
// need, and what a claim needs: binding (a Pod waits for its claim to be
// Bound) and the protection finalizers' removal (kube-apiserver's admission
// adds them; without it a claim, and its namespace, would never go).
var nodeControllers = []string{
	"node-lifecycle-controller",
	"pod-garbage-collector-controller",
	"deployment-controller",
	"replicaset-controller",
	"endpointslice-controller",
	"persistentvolume-binder-controller",
	"persistentvolume-protection-controller",
	"persistentvolumeclaim-protection-controller",
}

// startKubeControllerManager starts kube-controller-manager and waits until
// the default ServiceAccount exists, i.e. its controllers work.
func startKubeControllerManager(ctx context.Context, c *Cluster, binary string, withNode bool) (*process, error) {
	enabled := controllers
	if withNode {
		enabled = append(slices.Clone(controllers), nodeControllers...)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	client, err := c.clusterCA.issueClient(c.pkiDir(), "kube-controller-manager", "system:kube-controller-manager", nil)
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(c.Dir, "kube-controller-manager.kubeconfig")
	if err := writeKubeconfig(kubeconfig, restConfig(c.Host, c.clusterCA.certPEM(), client)); err != nil {
		return nil, err
	}
	p, err := startProcess(ctx, "kube-controller-manager", c.logDir(), binary,
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--cert-dir="+filepath.Join(c.Dir, "kube-controller-manager"),
		"--controllers="+strings.Join(enabled, ","),
		// Each controller runs as its own service account, like kubeadm.
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+c.serviceAccountKey,
		"--root-ca-file="+c.clusterCA.certFile,
		"--leader-elect=false",
		"--v=2",
	)
	if err != nil {
		return nil, err
	}
	err = waitFor(ctx, p, time.Minute, func(ctx context.Context) (bool, error) {
		_, err := c.Client.CoreV1().ServiceAccounts(corev1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return p, fmt.Errorf("waiting for kube-controller-manager to create the default ServiceAccount: %w", err)
	}
	return p, nil
}

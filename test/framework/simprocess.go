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
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/pki"
)

// FreePorts returns n distinct ports free on 127.0.0.1 right now, e.g. for
// a simulator's spec ports when it runs as a host process.
func FreePorts(n int) ([]int, error) { return freePorts(n) }

// SimulatorProcess is a simulator's control plane (cmd/simulator and its
// etcd) running as host processes on loopback, in place of its Pod.
type SimulatorProcess struct {
	// Port is the simulator server's port on 127.0.0.1.
	Port      int
	processes []*process
}

// PIDs returns the process IDs of the simulator and of its etcd, if it runs
// one; the simulator's own children (kube-apiserver, ...) are theirs.
func (p *SimulatorProcess) PIDs() []int {
	pids := make([]int, 0, len(p.processes))
	for _, proc := range p.processes {
		pids = append(pids, proc.cmd.Process.Pid)
	}
	return pids
}

// Stop stops the simulator and its etcd.
func (p *SimulatorProcess) Stop() {
	for i := len(p.processes) - 1; i >= 0; i-- {
		p.processes[i].stop(context.Background(), stopTimeout)
	}
}

// Etcd is an etcd of a test's own, e.g. an external etcd for simulators.
type Etcd struct {
	URL     string
	process *process
}

// Stop stops the etcd.
func (e *Etcd) Stop() { e.process.stop(context.Background(), stopTimeout) }

// StartEtcd starts an etcd on loopback with its data and log under the
// cluster's directory.
func (c *Cluster) StartEtcd(ctx context.Context, name string) (*Etcd, error) {
	binDir, err := Binaries(ctx)
	if err != nil {
		return nil, err
	}
	binary, err := findTool(binDir, "etcd")
	if err != nil {
		return nil, err
	}
	p, url, err := startEtcdAt(ctx, name, filepath.Join(c.Dir, name), c.logDir(), binary)
	if err != nil {
		if p != nil {
			p.stop(ctx, stopTimeout)
		}
		return nil, err
	}
	return &Etcd{URL: url, process: p}, nil
}

// RunSimulatorAsProcess stands in for the kubelet in a cluster without a
// node: it runs the simulator's current Pod as host processes on 127.0.0.1
// (with an etcd of its own unless spec.etcdURL names one) with the
// credentials the reconciler made, waits until it is ready, and then
// marks the Pod bound, Running and Ready at Pod IP 127.0.0.1. The simulator's
// spec ports must be free on 127.0.0.1 (see FreePorts).
func (c *Cluster) RunSimulatorAsProcess(ctx context.Context, namespace, name string) (*SimulatorProcess, error) {
	p, run, err := c.startSimulatorProcess(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	// The simulator server is TLS with the simulator's serving certificate.
	readyz := fmt.Sprintf("https://127.0.0.1:%d/readyz", p.Port)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(run.secret.Data[contract.FileCACert])
	err = waitFor(ctx, run.proc, 90*time.Second, func(ctx context.Context) (bool, error) {
		return httpOK(ctx, readyz, pool), nil
	})
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("waiting for simulator %s/%s to be ready: %w", namespace, name, err)
	}
	if err := c.markPodRunning(ctx, run.pod); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

// RunFailingSimulatorAsProcess runs the simulator's current Pod as host
// processes like RunSimulatorAsProcess, for a simulator that is to end
// before it is ready: it waits (up to timeout) for it to exit and then plays
// kubelet as for a container that failed: the Pod is Running and not Ready,
// its simulator container waits in CrashLoopBackOff, and its last
// termination carries the exit code and the termination message the
// simulator wrote. It returns the termination message.
func (c *Cluster) RunFailingSimulatorAsProcess(ctx context.Context, namespace, name string, timeout time.Duration) (string, error) {
	p, run, err := c.startSimulatorProcess(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	defer p.Stop()
	select {
	case <-run.proc.done:
	case <-time.After(timeout):
		return "", fmt.Errorf("simulator %s/%s still runs after %s; last lines of %s:\n%s", namespace, name, timeout, run.proc.logPath, run.proc.tail(30))
	case <-ctx.Done():
		return "", ctx.Err()
	}
	data, err := os.ReadFile(run.terminationLog)
	if err != nil {
		return "", err
	}
	message := string(data)
	exitCode := int32(run.proc.cmd.ProcessState.ExitCode())
	if err := c.markPodCrashLooping(ctx, run.pod, exitCode, message); err != nil {
		return "", err
	}
	return message, nil
}

// simulatorRun is what startSimulatorProcess started.
type simulatorRun struct {
	proc           *process
	pod            *corev1.Pod
	secret         *corev1.Secret
	terminationLog string
}

// startSimulatorProcess starts the simulator's current Pod as host
// processes (its own etcd unless spec.etcdURL names one) with the
// credentials the reconciler made, a termination message file as the
// kubelet makes one, and does not wait.
func (c *Cluster) startSimulatorProcess(ctx context.Context, namespace, name string) (*SimulatorProcess, *simulatorRun, error) {
	s, err := c.Sims.SimV1alpha1().Simulators(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	binDir, err := Binaries(ctx)
	if err != nil {
		return nil, nil, err
	}
	binaries := map[string]string{}
	for _, b := range []string{"etcd", "simulator", "sim-control-plane", "kube-apiserver", "sim-scheduler", "kube-controller-manager", "kwok"} {
		if binaries[b], err = findTool(binDir, b); err != nil {
			return nil, nil, err
		}
	}
	dir := filepath.Join(c.Dir, "simulators", namespace+"-"+name)
	credsDir := filepath.Join(dir, "credentials")
	if err := os.MkdirAll(credsDir, 0o700); err != nil {
		return nil, nil, err
	}

	var secret *corev1.Secret
	var pod *corev1.Pod
	podName := sim.SimulatorPodName(name, s.Generation)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		secret, err = c.Client.CoreV1().Secrets(namespace).Get(ctx, sim.SimulatorSecretName(name), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		pod, err = c.Client.CoreV1().Pods(namespace).Get(ctx, podName, metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("waiting for the credentials and Pod %s of simulator %s/%s: %w", podName, namespace, name, err)
	}
	if err := writeSecretVolume(credsDir, secret.Data); err != nil {
		return nil, nil, err
	}

	p := &SimulatorProcess{}
	logDir := c.logDir()
	// The Pod's own etcd, unless the spec names one.
	etcdURL := s.Spec.EtcdURL
	if etcdURL == "" {
		etcd, url, err := startEtcdAt(ctx, "etcd-"+namespace+"-"+name, filepath.Join(dir, "etcd"), logDir, binaries["etcd"])
		if etcd != nil {
			p.processes = append(p.processes, etcd)
		}
		if err != nil {
			p.Stop()
			return nil, nil, err
		}
		etcdURL = url
	}
	// The Pod's etcd-tls volume: the Secret of spec.etcdTLSSecretName.
	etcdTLSDir := ""
	if name := s.Spec.EtcdTLSSecretName; name != "" {
		etcdTLSDir = filepath.Join(dir, "etcd-tls")
		tlsSecret, err := c.Client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			err = writeSecretVolume(etcdTLSDir, tlsSecret.Data)
		}
		if err != nil {
			p.Stop()
			return nil, nil, fmt.Errorf("the etcd client certificate of simulator %s/%s: %w", namespace, name, err)
		}
	}
	// The Pod's source volume: the Secret of spec.source.secretName.
	var source *contract.Source
	if src := s.Spec.Source; src != nil {
		sourceDir := filepath.Join(dir, "source")
		sourceSecret, err := c.Client.CoreV1().Secrets(namespace).Get(ctx, src.SecretName, metav1.GetOptions{})
		if err == nil {
			err = writeSecretVolume(sourceDir, sourceSecret.Data)
		}
		if err != nil {
			p.Stop()
			return nil, nil, fmt.Errorf("the source Secret of simulator %s/%s: %w", namespace, name, err)
		}
		source = backing.Source(src)
		source.Dir = sourceDir
	}
	// The spec's ports were free when the test chose them, and are no
	// longer held: the scheduler's and kwok's must not be them.
	ports, err := freePorts(2, int(s.Spec.SimulatorServerPort), int(s.Spec.KubeAPIServerPort))
	if err != nil {
		p.Stop()
		return nil, nil, err
	}
	p.Port = int(s.Spec.SimulatorServerPort)
	// The kubelet makes the termination message file, empty, for each run.
	terminationLog := filepath.Join(dir, "termination-log")
	if err := os.WriteFile(terminationLog, nil, 0o666); err != nil {
		p.Stop()
		return nil, nil, err
	}
	env := contract.Environment{
		KubeAPIPort:            int(s.Spec.KubeAPIServerPort),
		Port:                   p.Port,
		EtcdURL:                etcdURL,
		CredentialsDir:         credsDir,
		EtcdPrefix:             backing.EtcdPrefix(s),
		EtcdTLSDir:             etcdTLSDir, // left out when empty
		BinDir:                 binDir,
		DataDir:                filepath.Join(dir, "data"),
		SchedulerPort:          ports[0],
		KwokPort:               ports[1],
		BindAddress:            "127.0.0.1",
		AdvertiseAddress:       "127.0.0.1",
		TerminationMessagePath: terminationLog,
		Source:                 source,
	}
	vars := env.Strings()
	// The kubelet names the host's kubernetes Service to every container,
	// whatever enableServiceLinks says: here, the host apiserver itself.
	host, err := url.Parse(c.Host)
	if err != nil {
		p.Stop()
		return nil, nil, err
	}
	vars = append(vars, "KUBERNETES_SERVICE_HOST="+host.Hostname(), "KUBERNETES_SERVICE_PORT="+host.Port())
	proc, err := startProcessWithVars(ctx, "simulator-"+namespace+"-"+name, logDir, vars, binaries["simulator"])
	if proc != nil {
		p.processes = append(p.processes, proc)
	}
	if err != nil {
		p.Stop()
		return nil, nil, err
	}
	return p, &simulatorRun{proc: proc, pod: pod, secret: secret, terminationLog: terminationLog}, nil
}

// bindToHostProcesses plays scheduler for a Pod run as host processes and
// returns the bound Pod.
func (c *Cluster) bindToHostProcesses(ctx context.Context, pod *corev1.Pod) (*corev1.Pod, error) {
	pods := c.Client.CoreV1().Pods(pod.Namespace)
	if pod.Spec.NodeName == "" {
		if err := pods.Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Name: pod.Name},
			Target:     corev1.ObjectReference{Kind: "Node", Name: "host-processes"},
		}, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("binding %s: %w", pod.Name, err)
		}
	}
	return pods.Get(ctx, pod.Name, metav1.GetOptions{})
}

// markPodRunning plays scheduler and kubelet for a Pod run as host processes.
func (c *Cluster) markPodRunning(ctx context.Context, pod *corev1.Pod) error {
	return c.markPod(ctx, pod, "running", func(current *corev1.Pod) {
		now := metav1.Now()
		current.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
		}
	})
}

// markPod binds a Pod run as host processes and writes its status as the
// kubelet would: Running at Pod IP 127.0.0.1, with what set adds; state
// names it in errors.
func (c *Cluster) markPod(ctx context.Context, pod *corev1.Pod, state string, set func(current *corev1.Pod)) error {
	current, err := c.bindToHostProcesses(ctx, pod)
	if err != nil {
		return err
	}
	current.Status.Phase = corev1.PodRunning
	current.Status.PodIP = "127.0.0.1"
	current.Status.PodIPs = []corev1.PodIP{{IP: "127.0.0.1"}}
	set(current)
	if _, err := c.Client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, current, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("marking %s %s: %w", pod.Name, state, err)
	}
	return nil
}

// markPodCrashLooping plays scheduler and kubelet for a Pod whose
// simulator container ended with exitCode and message and waits to be
// started again.
func (c *Cluster) markPodCrashLooping(ctx context.Context, pod *corev1.Pod, exitCode int32, message string) error {
	return c.markPod(ctx, pod, "crash looping", func(current *corev1.Pod) {
		now := metav1.Now()
		current.Status.Conditions = []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: current.CreationTimestamp},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: current.CreationTimestamp},
		}
		current.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name:         contract.SimulatorContainer,
			Image:        backing.Container(&current.Spec, contract.SimulatorContainer).Image,
			RestartCount: 1,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason:  "CrashLoopBackOff",
				Message: fmt.Sprintf("back-off 10s restarting failed container=%s pod=%s_%s(%s)", contract.SimulatorContainer, pod.Name, pod.Namespace, pod.UID),
			}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: exitCode, Reason: "Error", Message: message, FinishedAt: now,
			}},
		}}
	})
}

func httpOK(ctx context.Context, url string, roots *x509.CertPool) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}}}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// EtcdClientCert is a client certificate of a TLS etcd, PEM encoded, as a
// kubernetes.io/tls Secret holds it (tls.crt, tls.key, ca.crt).
type EtcdClientCert struct {
	CA, Cert, Key []byte
}

// StartTLSEtcd starts an etcd like StartEtcd that serves https and requires
// a client certificate signed by its CA (--client-cert-auth), and returns
// one.
func (c *Cluster) StartTLSEtcd(ctx context.Context, name string) (*Etcd, EtcdClientCert, error) {
	binDir, err := Binaries(ctx)
	if err != nil {
		return nil, EtcdClientCert{}, err
	}
	binary, err := findTool(binDir, "etcd")
	if err != nil {
		return nil, EtcdClientCert{}, err
	}
	dir := filepath.Join(c.Dir, name)
	ca, err := pki.NewCA(name + "-ca")
	if err != nil {
		return nil, EtcdClientCert{}, err
	}
	caPair, err := ca.PEM()
	if err != nil {
		return nil, EtcdClientCert{}, err
	}
	serving, err := ca.IssueServing([]string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")}, 24*time.Hour)
	if err != nil {
		return nil, EtcdClientCert{}, err
	}
	client, err := ca.IssueClient("simulator", nil, 24*time.Hour)
	if err != nil {
		return nil, EtcdClientCert{}, err
	}
	files := map[string][]byte{"ca.crt": caPair.CertPEM, "server.crt": serving.CertPEM, "server.key": serving.KeyPEM}
	if err := os.MkdirAll(filepath.Join(dir, "pki"), 0o700); err != nil {
		return nil, EtcdClientCert{}, err
	}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, "pki", f), data, 0o600); err != nil {
			return nil, EtcdClientCert{}, err
		}
	}
	cert := EtcdClientCert{CA: caPair.CertPEM, Cert: client.CertPEM, Key: client.KeyPEM}
	pair, err := tls.X509KeyPair(cert.Cert, cert.Key)
	if err != nil {
		return nil, EtcdClientCert{}, err
	}
	tlsConfig := &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{pair}}
	p, url, err := startEtcdWith(ctx, name, filepath.Join(dir, "data"), c.logDir(), binary, "https", tlsConfig,
		"--cert-file="+filepath.Join(dir, "pki", "server.crt"),
		"--key-file="+filepath.Join(dir, "pki", "server.key"),
		"--trusted-ca-file="+filepath.Join(dir, "pki", "ca.crt"),
		"--client-cert-auth=true")
	if err != nil {
		if p != nil {
			p.stop(ctx, stopTimeout)
		}
		return nil, EtcdClientCert{}, err
	}
	return &Etcd{URL: url, process: p}, cert, nil
}

// writeSecretVolume writes a Secret's data as the files of dir, readable by
// their owner only, as the kubelet mounts a Secret volume into a Pod.
func writeSecretVolume(dir string, data map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, value := range data {
		if err := os.WriteFile(filepath.Join(dir, name), value, 0o600); err != nil {
			return err
		}
	}
	return nil
}

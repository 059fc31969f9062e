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

package simulator_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/test/framework"
)

// Binaries of `make tools` the simulator runs, and etcd for the test.
var toolBinaries = []string{"etcd", "kube-apiserver", "sim-scheduler", "kube-controller-manager", "kwok"}

var (
	buildOnce    sync.Once
	buildDir     string
	simulatorBin string
	buildErr     error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// repoRoot is the directory of go.mod.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// binDir returns _output/bin, skipping the test (failing it in CI) when a
// binary is missing.
func binDir(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(repoRoot(tb), "_output", "bin")
	for _, b := range toolBinaries {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			if os.Getenv("CI") == "true" {
				tb.Fatalf("%s is missing: run make tools", filepath.Join(dir, b))
			}
			tb.Skip("run make tools")
		}
	}
	return dir
}

// buildSimulator builds cmd/simulator once per test binary.
func buildSimulator(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "simulator-test-bin-"); buildErr != nil {
			return
		}
		simulatorBin = filepath.Join(buildDir, "simulator")
		cmd := exec.Command("go", "build", "-o", simulatorBin, "./cmd/simulator")
		cmd.Dir = repoRoot(tb)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/simulator: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return simulatorBin
}

// freePorts returns n distinct free loopback ports.
func freePorts(tb testing.TB, n int) []int {
	tb.Helper()
	ports, err := framework.FreePorts(n)
	if err != nil {
		tb.Fatal(err)
	}
	return ports
}

// proc is a process started by the test and stopped at cleanup.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
}

// startProc starts bin with its output in logDir/name.log and stops it at
// cleanup. The log's tail is printed if the test failed, all of it with
// SIMULATOR_TEST_LOGS=true.
func startProc(tb testing.TB, name, logDir string, env []string, bin string, args ...string) *proc {
	tb.Helper()
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		tb.Fatalf("starting %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	tb.Cleanup(func() {
		p.stop(tb, time.Minute)
		switch {
		case os.Getenv("SIMULATOR_TEST_LOGS") == "true":
			tb.Logf("log of %s:\n%s", name, p.tail(math.MaxInt))
		case tb.Failed():
			tb.Logf("last lines of %s:\n%s", logPath, p.tail(200))
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitExit waits for the process to exit and fails the test, with its
// log's tail, if it has not within timeout (a hang, however loaded the
// machine).
func (p *proc) waitExit(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		tb.Fatalf("%s did not exit within %v; last lines of its log:\n%s", p.name, timeout, p.tail(30))
	}
}

// stop sends SIGTERM, then SIGKILL after timeout, and waits.
func (p *proc) stop(tb testing.TB, timeout time.Duration) {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		tb.Errorf("%s did not stop within %v of SIGTERM; killing it", p.name, timeout)
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *proc) tail(n int) string {
	data, _ := os.ReadFile(p.logPath)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// startEtcd runs a throwaway etcd on loopback and returns its client URL.
func startEtcd(tb testing.TB, bins, dir string) string {
	tb.Helper()
	_, client := startEtcdWith(tb, bins, dir, nil, "--unsafe-no-fsync=true")
	return client
}

// startEtcdWith runs an etcd on loopback with extra flags and environment,
// and returns it and its client URL once it is healthy.
func startEtcdWith(tb testing.TB, bins, dir string, env []string, extra ...string) (*proc, string) {
	tb.Helper()
	ports := freePorts(tb, 2)
	client := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peer := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	args := append([]string{
		"--name=etcd", "--data-dir=" + filepath.Join(dir, "etcd-data"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=etcd=" + peer, "--log-level=warn",
	}, extra...)
	p := startProc(tb, "etcd", dir, env, filepath.Join(bins, "etcd"), args...)
	waitFor(tb, 30*time.Second, "etcd to be healthy", func() (bool, error) {
		if p.exited() {
			return false, fmt.Errorf("etcd exited: %v\n%s", p.waitErr, p.tail(30))
		}
		resp, err := http.Get(client + "/health")
		if err != nil {
			return false, nil
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"health":"true"`)), nil
	})
	return p, client
}

// waitFor polls cond every 50ms until it is true, returns an error, or
// timeout passes.
func waitFor(tb testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			tb.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// credentials are the files of a simulator's credentials directory.
type credentials struct {
	dir                        string
	caPEM, adminCert, adminKey []byte
}

// writeCredentials writes the credentials the reconciler puts in a
// simulator's Secret (backing.Secret: CA, serving certificate for the
// Service names, localhost and 127.0.0.1, admin client certificate,
// service-account key pair) as the files of the credentials directory.
func writeCredentials(tb testing.TB, dir string) credentials {
	tb.Helper()
	secret, err := backing.Secret(&v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: "test"}})
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	for name, data := range secret.Data {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o400); err != nil {
			tb.Fatal(err)
		}
	}
	return credentials{
		dir:       dir,
		caPEM:     secret.Data[contract.FileCACert],
		adminCert: secret.Data[contract.FileAdminCert],
		adminKey:  secret.Data[contract.FileAdminKey],
	}
}

// simulator is a running cmd/simulator.
type simulator struct {
	*proc
	dir       string
	dataDir   string
	apiURL    string
	serverURL string
	creds     credentials
	started   time.Time
}

// startSimulator runs cmd/simulator against etcdURL with fresh credentials
// and free loopback ports.
func startSimulator(tb testing.TB, bins, etcdURL, etcdPrefix string, extraEnv ...string) *simulator {
	tb.Helper()
	bin := buildSimulator(tb)
	dir := tb.TempDir()
	creds := writeCredentials(tb, filepath.Join(dir, "credentials"))
	ports := freePorts(tb, 4)
	s := &simulator{
		dir:       dir,
		dataDir:   filepath.Join(dir, "data"),
		apiURL:    fmt.Sprintf("https://127.0.0.1:%d", ports[0]),
		serverURL: fmt.Sprintf("https://127.0.0.1:%d", ports[1]),
		creds:     creds,
	}
	env := append([]string{
		"KUBE_API_PORT=" + strconv.Itoa(ports[0]),
		"PORT=" + strconv.Itoa(ports[1]),
		"SIMULATOR_SCHEDULER_PORT=" + strconv.Itoa(ports[2]),
		"SIMULATOR_KWOK_PORT=" + strconv.Itoa(ports[3]),
		"KUBE_SCHEDULER_SIMULATOR_ETCD_URL=" + etcdURL,
		"SIMULATOR_ETCD_PREFIX=" + etcdPrefix,
		"SIMULATOR_CREDENTIALS_DIR=" + creds.dir,
		"SIMULATOR_BIN_DIR=" + bins,
		"SIMULATOR_DATA_DIR=" + s.dataDir,
		"SIMULATOR_BIND_ADDRESS=127.0.0.1",
		"CORS_ALLOWED_ORIGIN_LIST=http://localhost:3000",
	}, extraEnv...)
	s.started = time.Now()
	s.proc = startProc(tb, "simulator", dir, env, bin)
	return s
}

// serverClient is a client of the simulator server (TLS, the simulator
// CA's serving certificate), presenting cert if it is not nil.
func (s *simulator) serverClient(cert *tls.Certificate, timeout time.Duration) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.creds.caPEM)
	config := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}
	if cert != nil {
		config.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{TLSClientConfig: config}}
}

// adminCert is the simulator's admin client certificate, which the
// simulator server's API answers (sim-apiserver holds it).
func (s *simulator) adminCert(tb testing.TB) *tls.Certificate {
	tb.Helper()
	cert, err := tls.X509KeyPair(s.creds.adminCert, s.creds.adminKey)
	if err != nil {
		tb.Fatal(err)
	}
	return &cert
}

// do does a request to the simulator server as its admin.
func (s *simulator) do(tb testing.TB, method, path, body string) (int, string) {
	tb.Helper()
	return s.doAs(tb, s.adminCert(tb), method, path, body)
}

// doAs does a request to the simulator server with cert (none if nil).
func (s *simulator) doAs(tb testing.TB, cert *tls.Certificate, method, path, body string) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(method, s.serverURL+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := s.serverClient(cert, 60*time.Second).Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// readyzStatus is the status of GET /readyz, 0 if the server does not
// answer.
func (s *simulator) readyzStatus() int {
	resp, err := s.serverClient(nil, 5*time.Second).Get(s.serverURL + "/readyz")
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// waitReady waits for /readyz to answer 200 and returns how long after
// the simulator's start it did.
func (s *simulator) waitReady(tb testing.TB, timeout time.Duration) time.Duration {
	tb.Helper()
	waitFor(tb, timeout, "the simulator's /readyz", func() (bool, error) {
		if s.exited() {
			return false, fmt.Errorf("simulator exited: %v", s.waitErr)
		}
		return s.readyzStatus() == http.StatusOK, nil
	})
	return time.Since(s.started)
}

type processStatus struct {
	Name   string `json:"name"`
	PID    int    `json:"pid"`
	Starts int    `json:"starts"`
}

func (s *simulator) processes(tb testing.TB) map[string]processStatus {
	tb.Helper()
	status, body := s.do(tb, http.MethodGet, "/debug/processes", "")
	if status != http.StatusOK {
		tb.Fatalf("GET /debug/processes = %d %s", status, body)
	}
	var list []processStatus
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		tb.Fatal(err)
	}
	out := map[string]processStatus{}
	for _, p := range list {
		out[p.Name] = p
	}
	return out
}

// kill SIGKILLs the simulator's child process name and returns its status
// before, to compare with the restarted one's.
func (s *simulator) kill(tb testing.TB, name string) processStatus {
	tb.Helper()
	before := s.processes(tb)[name]
	if before.PID == 0 {
		tb.Fatalf("no %s PID", name)
	}
	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		tb.Fatal(err)
	}
	return before
}

// restConfig is an admin client config for the inner kube-apiserver.
func (s *simulator) restConfig() *rest.Config {
	return &rest.Config{
		Host: s.apiURL,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: s.creds.caPEM, CertData: s.creds.adminCert, KeyData: s.creds.adminKey,
		},
		QPS: 100, Burst: 200,
	}
}

func (s *simulator) client(tb testing.TB) kubernetes.Interface {
	tb.Helper()
	c, err := kubernetes.NewForConfig(s.restConfig())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// anonymousGet GETs path from the inner kube-apiserver without a client
// certificate, with an Origin header if origin is set.
func (s *simulator) anonymousGet(tb testing.TB, path, origin string) (int, http.Header) {
	tb.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.creds.caPEM)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequest(http.MethodGet, s.apiURL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// procStat reads state and ppid of a process.
func procStat(pid int) (state string, ppid int, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, err
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return "", 0, errors.New("short stat")
	}
	ppid, _ = strconv.Atoi(fields[1])
	return fields[0], ppid, nil
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	state, _, err := procStat(pid)
	return err == nil && state != "Z"
}

// treeMemory sums the memory of root and its descendants, by program (the
// base name of argv[0]: comm is cut at 15 characters).
func treeMemory(tb testing.TB, root int) (total framework.Memory, byName map[string]framework.Memory) {
	tb.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Fatal(err)
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, err := procStat(pid); err == nil {
			parent[pid] = ppid
		}
	}
	byName = map[string]framework.Memory{}
	for pid := range parent {
		for p := pid; p != 0; p = parent[p] {
			if p == root {
				if m, err := framework.ProcessMemory(pid); err == nil { // else exited meanwhile
					byName[programName(pid)] = byName[programName(pid)].Add(m)
					total = total.Add(m)
				}
				break
			}
			if _, ok := parent[p]; !ok {
				break
			}
		}
	}
	return total, byName
}

// programName is the base name of a process's argv[0].
func programName(pid int) string {
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return filepath.Base(string(argv0))
}

// processesMentioning lists live processes whose command line contains s.
func processesMentioning(tb testing.TB, s string) []string {
	tb.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !bytes.Contains(cmdline, []byte(s)) || !alive(pid) {
			continue
		}
		out = append(out, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return out
}

func ctxWithTimeout(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}

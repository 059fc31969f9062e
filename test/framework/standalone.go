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
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// simulatorBinary is cmd/simulator, the program of the simulator container.
const simulatorBinary = "simulator"

// StandaloneSimulator is cmd/simulator run by a test as a process of its
// own, without a host cluster: what the simulator container runs, against
// an etcd of the test's, on free loopback ports.
type StandaloneSimulator struct {
	*TestProcess

	// Dir holds its credentials, data and log.
	Dir string
	// DataDir is its SIMULATOR_DATA_DIR (kubeconfigs, configurations).
	DataDir string
	// APIURL is the inner kube-apiserver's; ServerURL the simulator
	// server's.
	APIURL, ServerURL string
	// Credentials are what its credentials directory holds.
	Credentials Credentials
	// Started is when it was started.
	Started time.Time

	env    []string
	binary string
}

// Credentials are the files of a simulator's credentials directory
// (contract.File*), as the reconciler's Secret holds them.
type Credentials struct {
	Dir string
	// CAPEM is the simulator CA's certificate; AdminCertPEM and
	// AdminKeyPEM the admin client certificate and key.
	CAPEM, AdminCertPEM, AdminKeyPEM []byte
}

// WriteCredentials writes fresh credentials of a simulator, as the
// reconciler makes them for its Secret (backing.Secret: CA, serving
// certificate for the Service's names, localhost and 127.0.0.1, admin
// client certificate, service-account key pair), as the files of dir.
func WriteCredentials(dir string) (Credentials, error) {
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: "test"}}
	secret, err := backing.Secret(s, backing.Local(s))
	if err != nil {
		return Credentials{}, err
	}
	if err := writeSecretVolume(dir, secret.Data); err != nil {
		return Credentials{}, err
	}
	return Credentials{
		Dir:          dir,
		CAPEM:        secret.Data[contract.FileCACert],
		AdminCertPEM: secret.Data[contract.FileAdminCert],
		AdminKeyPEM:  secret.Data[contract.FileAdminKey],
	}, nil
}

// StartStandaloneSimulator starts the simulator of RequireBinaries (its
// children from there too) with its data in etcdURL under etcdPrefix,
// fresh credentials (WriteCredentials) and free loopback ports, bound to
// 127.0.0.1 and allowing the CORS origin http://localhost:3000, in a
// directory of the test's, and does not wait for it to be ready. Its
// environment is the contract's (contract.Environment) with extraEnv
// (NAME=value, e.g. of another contract.Environment) after it: a variable
// set in both takes extraEnv's value. It is stopped at tb's cleanup like a
// StartTestProcess's.
func StartStandaloneSimulator(tb testing.TB, etcdURL, etcdPrefix string, extraEnv ...string) *StandaloneSimulator {
	tb.Helper()
	binDir := RequireBinaries(tb)
	binary := RequireBinary(tb, simulatorBinary)
	dir := tb.TempDir()
	creds, err := WriteCredentials(filepath.Join(dir, "credentials"))
	if err != nil {
		tb.Fatal(err)
	}
	ports, err := freePorts(4)
	if err != nil {
		tb.Fatal(err)
	}
	s := &StandaloneSimulator{
		Dir:         dir,
		DataDir:     filepath.Join(dir, "data"),
		APIURL:      loopbackURL("https", ports[0]),
		ServerURL:   loopbackURL("https", ports[1]),
		Credentials: creds,
	}
	env := contract.Environment{
		KubeAPIPort:        ports[0],
		Port:               ports[1],
		SchedulerPort:      ports[2],
		KwokPort:           ports[3],
		EtcdURL:            etcdURL,
		EtcdPrefix:         etcdPrefix,
		CredentialsDir:     creds.Dir,
		BinDir:             binDir,
		DataDir:            s.DataDir,
		BindAddress:        "127.0.0.1",
		CORSAllowedOrigins: []string{"http://localhost:3000"},
	}
	s.Started = time.Now()
	s.env, s.binary = append(env.Strings(), extraEnv...), binary
	s.TestProcess = StartTestProcess(tb, simulatorBinary, dir, s.env, binary)
	return s
}

// Restart stops the simulator and starts it again with the same
// environment, directories and ports, as the kubelet restarts a container
// of a Pod whose volumes stay: it does not wait for it to be ready.
func (s *StandaloneSimulator) Restart(tb testing.TB) {
	tb.Helper()
	s.Stop(tb, 30*time.Second)
	s.Started = time.Now()
	s.TestProcess = StartTestProcess(tb, simulatorBinary, s.Dir, s.env, s.binary)
}

// ServerClient is a client of the simulator server (TLS, the simulator
// CA's serving certificate) presenting cert, unless it is nil.
func (s *StandaloneSimulator) ServerClient(cert *tls.Certificate, timeout time.Duration) *http.Client {
	config := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: s.caPool()}
	if cert != nil {
		config.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{TLSClientConfig: config}}
}

func (s *StandaloneSimulator) caPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.Credentials.CAPEM)
	return pool
}

// AdminCert is the simulator's admin client certificate, the only one the
// simulator server's API answers (sim-apiserver holds it).
func (s *StandaloneSimulator) AdminCert(tb testing.TB) *tls.Certificate {
	tb.Helper()
	cert, err := tls.X509KeyPair(s.Credentials.AdminCertPEM, s.Credentials.AdminKeyPEM)
	if err != nil {
		tb.Fatal(err)
	}
	return &cert
}

// Do does a request to the simulator server as its admin and returns the
// answer's status and body.
func (s *StandaloneSimulator) Do(tb testing.TB, method, path, body string) (int, string) {
	tb.Helper()
	return s.DoAs(tb, s.AdminCert(tb), method, path, body)
}

// DoAs does a request to the simulator server presenting cert (none if
// nil), within 60s, and returns the answer's status and body.
func (s *StandaloneSimulator) DoAs(tb testing.TB, cert *tls.Certificate, method, path, body string) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(method, s.ServerURL+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := s.ServerClient(cert, 60*time.Second).Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// ReadyzStatus is the status of the simulator server's GET /readyz, 0 if
// it does not answer within 5s.
func (s *StandaloneSimulator) ReadyzStatus() int {
	resp, err := s.ServerClient(nil, 5*time.Second).Get(s.ServerURL + contract.PathReadyz)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// WaitReady waits up to timeout for /readyz to answer 200, failing the
// test if the simulator exits first, and returns how long after the
// simulator's start it did.
func (s *StandaloneSimulator) WaitReady(tb testing.TB, timeout time.Duration) time.Duration {
	tb.Helper()
	WaitUntil(tb, timeout, "the simulator's /readyz", func() (bool, error) {
		if s.Exited() {
			return false, fmt.Errorf("simulator exited: %v", s.Err())
		}
		return s.ReadyzStatus() == http.StatusOK, nil
	})
	return time.Since(s.Started)
}

// SupervisedProcess is a child of the simulator as its GET
// /debug/processes tells it.
type SupervisedProcess struct {
	Name string `json:"name"`
	// PID is the running child's; 0 when none runs.
	PID int `json:"pid"`
	// Starts counts its successful starts.
	Starts int `json:"starts"`
}

// Processes returns the simulator's children by name.
func (s *StandaloneSimulator) Processes(tb testing.TB) map[string]SupervisedProcess {
	tb.Helper()
	status, body := s.Do(tb, http.MethodGet, contract.PathProcesses, "")
	if status != http.StatusOK {
		tb.Fatalf("GET %s = %d %s", contract.PathProcesses, status, body)
	}
	var list []SupervisedProcess
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		tb.Fatal(err)
	}
	out := map[string]SupervisedProcess{}
	for _, p := range list {
		out[p.Name] = p
	}
	return out
}

// Kill sends SIGKILL to the simulator's child name, as a crash would, and
// returns what Processes said of it before, to compare with its successor.
func (s *StandaloneSimulator) Kill(tb testing.TB, name string) SupervisedProcess {
	tb.Helper()
	before := s.Processes(tb)[name]
	if before.PID == 0 {
		tb.Fatalf("no %s PID", name)
	}
	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		tb.Fatal(err)
	}
	return before
}

// RESTConfig is an admin client configuration of the inner kube-apiserver.
func (s *StandaloneSimulator) RESTConfig() *rest.Config {
	return &rest.Config{
		Host: s.APIURL,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: s.Credentials.CAPEM, CertData: s.Credentials.AdminCertPEM, KeyData: s.Credentials.AdminKeyPEM,
		},
		QPS: 100, Burst: 200,
	}
}

// Client is an admin client of the inner kube-apiserver (RESTConfig).
func (s *StandaloneSimulator) Client(tb testing.TB) kubernetes.Interface {
	tb.Helper()
	c, err := kubernetes.NewForConfig(s.RESTConfig())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// AnonymousGet GETs path from the inner kube-apiserver without a client
// certificate, with an Origin header unless origin is empty, and returns
// the answer's status and header.
func (s *StandaloneSimulator) AnonymousGet(tb testing.TB, path, origin string) (int, http.Header) {
	tb.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: s.caPool()}}}
	req, err := http.NewRequest(http.MethodGet, s.APIURL+path, nil)
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

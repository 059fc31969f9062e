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
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLogsEnv set to "true" prints the whole log of every TestProcess at
// its test's cleanup; otherwise only a failed test prints its logs' tails.
const TestLogsEnv = "SIMULATOR_TEST_LOGS"

// testStopTimeout is how long a TestProcess gets to exit after SIGTERM at
// its test's cleanup.
const testStopTimeout = time.Minute

// RequireBinaries returns the directory of the binaries (Binaries). When a
// pinned tool is missing or stale it skips the test, or fails it under
// CI=true (see Skippable); any other error fails it.
func RequireBinaries(tb testing.TB) string {
	tb.Helper()
	dir, err := Binaries(tb.Context())
	if Skippable(err) {
		tb.Skipf("%v", err)
	}
	if err != nil {
		tb.Fatalf("binaries: %v", err)
	}
	return dir
}

// RequireBinary returns the path of binary name of RequireBinaries,
// skipping or failing the test as it does when name is not there.
func RequireBinary(tb testing.TB, name string) string {
	tb.Helper()
	path, err := findTool(RequireBinaries(tb), name)
	if Skippable(err) {
		tb.Skipf("%v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestProcess is a process a test started (StartTestProcess): in its own
// process group, with its output in a log file, stopped at the test's
// cleanup.
type TestProcess struct {
	p *process
}

// StartTestProcess starts binary with args, with env (NAME=value) added to
// the test's environment and its output in logDir/<name>.log. At tb's
// cleanup it is stopped (SIGTERM to its process group, SIGKILL after a
// minute, which fails the test) and its log's last 200 lines are logged if
// the test failed, all of it with SIMULATOR_TEST_LOGS=true.
func StartTestProcess(tb testing.TB, name, logDir string, env []string, binary string, args ...string) *TestProcess {
	tb.Helper()
	p, err := startProcessWithVars(tb.Context(), name, logDir, env, binary, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return stopAtCleanup(tb, p)
}

// stopAtCleanup makes p a TestProcess of tb's: see StartTestProcess.
func stopAtCleanup(tb testing.TB, p *process) *TestProcess {
	tp := &TestProcess{p: p}
	tb.Cleanup(func() {
		tp.Stop(tb, testStopTimeout)
		switch {
		case os.Getenv(TestLogsEnv) == "true":
			tb.Logf("log of %s:\n%s", tp.Name(), tp.Tail(math.MaxInt))
		case tb.Failed():
			tb.Logf("last lines of %s:\n%s", tp.LogPath(), tp.Tail(200))
		}
	})
	return tp
}

// Name is the name the process was started with.
func (p *TestProcess) Name() string { return p.p.name }

// PID is the process's ID.
func (p *TestProcess) PID() int { return p.p.cmd.Process.Pid }

// LogPath is the file of the process's output.
func (p *TestProcess) LogPath() string { return p.p.logPath }

// Tail returns the last n lines of the process's log.
func (p *TestProcess) Tail(n int) string { return p.p.tail(n) }

// Exited reports whether the process has exited.
func (p *TestProcess) Exited() bool {
	exited, _ := p.p.exited()
	return exited
}

// Err is how the process exited (exec.Cmd.Wait's error: nil for exit code
// 0), nil while it runs.
func (p *TestProcess) Err() error {
	_, err := p.p.exited()
	return err
}

// Signal sends sig to the process alone, not to its group.
func (p *TestProcess) Signal(sig os.Signal) error { return p.p.cmd.Process.Signal(sig) }

// WaitExit waits for the process to exit and returns how it did (Err). It
// fails the test, with the log's tail, if the process has not exited
// within timeout (a hang, however loaded the machine).
func (p *TestProcess) WaitExit(tb testing.TB, timeout time.Duration) error {
	tb.Helper()
	select {
	case <-p.p.done:
	case <-time.After(timeout):
		tb.Fatalf("%s did not exit within %v; last lines of its log:\n%s", p.p.name, timeout, p.Tail(30))
	}
	return p.Err()
}

// Stop sends SIGTERM to the process's group and waits up to timeout for
// the process to exit (Err tells how it did); if it has not, it fails the
// test and kills the group. Stopping an exited process is a no-op.
func (p *TestProcess) Stop(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	if p.p.terminate(context.Background(), timeout) {
		tb.Errorf("%s did not stop within %v of SIGTERM; killed it", p.p.name, timeout)
	}
}

// StartTestEtcd starts the etcd of RequireBinaries like StartTestEtcdBinary.
func StartTestEtcd(tb testing.TB, dir string, env []string, extra ...string) (*TestProcess, string) {
	tb.Helper()
	return StartTestEtcdBinary(tb, RequireBinary(tb, etcdBinary), dir, env, extra...)
}

// StartTestEtcdBinary starts binary as a single-member etcd on free
// loopback ports, with its data in dir/etcd-data and its log in
// dir/etcd.log, env (NAME=value) added to its environment, and flags
// --log-level=warn and extra. It returns it, stopped at tb's cleanup like
// StartTestProcess's, and its client URL once it is healthy.
func StartTestEtcdBinary(tb testing.TB, binary, dir string, env []string, extra ...string) (*TestProcess, string) {
	tb.Helper()
	flags := append([]string{"--log-level=warn"}, extra...)
	p, url, err := startEtcdProcess(tb.Context(), etcdBinary, filepath.Join(dir, "etcd-data"), dir, binary, "http", nil, env, flags...)
	if p == nil {
		tb.Fatal(err)
	}
	tp := stopAtCleanup(tb, p)
	if err != nil {
		tb.Fatal(err)
	}
	return tp, url
}

// StartThrowawayEtcd starts an etcd like StartTestEtcd in a directory of
// the test's, without fsync (its data is not kept), and returns its client
// URL.
func StartThrowawayEtcd(tb testing.TB) string {
	tb.Helper()
	_, url := StartThrowawayEtcdProcess(tb)
	return url
}

// StartThrowawayEtcdProcess is StartThrowawayEtcd, with its process (whose
// CPU and memory a benchmark reads).
func StartThrowawayEtcdProcess(tb testing.TB) (*TestProcess, string) {
	tb.Helper()
	return StartTestEtcd(tb, tb.TempDir(), nil, "--unsafe-no-fsync=true")
}

// WaitUntil polls condition every 50ms until it is true, and fails the
// test if it returns an error or timeout passes first; what names what is
// awaited in the failure.
func WaitUntil(tb testing.TB, timeout time.Duration, what string, condition func() (bool, error)) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := condition()
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

// TimeoutContext is a context that ends after d, or when the test does.
func TimeoutContext(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(tb.Context(), d)
	tb.Cleanup(cancel)
	return ctx
}

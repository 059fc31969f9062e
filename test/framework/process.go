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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// stopTimeout is how long a process gets to exit after SIGTERM before it is
// killed with SIGKILL.
const stopTimeout = 20 * time.Second

// process is a child process in its own process group whose output goes to
// a log file.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string

	done chan struct{} // closed once the process has exited
	err  error         // result of Wait, valid once done is closed
}

// startProcess starts binary with args in a new process group, with stdout
// and stderr appended to logDir/<name>.log.
func startProcess(ctx context.Context, name, logDir, binary string, args ...string) (*process, error) {
	return startProcessWithEnv(ctx, name, logDir, nil, binary, args...)
}

// startProcessWithEnv is startProcess with env added to the environment.
func startProcessWithEnv(ctx context.Context, name, logDir string, env map[string]string, binary string, args ...string) (*process, error) {
	vars := make([]string, 0, len(env))
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	return startProcessWithVars(ctx, name, logDir, vars, binary, args...)
}

// startProcessWithVars is startProcess with vars (NAME=value) added to the
// environment; of a name given twice, the last value holds.
func startProcessWithVars(ctx context.Context, name, logDir string, vars []string, binary string, args ...string) (*process, error) {
	var environ []string
	if len(vars) > 0 {
		environ = append(os.Environ(), vars...)
	}
	return startCommand(ctx, name, filepath.Join(logDir, name+".log"), environ, binary, args...)
}

// startCommand starts binary with args and environ (nil: the test's own) in
// a new process group, with stdout and stderr appended to logPath.
func startCommand(ctx context.Context, name, logPath string, environ []string, binary string, args ...string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log of %s: %w", name, err)
	}
	// Not exec.CommandContext: stopping is ordered and graceful, see stop.
	cmd := exec.Command(binary, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = sysProcAttr()
	cmd.Env = environ
	fmt.Fprintf(logFile, "+ %s %s\n", binary, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	klog.FromContext(ctx).V(2).Info("Started process", "name", name, "pid", cmd.Process.Pid, "log", logPath)
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has exited, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// stop sends SIGTERM to the process group, waits up to timeout for the
// process to exit, then sends SIGKILL. It returns once the process has been
// reaped. Stopping an exited process is a no-op.
func (p *process) stop(ctx context.Context, timeout time.Duration) {
	p.terminate(ctx, timeout)
}

// terminate is stop, and reports whether the process had to be killed: it
// had not exited within timeout of SIGTERM.
func (p *process) terminate(ctx context.Context, timeout time.Duration) (killed bool) {
	logger := klog.FromContext(ctx)
	pgid := -p.cmd.Process.Pid
	if exited, _ := p.exited(); !exited {
		logger.V(2).Info("Stopping process", "name", p.name, "pid", p.cmd.Process.Pid)
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(timeout):
			logger.Info("Process did not exit after SIGTERM, killing it", "name", p.name, "timeout", timeout)
			_ = syscall.Kill(pgid, syscall.SIGKILL)
			<-p.done
			killed = true
		}
	}
	// Children the process may have left behind in its group.
	_ = syscall.Kill(pgid, syscall.SIGKILL)
	return killed
}

// kill sends SIGKILL to the process group, as a crash would, and returns
// once the process has been reaped.
func (p *process) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// again starts the process anew with the same command line and
// environment, its output appended to the same log. The process must have
// exited.
func (p *process) again(ctx context.Context) (*process, error) {
	if exited, _ := p.exited(); !exited {
		return nil, fmt.Errorf("%s is still running", p.name)
	}
	next, err := startCommand(ctx, p.name, p.logPath, p.cmd.Env, p.cmd.Path, p.cmd.Args[1:]...)
	if err != nil {
		return nil, err
	}
	return next, nil
}

// tail returns the last n lines of the process log.
func (p *process) tail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("<reading %s: %v>", p.logPath, err)
	}
	data = bytes.TrimRight(data, "\n")
	lines := bytes.Split(data, []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// errExited is returned while waiting for a process that has exited.
var errExited = errors.New("process exited")

// exitError describes an unexpected exit, with the tail of the log.
func (p *process) exitError() error {
	_, err := p.exited()
	return fmt.Errorf("%s %w (%v); last lines of %s:\n%s", p.name, errExited, err, p.logPath, p.tail(30))
}

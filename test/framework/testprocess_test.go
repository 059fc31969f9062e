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
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTestProcess(t *testing.T) {
	p := StartTestProcess(t, "sh", t.TempDir(), []string{"TEST_PROCESS_VAR=from-env"}, "/bin/sh", "-c", `echo "$TEST_PROCESS_VAR"; exec sleep 60`)
	WaitUntil(t, time.Minute, "the process's output", func() (bool, error) {
		return strings.Contains(p.Tail(1), "from-env"), nil
	})
	if p.Exited() || p.Err() != nil || !Alive(p.PID()) {
		t.Fatalf("a running process: Exited %v, Err %v, Alive %v", p.Exited(), p.Err(), Alive(p.PID()))
	}
	p.Stop(t, 10*time.Second)
	var exitErr *exec.ExitError
	if !p.Exited() || !errors.As(p.Err(), &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("a stopped process: Exited %v, Err %v; want ended by SIGTERM", p.Exited(), p.Err())
	}

	done := StartTestProcess(t, "exit3", t.TempDir(), nil, "/bin/sh", "-c", "exit 3")
	if err := done.WaitExit(t, time.Minute); !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Errorf("WaitExit of exit 3 = %v", err)
	}
}

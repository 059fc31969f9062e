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
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestProcessRSS(t *testing.T) {
	// This test's own process holds at least its binary's pages.
	if rss, err := ProcessRSS(os.Getpid()); err != nil || rss < 1<<20 {
		t.Errorf("ProcessRSS of this process = %d, %v; want at least 1 MiB", rss, err)
	}
	if _, err := ProcessRSS(-1); err == nil {
		t.Error("ProcessRSS of no process: no error")
	}
}

func TestProcessMemory(t *testing.T) {
	// 16 MiB written by this process: anonymous, and private to it.
	held := make([]byte, 16<<20)
	for i := range held {
		held[i] = 1
	}
	m, err := ProcessMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.Anon < int64(len(held)) || m.Private < int64(len(held)) || m.File <= 0 || m.RSS < m.Anon+m.File || m.Peak < m.RSS {
		t.Errorf("ProcessMemory of this process after writing %d bytes = %+v: want Anon and Private above that, File above 0, RSS at least Anon+File, Peak at least RSS", len(held), m)
	}
	runtime.KeepAlive(held)
	if _, err := ProcessMemory(-1); err == nil {
		t.Error("ProcessMemory of no process: no error")
	}
}

func TestProcessCPU(t *testing.T) {
	// A child that burns CPU, then sleeps: exec keeps its process, and the
	// CPU time it used.
	child := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; exec sleep 60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = child.Process.Kill()
		_ = child.Wait()
	})
	pid := child.Process.Pid
	deadline := time.Now().Add(time.Minute)
	for {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(cmdline), "sleep") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not finish its loop in a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Exec'd, sleep still starts (the loader, a clock tick or two on a
	// busy machine) before it sleeps: read its time once it stays put.
	var childCPU time.Duration
	for {
		before, err := ProcessCPU(pid)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		if childCPU, err = ProcessCPU(pid); err != nil {
			t.Fatal(err)
		}
		if childCPU == before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child's CPU time did not settle in a minute")
		}
	}
	if childCPU < 20*time.Millisecond {
		t.Errorf("ProcessCPU of a child that looped 300,000 times = %v, want at least 20ms", childCPU)
	}
	self, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := TreeCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Read after self: the tree holds this process's time at least and the
	// sleeping child's, which no longer changes.
	if tree < self+childCPU {
		t.Errorf("TreeCPU of this process = %v, want at least its own %v plus its child's %v", tree, self, childCPU)
	}
	_, byProgram, err := TreeCPUByProgram(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if byProgram["sleep"] != childCPU {
		t.Errorf("TreeCPUByProgram: sleep (the child) used %v, ProcessCPU says %v (all: %v)", byProgram["sleep"], childCPU, byProgram)
	}
	if _, err := ProcessCPU(-1); err == nil {
		t.Error("ProcessCPU of no process: no error")
	}
	if _, err := TreeCPU(-1); err == nil {
		t.Error("TreeCPU of no process: no error")
	}
}

func TestProcessTree(t *testing.T) {
	// sh stays, with the marker in its command line, and forks a sleep.
	const marker = "procfs-test-marker"
	child := exec.Command("sh", "-c", "sleep 60; :", marker)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	t.Cleanup(func() {
		if !exited {
			_ = child.Process.Kill()
			_ = child.Wait()
		}
	})
	pid := child.Process.Pid
	var byProgram map[string]Memory
	var total Memory
	deadline := time.Now().Add(time.Minute)
	for {
		var err error
		if total, byProgram, err = TreeMemory(pid); err != nil {
			t.Fatal(err)
		}
		if byProgram["sleep"].RSS > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("TreeMemory of sh never held its sleep: %v", byProgram)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(byProgram) != 2 || byProgram["sh"].RSS <= 0 || total != byProgram["sh"].Add(byProgram["sleep"]) {
		t.Errorf("TreeMemory of sh and its sleep = %+v, %v; want the sum of sh and sleep", total, byProgram)
	}
	if name := ProgramName(pid); name != "sh" {
		t.Errorf("ProgramName of sh = %q", name)
	}
	left, err := ProcessesMentioning(marker)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || !strings.HasPrefix(left[0], fmt.Sprintf("%d sh -c", pid)) {
		t.Errorf("ProcessesMentioning(%q) = %q, want sh alone", marker, left)
	}
	if !Alive(pid) {
		t.Error("Alive of a running sh: false")
	}
	_ = child.Process.Kill()
	_ = child.Wait()
	exited = true
	if Alive(pid) {
		t.Error("Alive of a reaped sh: true")
	}
	if _, _, err := TreeMemory(pid); err == nil {
		t.Error("TreeMemory of no process: no error")
	}
}

// TestMachineCPU: the machine was busy at least as long as this process
// was, while it spun.
func TestMachineCPU(t *testing.T) {
	machine0, err := MachineCPU()
	if err != nil {
		t.Fatal(err)
	}
	self0, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until this process has used 200 ms, however busy the machine.
	for start := time.Now(); time.Since(start) < 30*time.Second; {
		for spin := time.Now(); time.Since(spin) < 10*time.Millisecond; {
		}
		if used, err := ProcessCPU(os.Getpid()); err != nil || used-self0 >= 200*time.Millisecond {
			break
		}
	}
	machine1, err := MachineCPU()
	if err != nil {
		t.Fatal(err)
	}
	self1, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Both count in ticks of 10 ms: a tick each way.
	if busy, own := machine1-machine0, self1-self0; own < 200*time.Millisecond || busy < own-20*time.Millisecond {
		t.Errorf("machine busy %v while this process used %v spinning (at least 200 ms)", busy, own)
	}
}

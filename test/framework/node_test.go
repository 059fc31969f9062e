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
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// crashHelperEnv makes TestNodeCrashRecovery, re-run in a child process,
// start a cluster with a node, run a pod and wait to be killed.
const crashHelperEnv = "SIM_TEST_NODE_CRASH_HELPER"

// crashHelperLockFD is where the helper finds the test's machine lock.
const crashHelperLockFD = 3

// helperTimeout bounds the helper's start, a hang guard: the first run on a
// machine builds the images, which takes minutes more on a busy machine.
const helperTimeout = 20 * time.Minute

// TestNodeCrashRecovery kills (SIGKILL) a process whose cluster with a node
// runs a pod, which leaves the pod's shim and processes, mounts, the bridge,
// iptables chains and sysctls behind; RecoverNode must undo all of it.
func TestNodeCrashRecovery(t *testing.T) {
	if os.Getenv(crashHelperEnv) != "" {
		runCrashHelper(t)
		return
	}
	if os.Geteuid() != 0 {
		if InCI() {
			t.Fatalf("%v", ErrNeedsRoot)
		}
		t.Skipf("%v", ErrNeedsRoot)
	}
	ctx := t.Context()
	// The machine is held from the first snapshot to the last, across the
	// helper (which shares the lock) and the recovery: another cluster with
	// a node must not change it in between.
	lock, err := LockMachine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	before, err := SnapshotMachine()
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestNodeCrashRecovery$", "-test.v")
	cmd.Env = append(os.Environ(), crashHelperEnv+"=1")
	cmd.ExtraFiles = []*os.File{lock.file} // crashHelperLockFD

	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			line := scanner.Text()
			t.Logf("helper: %s", line)
			if dir, ok := strings.CutPrefix(line, "POD RUNNING "); ok {
				ready <- dir
			}
		}
		close(ready)
	}()
	var dir string
	select {
	case d, ok := <-ready:
		if !ok {
			_ = cmd.Wait()
			t.Fatal("the helper exited before its pod ran")
		}
		dir = d
	case <-time.After(helperTimeout):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the helper's pod did not run within %v", helperTimeout)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	crashed, err := SnapshotMachine()
	if err != nil {
		t.Fatal(err)
	}
	left := before.Diff(crashed)
	if !strings.Contains(left, "network interface added: "+nodeBridge) || !strings.Contains(left, "containerd-shim") {
		t.Fatalf("the killed cluster left neither its bridge nor its shim; the test shows nothing:\n%s", left)
	}
	t.Logf("left behind by the killed cluster:\n%s", left)

	// What RecoverNode does once it has the lock, which the test holds.
	if err := recoverHost(ctx); err != nil {
		t.Fatalf("recovering: %v", err)
	}
	// Processes killed by the recovery are gone once reaped.
	var diff string
	_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		after, err := SnapshotMachine()
		if err != nil {
			return false, err
		}
		diff = before.Diff(after)
		return diff == "", nil
	})
	if diff != "" {
		t.Errorf("the machine differs after RecoverNode:\n%s", diff)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the killed cluster's directory %s is left", dir)
	}
}

// runCrashHelper starts a cluster with a node, runs a pod on it, reports
// "POD RUNNING <dir>" and waits to be killed.
func runCrashHelper(t *testing.T) {
	ctx := t.Context()
	lock := &MachineLock{file: os.NewFile(crashHelperLockFD, "machine lock")}
	c, err := StartCluster(ctx, Options{WithNode: true, WithoutSimAPIServer: true, MachineLock: lock})
	if err != nil {
		t.Fatalf("starting a cluster with a node: %v", err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "crash", Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "pause", Image: pauseImage, ImagePullPolicy: corev1.PullNever,
			}},
			AutomountServiceAccountToken: ptr.To(false),
		},
	}
	if _, err := c.Client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := c.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && got.Status.Phase == corev1.PodRunning, nil
	})
	if err != nil {
		t.Fatalf("waiting for the pod to run: %v\n%s", err, c.LogTails(30))
	}
	fmt.Printf("POD RUNNING %s\n", c.Dir)
	<-ctx.Done()
}

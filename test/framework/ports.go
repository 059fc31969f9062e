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
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// claims holds a lock per port this process gave out, for its life: no
// other test process (go test -p 2) picks the port, and neither does this
// one again, even after the component it was for released it (flock's
// locks are per open file, so a second claim in one process fails too).
var (
	claimsMu sync.Mutex
	claims   []*os.File
)

// portClaimDir holds one lock file per port claimed by a running test
// process; a lock ends with its process.
var portClaimDir = filepath.Join(os.TempDir(), "sim-test-ports")

// claim takes port for this process, unless another process holds it.
func claim(port int) (bool, error) {
	if err := os.MkdirAll(portClaimDir, 0o755); err != nil {
		return false, fmt.Errorf("creating %s: %w", portClaimDir, err)
	}
	f, err := os.OpenFile(filepath.Join(portClaimDir, strconv.Itoa(port)), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return false, fmt.Errorf("claiming port %d: %w", port, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return false, nil
	}
	claims = append(claims, f)
	return true, nil
}

// freePorts returns n distinct free ports, none of them in taken (ports
// chosen earlier and no longer held, such as a simulator's spec ports).
//
// The ports come from outside the kernel's ephemeral range: a port that
// listening on :0 returns is one any outgoing connection may take as its
// local port before the process it was chosen for binds it, which is
// seconds later for a simulator's kube-apiserver (seen in CI: "bind:
// address already in use" on every restart).
func freePorts(n int, taken ...int) ([]int, error) {
	lo, hi := portRange()
	claimsMu.Lock()
	defer claimsMu.Unlock()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 10*(hi-lo) {
			return nil, fmt.Errorf("finding %d free ports in [%d, %d): only %d found", n, lo, hi, len(ports))
		}
		p := lo + rand.IntN(hi-lo)
		if slices.Contains(taken, p) {
			continue
		}
		// Claimed whatever follows: a port that fails the check below is
		// not tried again.
		if ok, err := claim(p); err != nil {
			return nil, err
		} else if !ok {
			continue // this or another test process has it
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue // taken by another process
		}
		_ = l.Close()
		ports = append(ports, p)
	}
	return ports, nil
}

// portRange returns a range of ports outside the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range): the 16,384 ports below it, clear
// of the well-known ports components default to (10250, 10257, ...), or the
// ports above it when that is wider.
func portRange() (lo, hi int) {
	ephLo, ephHi := 32768, 60999 // Linux's default
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			l, errL := strconv.Atoi(f[0])
			h, errH := strconv.Atoi(f[1])
			if errL == nil && errH == nil && l <= h {
				ephLo, ephHi = l, h
			}
		}
	}
	lo = max(ephLo-16384, 1024)
	if ephLo-lo >= 65536-(ephHi+1) {
		return lo, ephLo
	}
	return ephHi + 1, 65536
}

func loopbackURL(scheme string, port int) string {
	return hostURL(scheme, "127.0.0.1", port)
}

func hostURL(scheme, host string, port int) string {
	return scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port))
}

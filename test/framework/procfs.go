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
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProcessRSS returns the resident set size of process pid in bytes: VmRSS
// of /proc/PID/status.
func ProcessRSS(pid int) (int64, error) {
	var rss int64
	err := procKiB(pid, "status", map[string]*int64{"VmRSS:": &rss})
	return rss, err
}

// Memory is what a process has resident, in bytes.
type Memory struct {
	RSS int64 // VmRSS: Anon + File + Shmem
	// Anon is the process's own memory (heap, stacks): what another
	// process of the same binary does not share.
	Anon int64
	// File is pages of mapped files, chiefly the binary's: page cache,
	// shared by every process that maps the same file, on any Pod of the
	// node, and charged once.
	File int64
	// Private is the pages no other process maps (USS): what ending the
	// process would give back.
	Private int64
	// Peak is the most the process has had resident (VmHWM).
	Peak int64
}

// Add returns the sum of m and o.
func (m Memory) Add(o Memory) Memory {
	return Memory{RSS: m.RSS + o.RSS, Anon: m.Anon + o.Anon, File: m.File + o.File, Private: m.Private + o.Private, Peak: m.Peak + o.Peak}
}

// ProcessMemory returns what process pid has resident, from
// /proc/PID/status and /proc/PID/smaps_rollup.
func ProcessMemory(pid int) (Memory, error) {
	var m Memory
	if err := procKiB(pid, "status", map[string]*int64{"VmRSS:": &m.RSS, "RssAnon:": &m.Anon, "RssFile:": &m.File, "VmHWM:": &m.Peak}); err != nil {
		return m, err
	}
	var clean, dirty int64
	if err := procKiB(pid, "smaps_rollup", map[string]*int64{"Private_Clean:": &clean, "Private_Dirty:": &dirty}); err != nil {
		return m, err
	}
	m.Private = clean + dirty
	return m, nil
}

// procKiB reads the "Name: N kB" lines of /proc/PID/FILE named in into,
// as bytes; each must be there.
func procKiB(pid int, file string, into map[string]*int64) error {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return err
	}
	found := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || into[f[0]] == nil {
			continue
		}
		kib, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return fmt.Errorf("/proc/%d/%s: %q: %w", pid, file, line, err)
		}
		*into[f[0]] = kib << 10
		found++
	}
	if found != len(into) {
		return fmt.Errorf("/proc/%d/%s lacks some of %v", pid, file, slices.Collect(maps.Keys(into)))
	}
	return nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on every
// Linux architecture Go supports (the kernel reports in it whatever its
// own HZ).
const clockTicks = 100

// ProcessCPU returns the CPU time (user and system) process pid has used:
// utime and stime of /proc/PID/stat.
func ProcessCPU(pid int) (time.Duration, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	// f[0] is field 3 (state): utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %q: %w", pid, s, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// MachineCPU returns the CPU time the machine has spent busy, over all its
// CPUs: the first line of /proc/stat, less idle and iowait.
func MachineCPU() (time.Duration, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	// cpu user nice system idle iowait irq softirq steal …
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: %q", line)
	}
	var busy int64
	for i, s := range f[1:9] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %q: %w", s, err)
		}
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return time.Duration(busy) * time.Second / clockTicks, nil
}

// procStat returns the fields of /proc/PID/stat after the command (field
// 2), which may hold spaces and parentheses: they follow its last ')'.
func procStat(pid int) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command", pid)
	}
	return strings.Fields(string(data[i+1:])), nil
}

// pids lists the processes of /proc.
func pids() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}

// processChildren maps each process of /proc to its children.
func processChildren() (map[int][]int, error) {
	all, err := pids()
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, p := range all {
		f, err := procStat(p)
		if err != nil || len(f) < 2 {
			continue // ended meanwhile
		}
		// f[1] is field 4, the parent's pid.
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			children[ppid] = append(children[ppid], p)
		}
	}
	return children, nil
}

// processTree calls visit for process pid and then for each of its
// descendants alive now, parents first. An error of visit for pid is
// returned; for a descendant (ended meanwhile) it skips its descendants.
func processTree(pid int, visit func(pid int) error) error {
	children, err := processChildren()
	if err != nil {
		return err
	}
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		if err := visit(queue[0]); err != nil {
			if queue[0] == pid {
				return err
			}
			continue // ended meanwhile
		}
		queue = append(queue, children[queue[0]]...)
	}
	return nil
}

// TreeCPU returns the CPU time process pid and all its descendants alive
// now have used (a descendant that ended is not counted).
func TreeCPU(pid int) (time.Duration, error) {
	total, _, err := TreeCPUByProgram(pid)
	return total, err
}

// CPUUsed is the CPU time each program of after (as TreeCPUByProgram
// gives) has used since before, and the sum of them.
func CPUUsed(before, after map[string]time.Duration) (byProgram map[string]time.Duration, total time.Duration) {
	byProgram = make(map[string]time.Duration, len(after))
	for name, t := range after {
		byProgram[name] = t - before[name]
		total += byProgram[name]
	}
	return byProgram, total
}

// TreeCPUByProgram is TreeCPU, in all and by program (ProgramName).
func TreeCPUByProgram(pid int) (total time.Duration, byProgram map[string]time.Duration, err error) {
	byProgram = map[string]time.Duration{}
	err = processTree(pid, func(p int) error {
		cpu, err := ProcessCPU(p)
		if err != nil {
			return err
		}
		byProgram[ProgramName(p)] += cpu
		total += cpu
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return total, byProgram, nil
}

// TreeMemory returns what process pid and all its descendants alive now
// have resident, in all and by program (ProgramName).
func TreeMemory(pid int) (total Memory, byProgram map[string]Memory, err error) {
	byProgram = map[string]Memory{}
	err = processTree(pid, func(p int) error {
		m, err := ProcessMemory(p)
		if err != nil {
			return err
		}
		name := ProgramName(p)
		byProgram[name] = byProgram[name].Add(m)
		total = total.Add(m)
		return nil
	})
	if err != nil {
		return Memory{}, nil, err
	}
	return total, byProgram, nil
}

// ProgramName is the base name of process pid's argv[0] (its comm is cut
// at 15 characters), "." if it has ended.
func ProgramName(pid int) string {
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return filepath.Base(string(argv0))
}

// Alive reports whether process pid runs: it exists and is not a zombie.
func Alive(pid int) bool {
	f, err := procStat(pid)
	// f[0] is field 3, the state.
	return err == nil && len(f) > 0 && f[0] != "Z"
}

// ProcessesMentioning lists the live processes, other than this one,
// whose command line holds s, as "PID COMMAND LINE".
func ProcessesMentioning(s string) ([]string, error) {
	all, err := pids()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, pid := range all {
		if pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !bytes.Contains(cmdline, []byte(s)) || !Alive(pid) {
			continue
		}
		out = append(out, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return out, nil
}

// ConnectionsTo returns how many established TCP connections process pid
// holds to port (the remote end's): those of /proc/PID/net/tcp{,6} whose
// socket is one of the process's open files.
func ConnectionsTo(pid, port int) (int, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, err
	}
	sockets := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
			sockets[strings.TrimSuffix(inode, "]")] = true
		}
	}
	n := 0
	for _, table := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			return 0, err
		}
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
		for line := range strings.Lines(string(data)) {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "01" || !sockets[f[9]] {
				continue
			}
			_, hexPort, ok := strings.Cut(f[2], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); ok && err == nil && int(p) == port {
				n++
			}
		}
	}
	return n, nil
}

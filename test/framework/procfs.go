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
}

// Add returns the sum of m and o.
func (m Memory) Add(o Memory) Memory {
	return Memory{RSS: m.RSS + o.RSS, Anon: m.Anon + o.Anon, File: m.File + o.File, Private: m.Private + o.Private}
}

// ProcessMemory returns what process pid has resident, from
// /proc/PID/status and /proc/PID/smaps_rollup.
func ProcessMemory(pid int) (Memory, error) {
	var m Memory
	if err := procKiB(pid, "status", map[string]*int64{"VmRSS:": &m.RSS, "RssAnon:": &m.Anon, "RssFile:": &m.File}); err != nil {
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

// TreeCPU returns the CPU time process pid and all its descendants alive
// now have used (a descendant that ended is not counted).
func TreeCPU(pid int) (time.Duration, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := procStat(p)
		if err != nil || len(f) < 2 {
			continue // ended meanwhile
		}
		// f[1] is field 4, the parent's pid.
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			children[ppid] = append(children[ppid], p)
		}
	}
	var total time.Duration
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		cpu, err := ProcessCPU(queue[0])
		if err != nil {
			if queue[0] == pid {
				return 0, err
			}
			continue // ended meanwhile
		}
		total += cpu
		queue = append(queue, children[queue[0]]...)
	}
	return total, nil
}

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
	"os"
	"runtime"
	"testing"
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
	if m.Anon < int64(len(held)) || m.Private < int64(len(held)) || m.File <= 0 || m.RSS < m.Anon+m.File {
		t.Errorf("ProcessMemory of this process after writing %d bytes = %+v: want Anon and Private above that, File above 0, RSS at least Anon+File", len(held), m)
	}
	runtime.KeepAlive(held)
	if _, err := ProcessMemory(-1); err == nil {
		t.Error("ProcessMemory of no process: no error")
	}
}

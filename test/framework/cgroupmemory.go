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

// CgroupMemory is what a container's memory cgroup is charged for, in
// bytes. The kernel charges a page to the cgroup that first brought it in:
// page cache of an image's files is charged to whoever read them first,
// often containerd unpacking the image, and then to no container at all.
type CgroupMemory struct {
	Usage int64 // memory.current (v2), memory.usage_in_bytes (v1)
	// WorkingSet is Usage less inactive file pages: what the kubelet,
	// metrics-server and `kubectl top` report, and what eviction weighs.
	WorkingSet int64
	Anon       int64 // anonymous pages (v1: rss)
	File       int64 // page cache (v1: cache)
}

// Add returns the sum of m and o: what two cgroups are charged for.
func (m CgroupMemory) Add(o CgroupMemory) CgroupMemory {
	return CgroupMemory{Usage: m.Usage + o.Usage, WorkingSet: m.WorkingSet + o.WorkingSet, Anon: m.Anon + o.Anon, File: m.File + o.File}
}

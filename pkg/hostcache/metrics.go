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

package hostcache

import (
	"sync"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// What the running caches hold, computed when /metrics is read: the
// caches are bounded by the simulators, so a walk of them is cheap.
var (
	objectsDesc = metrics.NewDesc("sim_apiserver_host_cache_objects",
		"Host objects of simulators held in the server's cache, by resource.",
		[]string{"resource"}, nil, metrics.ALPHA, "")
	bytesDesc = metrics.NewDesc("sim_apiserver_host_cache_bytes",
		"Size (protobuf) of the host objects of simulators held in the server's cache, by resource.",
		[]string{"resource"}, nil, metrics.ALPHA, "")
	namespacesDesc = metrics.NewDesc("sim_apiserver_host_cache_namespaces",
		"Namespaces whose simulators' host objects the server watches.",
		nil, nil, metrics.ALPHA, "")
)

var (
	registerOnce sync.Once
	liveMu       sync.Mutex
	live         = map[*Cache]struct{}{}
)

// register counts c in the metrics until unregister.
func register(c *Cache) {
	registerOnce.Do(func() { legacyregistry.CustomMustRegister(&collector{}) })
	liveMu.Lock()
	defer liveMu.Unlock()
	live[c] = struct{}{}
}

func unregister(c *Cache) {
	liveMu.Lock()
	defer liveMu.Unlock()
	delete(live, c)
}

// Stats are what a cache holds.
type Stats struct {
	Namespaces int
	// Objects and Bytes are by resource (pods, secrets, ...).
	Objects, Bytes map[string]int
}

// sizer is what generated API types (and PartialObjectMetadata) are.
type sizer interface{ Size() int }

// Stats counts what the cache holds now.
func (c *Cache) Stats() Stats {
	s := Stats{Objects: map[string]int{}, Bytes: map[string]int{}}
	c.mu.RLock()
	s.Namespaces = len(c.namespaces)
	c.mu.RUnlock()
	for k, kind := range kinds {
		r := kind.resource.Resource
		s.Objects[r], s.Bytes[r] = 0, 0
		for _, obj := range c.routers[k].List() {
			s.Objects[r]++
			if o, ok := obj.(sizer); ok {
				s.Bytes[r] += o.Size()
			}
		}
	}
	return s
}

type collector struct {
	metrics.BaseStableCollector
}

func (*collector) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- objectsDesc
	ch <- bytesDesc
	ch <- namespacesDesc
}

func (*collector) CollectWithStability(ch chan<- metrics.Metric) {
	liveMu.Lock()
	caches := make([]*Cache, 0, len(live))
	for c := range live {
		caches = append(caches, c)
	}
	liveMu.Unlock()
	total := Stats{Objects: map[string]int{}, Bytes: map[string]int{}}
	for _, c := range caches {
		s := c.Stats()
		total.Namespaces += s.Namespaces
		for r, n := range s.Objects {
			total.Objects[r] += n
			total.Bytes[r] += s.Bytes[r]
		}
	}
	for _, kind := range kinds {
		r := kind.resource.Resource
		ch <- metrics.NewLazyConstMetric(objectsDesc, metrics.GaugeValue, float64(total.Objects[r]), r)
		ch <- metrics.NewLazyConstMetric(bytesDesc, metrics.GaugeValue, float64(total.Bytes[r]), r)
	}
	ch <- metrics.NewLazyConstMetric(namespacesDesc, metrics.GaugeValue, float64(total.Namespaces))
}

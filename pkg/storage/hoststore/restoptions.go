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

package hoststore

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	flowcontrolrequest "k8s.io/apiserver/pkg/util/flowcontrol/request"
)

// countPollPeriod is how often each resource's Stats are read for API
// Priority and Fairness. They come from the records' cache, so it can be
// much shorter than kube's minute (--etcd-count-metric-poll-period).
const countPollPeriod = 10 * time.Second

// RESTOptionsGetter hands every resource of our group the host-backed storage.
type RESTOptionsGetter struct {
	// Codec encodes objects into records.
	Codec runtime.Codec
	// Decorator builds the storage.Interface of one resource.
	Decorator generic.StorageDecorator
	// CountTracker is the generic server's (its StorageObjectCountTracker):
	// with each resource's Stats in it, API Priority and Fairness costs a
	// list by the objects it reads, so a list of hundreds of large
	// NodePools takes more seats than a get. Nil leaves every list at one.
	CountTracker flowcontrolrequest.StorageObjectCountTracker
}

var _ generic.RESTOptionsGetter = RESTOptionsGetter{}

// GetRESTOptions returns the options genericregistry.Store completes itself with.
func (g RESTOptionsGetter) GetRESTOptions(resource schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{
		StorageConfig: storagebackend.NewDefaultConfig("", g.Codec).ForResource(resource),
		Decorator:     g.Decorator,
		// Owner references and foreground deletion work through the host's
		// garbage collector, which sees our resources through the aggregator.
		EnableGarbageCollection:   true,
		DeleteCollectionWorkers:   1,
		ResourcePrefix:            "/" + resource.Group + "/" + resource.Resource,
		CountMetricPollPeriod:     countPollPeriod,
		StorageObjectCountTracker: g.CountTracker,
	}, nil
}

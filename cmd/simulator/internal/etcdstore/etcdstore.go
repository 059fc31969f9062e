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

// Package etcdstore writes objects into the inner kube-apiserver's etcd as
// that kube-apiserver stores them: under its --etcd-prefix, at the key of
// its resource, in protobuf. The simulator does so where going through the
// API costs more than it gives: the bootstrap objects while kube-apiserver
// starts, and the first copy of a source's Nodes and Pods, tens of
// thousands of objects that the API would admit, validate and fan out one
// request at a time. kube-apiserver's watch of etcd sees them as created.
//
// It relies on the simulator's kube-apiserver storing in protobuf without
// encryption (no --storage-media-type, no --encryption-provider-config)
// and at the storage version of k8s.io/api's v1 of each kind.
package etcdstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"sigs.k8s.io/simulator-apiserver/cmd/simulator/internal/etcdhttp"
)

// scheme holds the kinds the simulator writes into etcd.
var scheme = runtime.NewScheme()

func init() {
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, rbacv1.AddToScheme, schedulingv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
}

// Scheme returns the kinds Encode knows.
func Scheme() *runtime.Scheme { return scheme }

// resourcePrefixes are the resources kube-apiserver keeps under another
// name than their own (its storage factory's special prefixes).
var resourcePrefixes = map[string]string{
	"nodes":    "minions",
	"services": "services/specs",
}

// Key returns the etcd key of an object of resource (plural, as in the
// API) under kube-apiserver's prefix: prefix/RESOURCE/NAME, or
// prefix/RESOURCE/NAMESPACE/NAME.
func Key(prefix, resource, namespace, name string) string {
	if p, ok := resourcePrefixes[resource]; ok {
		resource = p
	}
	if namespace == "" {
		return prefix + "/" + resource + "/" + name
	}
	return prefix + "/" + resource + "/" + namespace + "/" + name
}

var encoder = protobuf.NewSerializer(scheme, scheme)

// Encode returns obj as kube-apiserver stores it: "k8s\x00" and a
// runtime.Unknown naming its apiVersion and kind, around its protobuf. obj
// must carry its kind (TypeMeta), no resourceVersion (etcd's revision
// is), and what a create would have given it (UID, creation time).
func Encode(obj runtime.Object) ([]byte, error) {
	if obj.GetObjectKind().GroupVersionKind().Empty() {
		gvks, _, err := scheme.ObjectKinds(obj)
		if err != nil {
			return nil, err
		}
		obj = obj.DeepCopyObject()
		obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	}
	if m, err := apimeta.Accessor(obj); err == nil && m.GetResourceVersion() != "" {
		// A create never stores one: etcd's revision is the version.
		return nil, fmt.Errorf("%s has a resourceVersion", m.GetName())
	}
	var buf bytes.Buffer
	if err := encoder.Encode(obj, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Store writes into the etcd of the inner kube-apiserver, under its
// prefix.
type Store struct {
	Client *etcdhttp.Client
	Prefix string
}

// Key is the etcd key of an object of resource.
func (s *Store) Key(resource, namespace, name string) string {
	return Key(s.Prefix, resource, namespace, name)
}

// CreateAll stores kvs in one transaction, only if none of their keys
// exists, through the first endpoint that answers.
func (s *Store) CreateAll(ctx context.Context, kvs []etcdhttp.KeyValue) (etcdhttp.TxnResult, error) {
	var errs []error
	for _, endpoint := range s.Client.Endpoints {
		r, err := s.Client.CreateAll(ctx, endpoint, kvs)
		if err == nil {
			return r, nil
		}
		errs = append(errs, fmt.Errorf("etcd %s: %w", endpoint, err))
	}
	return etcdhttp.TxnResult{}, errors.Join(errs...)
}

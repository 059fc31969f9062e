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

package validation_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/install"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
)

// FuzzValidate decodes what a client could send, as the server does
// (v1alpha1 JSON, defaulted, converted to internal), and validates it: no
// input makes validation panic, and every error names a field under
// metadata, spec or status.
func FuzzValidate(f *testing.F) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	decoder := serializer.NewCodecFactory(scheme).UniversalDecoder(sim.SchemeGroupVersion)
	for _, seed := range []string{
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"example","namespace":"default"},"spec":{"corsAllowedOriginList":["http://localhost:3000"]}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"x","namespace":"d"},"spec":{"etcdURL":"https://etcd:2379","kubeAPIServerPort":2379,"image":"a/b:c","podTemplate":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"simulator","args":["-v"]},{"name":"sidecar","image":"x"}]}}}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"Bad.Name","namespace":""},"spec":{"kubeAPIServerPort":70000,"etcdURL":"ftp://x","corsAllowedOriginList":["*","http://a:99999"]}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"h","namespace":"d"},"spec":{"hosting":{"secretName":"cluster-b","namespace":"Bad.NS"}}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"NodePool","metadata":{"name":"workers","namespace":"default"},"spec":{"simulatorName":"example","replicas":100,"template":{"metadata":{"labels":{"topology.kubernetes.io/zone":"zone-{{ mod .Index 3 }}"}},"spec":{"podCIDR":"{{ AddCIDR \"10.128.0.0/24\" .Index }}","taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},"status":{"capacity":{"cpu":"16","memory":"64Gi","pods":"110"},"allocatable":{"cpu":"17"}}}}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"NodePool","metadata":{"name":"p","namespace":"d"},"spec":{"simulatorName":"","replicas":-1,"template":{"metadata":{"annotations":{"a":"{{ range 9 }}x{{ end }}"}},"spec":{"providerID":"{{ .Nope }}"}}}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Simulator","metadata":{"name":"x","namespace":"d","labels":{"records.sim.x-k8s.io/name":"y"},"finalizers":["a/b"]},"spec":null}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Scenario","metadata":{"name":"s","namespace":"d"},"spec":{"variants":[{"name":"a"},{"name":"b","schedulerConfiguration":{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[{"plugins":{"score":{"enabled":[{"name":"NodeResourcesFit"}]}},"pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated"}}}]}]}}],"nodePools":[{"name":"p","replicas":2}],"timeline":[{"at":"0s","create":{"objects":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}]}},{"at":"1m","scale":{"kind":"NodePool","name":"q","replicas":3}},{"at":"2m","wait":{"for":"PodsSettled"}}]}}`,
		`{"apiVersion":"sim.x-k8s.io/v1alpha1","kind":"Scenario","metadata":{"name":"s","namespace":"d"},"spec":{"simulators":["a","a"],"initial":{"source":{"secretName":"s","mode":"Sync"}},"trace":{"configMapName":"t","speed":0},"duration":"-1s"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, _, err := decoder.Decode(data, nil, nil)
		if err != nil {
			return
		}
		var errs field.ErrorList
		switch o := obj.(type) {
		case *sim.Simulator:
			errs = append(validation.ValidateSimulator(o, validation.DefaultOptions()), validation.ValidateSimulatorUpdate(o, o)...)
		case *sim.NodePool:
			opts := validation.DefaultOptions()
			errs = append(validation.ValidateNodePool(o, opts), validation.ValidateNodePoolUpdate(o, o, opts)...)
			errs = append(errs, validation.ValidateNodePoolStatusUpdate(o, o)...)
		case *sim.Scenario:
			errs = append(validation.ValidateScenario(o, validation.DefaultOptions()), validation.ValidateScenarioUpdate(o, o)...)
			errs = append(errs, validation.ValidateScenarioStatusUpdate(o, o)...)
		default:
			return
		}
		for _, e := range errs {
			if !strings.HasPrefix(e.Field, "metadata") && !strings.HasPrefix(e.Field, "spec") && !strings.HasPrefix(e.Field, "status") {
				t.Errorf("error without a field path: %v", e)
			}
		}
	})
}

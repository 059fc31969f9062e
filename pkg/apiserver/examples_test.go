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

package apiserver

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim"
	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
)

// TestExamplesAreValid decodes each file of artifacts/examples as the server
// would (defaults included) and validates it, so the examples never rot.
func TestExamplesAreValid(t *testing.T) {
	files, err := filepath.Glob("../../artifacts/examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	decoder := Codecs.UniversalDecoder(sim.SchemeGroupVersion)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			obj, _, err := decoder.Decode(data, nil, nil)
			if err != nil {
				t.Fatalf("decoding: %v", err)
			}
			var errs field.ErrorList
			switch o := obj.(type) {
			case *sim.Simulator:
				o.Namespace = "default"
				errs = validation.ValidateSimulator(o, validation.DefaultOptions())
			case *sim.NodePool:
				o.Namespace = "default"
				errs = validation.ValidateNodePool(o, validation.DefaultOptions())
			case *sim.Scenario:
				o.Namespace = "default"
				errs = validation.ValidateScenario(o, validation.DefaultOptions())
			default:
				t.Fatalf("unexpected kind %T", runtime.Object(o))
			}
			if len(errs) > 0 {
				t.Errorf("invalid example: %v", errs.ToAggregate())
			}
		})
	}
}

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

package simulator

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/v1alpha1"
	"sigs.k8s.io/simulator-apiserver/pkg/backing"
	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// TestCompleteWithoutHopToken: a local simulator's credentials, which
// have no hop-token, are complete, so the Secrets made before hosting are
// not made anew (a new CA); a hosted one's are too, and a missing
// credential file is still incomplete.
func TestCompleteWithoutHopToken(t *testing.T) {
	s := &v1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", UID: "u1"}}
	local, err := backing.Secret(s, backing.Local(s))
	if err != nil {
		t.Fatal(err)
	}
	hosted, err := backing.Secret(s, backing.Placement{Namespace: "sims", Hosted: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := local.Data[contract.FileHopToken]; ok {
		t.Errorf("a local Secret has %s", contract.FileHopToken)
	}
	if !complete(local) {
		t.Error("a local Secret, without a hop-token, is incomplete")
	}
	if !complete(hosted) {
		t.Error("a hosted Secret is incomplete")
	}
	delete(local.Data, contract.FileCACert)
	if complete(local) {
		t.Errorf("a Secret without %s is complete", contract.FileCACert)
	}
}

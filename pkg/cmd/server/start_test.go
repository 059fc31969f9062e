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

package server

import (
	"io"
	"testing"

	"github.com/spf13/cobra"

	"sigs.k8s.io/simulator-apiserver/pkg/apis/sim/validation"
)

// TestEnableHosting: spec.hosting is admitted only with --enable-hosting,
// which reaches the strategies through the validation options.
func TestEnableHosting(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{args: nil, want: false},
		{args: []string{"--enable-hosting"}, want: true},
		{args: []string{"--enable-hosting=false"}, want: false},
	} {
		o := NewOptions(io.Discard, io.Discard)
		cmd := &cobra.Command{Use: "sim-apiserver"}
		o.AddFlags(cmd)
		if err := cmd.Flags().Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		got := o.validationOptions()
		if want := (validation.Options{MaxNodePoolReplicas: validation.DefaultMaxNodePoolReplicas, Hosting: tc.want}); got != want {
			t.Errorf("%v: validation options %+v, want %+v", tc.args, got, want)
		}
	}
}

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

package contract

import "testing"

func TestParseTerminationMessage(t *testing.T) {
	for message, want := range map[string][2]string{
		"EtcdUnavailable: etcd down\n": {"EtcdUnavailable", "etcd down"},
		"reading the CA: no such file": {"", "reading the CA: no such file"},
		"Forged: anything":             {"", "Forged: anything"},
		"EtcdUnavailable":              {"", "EtcdUnavailable"},
	} {
		if reason, detail := ParseTerminationMessage(message); reason != want[0] || detail != want[1] {
			t.Errorf("ParseTerminationMessage(%q) = %q, %q; want %q, %q", message, reason, detail, want[0], want[1])
		}
	}
}

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

package termination

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

func TestWriteAndParse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "termination-log")
	if err := os.WriteFile(path, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	err := &Error{Reason: contract.ReasonEtcdUnavailable, Err: errors.New("etcd https://etcd:2379: connection refused")}
	if err := Write(path, err); err != nil {
		t.Fatal(err)
	}
	data, readErr := os.ReadFile(path)
	if readErr != nil {
		t.Fatal(readErr)
	}
	if reason, detail := contract.ParseTerminationMessage(string(data)); reason != contract.ReasonEtcdUnavailable || detail != "etcd https://etcd:2379: connection refused" {
		t.Errorf("Parse(%q) = %q, %q", data, reason, detail)
	}

	// The kubelet keeps 4096 bytes.
	if err := Write(path, errors.New(strings.Repeat("x", 5000))); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); len(data) != contract.MaxTerminationMessage {
		t.Errorf("a long message is %d bytes, want %d", len(data), contract.MaxTerminationMessage)
	}

	// Outside a Pod there is no file, and none is made.
	missing := filepath.Join(t.TempDir(), "termination-log")
	if err := Write(missing, err); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("Write made %s: %v", missing, err)
	}
}

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

// Package termination writes why the simulator ended as its container's
// termination message, in the form the contract's ParseTerminationMessage
// reads on sim-apiserver's side.
package termination

import (
	"errors"
	"io/fs"
	"os"

	"sigs.k8s.io/simulator-apiserver/pkg/contract"
)

// Error is an error with one of the contract's reasons.
type Error struct {
	Reason string
	Err    error
}

func (e *Error) Error() string { return contract.TerminationMessage(e.Reason, e.Err.Error()) }

func (e *Error) Unwrap() error { return e.Err }

// Write writes err as the termination message at path if that file exists:
// the kubelet makes it; outside a Pod there is none, and none is created.
func Write(path string, err error) error {
	f, openErr := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if errors.Is(openErr, fs.ErrNotExist) {
		return nil
	}
	if openErr != nil {
		return openErr
	}
	msg := err.Error()
	if len(msg) > contract.MaxTerminationMessage {
		msg = msg[:contract.MaxTerminationMessage]
	}
	_, writeErr := f.WriteString(msg)
	return errors.Join(writeErr, f.Close())
}

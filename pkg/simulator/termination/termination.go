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

// Package termination says why the simulator ended the Kubernetes way: in
// its container's termination message (the file at terminationMessagePath,
// which the kubelet copies into the Pod's container status), as
// "Reason: message" with Reason one of this package's, so that
// sim-apiserver can carry it into the simulator's status.
package termination

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// DefaultPath is a container's default terminationMessagePath.
const DefaultPath = "/dev/termination-log"

// Reasons the simulator gives, CamelCase as a condition's reason.
const (
	// ReasonEtcdUnavailable: kube-apiserver cannot use its etcd (it does
	// not answer, refuses the connection or the TLS handshake, or is not
	// healthy).
	ReasonEtcdUnavailable = "EtcdUnavailable"
)

var reasons = sets.New(ReasonEtcdUnavailable)

// maxMessage is what the kubelet keeps of a termination message.
const maxMessage = 4096

// Error is an error with one of the reasons above.
type Error struct {
	Reason string
	Err    error
}

func (e *Error) Error() string { return e.Reason + ": " + e.Err.Error() }

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
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	_, writeErr := f.WriteString(msg)
	return errors.Join(writeErr, f.Close())
}

// Parse splits a termination message into its reason, when it starts with
// one of this package's, and the rest.
func Parse(message string) (reason, detail string) {
	message = strings.TrimSpace(message)
	if r, rest, ok := strings.Cut(message, ": "); ok && reasons.Has(r) {
		return r, rest
	}
	return "", message
}

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

import "strings"

// The simulator says why it ended the Kubernetes way: in its container's
// termination message (the file at terminationMessagePath, which the kubelet
// copies into the Pod's container status), as "Reason: message" with Reason
// one of these, so that sim-apiserver can carry it into the simulator's
// status.

// DefaultTerminationMessagePath is a container's default terminationMessagePath.
const DefaultTerminationMessagePath = "/dev/termination-log"

// MaxTerminationMessage is what the kubelet keeps of a termination message.
const MaxTerminationMessage = 4096

// Reasons the simulator gives, CamelCase as a condition's reason.
const (
	// ReasonEtcdUnavailable: kube-apiserver cannot use its etcd (it does
	// not answer, refuses the connection or the TLS handshake, or is not
	// healthy).
	ReasonEtcdUnavailable = "EtcdUnavailable"
)

var reasons = map[string]bool{ReasonEtcdUnavailable: true}

// TerminationMessage is the message of an end for reason.
func TerminationMessage(reason, detail string) string { return reason + ": " + detail }

// ParseTerminationMessage splits a termination message into its reason, when
// it starts with one of the reasons above, and the rest.
func ParseTerminationMessage(message string) (reason, detail string) {
	message = strings.TrimSpace(message)
	if r, rest, ok := strings.Cut(message, ": "); ok && reasons[r] {
		return r, rest
	}
	return "", message
}

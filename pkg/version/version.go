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

// Package version holds the build's version, stamped at link time, and the
// image references derived from it.
package version

// Version is set with -ldflags "-X sigs.k8s.io/simulator-apiserver/pkg/version.Version=...".
var Version = "dev"

// ImageRepository is where this project's images are named. Images are built
// locally (hack/build-images.sh) or by the Dockerfile; the name only has to
// match what the node has.
const ImageRepository = "sim.x-k8s.io"

// SimulatorImage is the default simulator image: the one built from this very
// source tree, so a server and the simulators it creates agree on the env contract.
func SimulatorImage() string {
	return ImageRepository + "/simulator:" + Version
}

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

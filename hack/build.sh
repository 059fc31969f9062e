#!/usr/bin/env bash
# Copyright 2026 The Kubernetes Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Builds this tree's binaries into BIN_DIR (default _output/bin), static:
# sim-apiserver, simulator and kubectl-sim (./cmd/... of the root module), and
# sim-scheduler and sim-control-plane (the module cmd/sim-scheduler, which
# links kube's scheduler and must pin the k8s.io/kubernetes of hack/tools). `make build` runs it, and
# so does every test that runs one of them (test/framework), so that a test
# never runs a binary older than the tree: go build relinks only what
# changed, and leaves an up-to-date binary alone (about a second).
#
# Environment:
#   BIN_DIR   output directory (relative paths are relative to the repo root)
#   VERSION   pkg/version.Version (default: git describe --tags --always --dirty)

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/kube-ldflags.sh
source "${REPO_ROOT}/hack/lib/kube-ldflags.sh"
# shellcheck source=hack/lib/go-env.sh
source "${REPO_ROOT}/hack/lib/go-env.sh"
cd "${REPO_ROOT}"

BIN_DIR="${BIN_DIR:-_output/bin}"
if [[ "${BIN_DIR}" != /* ]]; then
  BIN_DIR="${REPO_ROOT}/${BIN_DIR}"
fi
VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)}"
jobs="$(build_jobs)"
mkdir -p "${BIN_DIR}"
# One build at a time into BIN_DIR: a test, the image build and make run may
# start together.
exec 9>"${BIN_DIR}/.build.lock"
flock 9

go build -p "${jobs}" -ldflags "-s -w -X sigs.k8s.io/simulator-apiserver/pkg/version.Version=${VERSION}" -o "${BIN_DIR}/" ./cmd/...

# sim-scheduler links kube's scheduler: it must be the version the other
# binaries are, or the simulator would mix two schedulers' behaviour.
kube_ldflags
cd "${REPO_ROOT}/cmd/sim-scheduler"
sim_kube_version="$(GOWORK=off GOFLAGS=-mod=readonly go list -m -f '{{.Version}}' k8s.io/kubernetes)"
if [[ "${sim_kube_version}" != "${kube_version}" ]]; then
  echo "error: cmd/sim-scheduler pins k8s.io/kubernetes ${sim_kube_version}, hack/tools ${kube_version}" >&2
  exit 1
fi
GOWORK=off GOFLAGS="${GOFLAGS} -mod=readonly" go build -p "${jobs}" -ldflags "${ldflags[*]}" -o "${BIN_DIR}/sim-scheduler" .
# sim-control-plane: kube-apiserver, kube-controller-manager, kwok and
# sim-scheduler in one process (SIMULATOR_SHARED_RUNTIME=true).
GOWORK=off GOFLAGS="${GOFLAGS} -mod=readonly" go build -p "${jobs}" -ldflags "${ldflags[*]}" -o "${BIN_DIR}/sim-control-plane" ./control-plane

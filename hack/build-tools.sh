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

# Builds the pinned binaries of hack/tools (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet, kube-proxy, kwok, kwokctl) into
# BIN_DIR (default _output/bin). The versions come from hack/tools/go.mod.
# Then builds sim-scheduler, the simulator's scheduler, from its own module
# cmd/sim-scheduler, which must pin the same k8s.io/kubernetes.
#
# Nothing of hack/tools is rebuilt when every binary exists and
# hack/tools/go.mod, go.sum, this script and the Go toolchain are unchanged
# since the last build (their sha256 is kept in BIN_DIR/.tools-stamp).
# FORCE=true rebuilds anyway. sim-scheduler is always built: go build leaves
# an up-to-date binary alone.
#
# Environment:
#   BIN_DIR      output directory (relative paths are relative to the repo root)
#   BUILD_JOBS   go build -p (default: number of CPUs, at most 2; linking
#                kubelet or kube-apiserver peaks at ~2.4 GB RSS each)
#   FORCE        "true" to rebuild unconditionally

set -o errexit
set -o nounset
set -o pipefail

SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
REPO_ROOT="$(cd "$(dirname "${SCRIPT}")/.." && pwd)"
TOOLS_DIR="${REPO_ROOT}/hack/tools"
SIM_SCHEDULER_DIR="${REPO_ROOT}/cmd/sim-scheduler"
BIN_DIR="${BIN_DIR:-_output/bin}"
if [[ "${BIN_DIR}" != /* ]]; then
  BIN_DIR="${REPO_ROOT}/${BIN_DIR}"
fi
STAMP_FILE="${BIN_DIR}/.tools-stamp"

# Main packages to build; the binary name is the last path element, except
# for etcd whose main package is the module root.
declare -A PACKAGES=(
  [etcd]="go.etcd.io/etcd/server/v3"
  [kube-apiserver]="k8s.io/kubernetes/cmd/kube-apiserver"
  [kube-controller-manager]="k8s.io/kubernetes/cmd/kube-controller-manager"
  [kube-scheduler]="k8s.io/kubernetes/cmd/kube-scheduler"
  [kubelet]="k8s.io/kubernetes/cmd/kubelet"
  [kube-proxy]="k8s.io/kubernetes/cmd/kube-proxy"
  [kwok]="sigs.k8s.io/kwok/cmd/kwok"
  [kwokctl]="sigs.k8s.io/kwok/cmd/kwokctl"
)

cd "${TOOLS_DIR}"
export GOWORK=off
export CGO_ENABLED=0
# go.sum is complete: refuse to silently change the pins during a build.
export GOFLAGS="${GOFLAGS:-} -mod=readonly"

stamp() {
  local inputs
  inputs="$(sha256sum go.mod go.sum "${SCRIPT}")"
  inputs+="$(go env GOVERSION GOOS GOARCH)"
  sha256sum <<<"${inputs}" | awk '{print $1}'
}

want_stamp="$(stamp)"
up_to_date=true
if [[ "${FORCE:-false}" == "true" ]]; then
  up_to_date=false
elif [[ ! -f "${STAMP_FILE}" || "$(cat "${STAMP_FILE}")" != "${want_stamp}" ]]; then
  up_to_date=false
else
  for bin in "${!PACKAGES[@]}"; do
    if [[ ! -x "${BIN_DIR}/${bin}" ]]; then
      up_to_date=false
      break
    fi
  done
fi
module_version() {
  go list -m -f '{{.Version}}' "$1"
}

kube_version="$(module_version k8s.io/kubernetes)"       # v1.37.2
etcd_version="$(module_version go.etcd.io/etcd/server/v3)" # v3.7.3
kwok_version="$(module_version sigs.k8s.io/kwok)"          # v0.8.0
kube_major="$(cut -d. -f1 <<<"${kube_version#v}")"
kube_minor="$(cut -d. -f2 <<<"${kube_version#v}")"
build_date="$(date -u ${SOURCE_DATE_EPOCH:+--date=@${SOURCE_DATE_EPOCH}} +'%Y-%m-%dT%H:%M:%SZ')"

# The same -X flags as kube's hack/lib/version.sh, so that kubectl version
# and the components' /version parse. Flags for packages a binary does not
# link are ignored by the linker, so one set serves every binary.
ldflags=(-s -w)
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=(
    "-X ${pkg}.gitVersion=${kube_version}"
    "-X ${pkg}.gitMajor=${kube_major}"
    "-X ${pkg}.gitMinor=${kube_minor}"
    "-X ${pkg}.gitCommit=${kube_version}"
    "-X ${pkg}.gitTreeState=clean"
    "-X ${pkg}.buildDate=${build_date}"
  )
done
ldflags+=(
  "-X go.etcd.io/etcd/api/v3/version.GitSHA=${etcd_version}"
  "-X sigs.k8s.io/kwok/pkg/consts.Version=${kwok_version#v}"
  "-X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${kube_version#v}"
)

jobs="${BUILD_JOBS:-$(nproc)}"
if [[ -z "${BUILD_JOBS:-}" && "${jobs}" -gt 2 ]]; then
  jobs=2
fi

mkdir -p "${BIN_DIR}"
if [[ "${up_to_date}" == "true" ]]; then
  echo "tools in ${BIN_DIR} are up to date (${STAMP_FILE})"
else
  rm -f "${STAMP_FILE}"
  echo "building kube ${kube_version}, etcd ${etcd_version}, kwok ${kwok_version} into ${BIN_DIR} (-p ${jobs})"
  start="$(date +%s)"
  for bin in $(printf '%s\n' "${!PACKAGES[@]}" | sort); do
    pkg="${PACKAGES[${bin}]}"
    echo "  ${bin} (${pkg})"
    go build -p "${jobs}" -trimpath -ldflags "${ldflags[*]}" -o "${BIN_DIR}/${bin}" "${pkg}"
  done
  echo "${want_stamp}" >"${STAMP_FILE}"
  echo "built $(printf '%s ' "${!PACKAGES[@]}")in $(($(date +%s) - start))s"
fi

# sim-scheduler links kube's scheduler: it must be the version the other
# binaries are, or the simulator would mix two schedulers' behaviour.
cd "${SIM_SCHEDULER_DIR}"
sim_kube_version="$(module_version k8s.io/kubernetes)"
if [[ "${sim_kube_version}" != "${kube_version}" ]]; then
  echo "error: cmd/sim-scheduler pins k8s.io/kubernetes ${sim_kube_version}, hack/tools ${kube_version}" >&2
  exit 1
fi
start="$(date +%s)"
go build -p "${jobs}" -trimpath -ldflags "${ldflags[*]}" -o "${BIN_DIR}/sim-scheduler" .
echo "sim-scheduler in ${BIN_DIR} ($(($(date +%s) - start))s)"

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
# This tree's own binaries (sim-scheduler among them) are hack/build.sh's.
#
# Nothing is rebuilt when every binary exists and hack/tools/go.mod, go.sum,
# this script, hack/lib/kube-ldflags.sh and the Go toolchain are unchanged
# since the last build (their sha256 is kept in BIN_DIR/.tools-stamp).
# FORCE=true rebuilds anyway; CHECK=true builds nothing and fails, saying
# so, unless the binaries are up to date (the test framework asks).
#
# Environment:
#   BIN_DIR      output directory (relative paths are relative to the repo root)
#   BUILD_JOBS   go build -p (default: number of CPUs, at most 2; linking
#                kubelet or kube-apiserver peaks at ~2.4 GB RSS each)
#   FORCE        "true" to rebuild unconditionally
#   CHECK        "true" to only check that the binaries are up to date

set -o errexit
set -o nounset
set -o pipefail

SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
REPO_ROOT="$(cd "$(dirname "${SCRIPT}")/.." && pwd)"
TOOLS_DIR="${REPO_ROOT}/hack/tools"
LIB="${REPO_ROOT}/hack/lib/kube-ldflags.sh"
# shellcheck source=hack/lib/kube-ldflags.sh
source "${LIB}"
# shellcheck source=hack/lib/go-env.sh
source "${REPO_ROOT}/hack/lib/go-env.sh"
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
# go.sum is complete: refuse to silently change the pins during a build.
export GOFLAGS="${GOFLAGS} -mod=readonly"

stamp() {
  local inputs
  inputs="$(sha256sum go.mod go.sum "${SCRIPT}" "${LIB}" "${REPO_ROOT}/hack/lib/go-env.sh")"
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
if [[ "${CHECK:-false}" == "true" ]]; then
  if [[ "${up_to_date}" != "true" ]]; then
    echo "the pinned tools in ${BIN_DIR} are missing or stale (hack/tools/go.mod, go.sum or the build changed since ${STAMP_FILE}): run make tools" >&2
    exit 1
  fi
  exit 0
fi

kube_ldflags # kube_version, etcd_version, kwok_version, ldflags
jobs="$(build_jobs)"

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
    go build -p "${jobs}" -ldflags "${ldflags[*]}" -o "${BIN_DIR}/${bin}" "${pkg}"
  done
  echo "${want_stamp}" >"${STAMP_FILE}"
  echo "built $(printf '%s ' "${!PACKAGES[@]}")in $(($(date +%s) - start))s"
fi

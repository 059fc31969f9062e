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

# Builds the project's images without a Docker engine, FROM scratch with
# buildah (vfs storage, so no overlay or fuse is needed), as docker-archive
# tarballs in OUT_DIR that `ctr images import` and `docker load` read:
#
#   simulator.tar      sim.x-k8s.io/simulator:VERSION: simulator (entrypoint),
#                      kube-apiserver, sim-scheduler (kube-scheduler that
#                      records its plugins' results), kwok, etcd and
#                      sim-control-plane (the four but etcd in one process)
#                      in /usr/local/bin (on PATH); empty /tmp and /var/lib/etcd.
#                      A simulator Pod's etcd container runs it with command etcd.
#   sim-apiserver.tar  sim.x-k8s.io/sim-apiserver:VERSION, runs as 65532.
#   pause.tar          sim.x-k8s.io/pause:PAUSE_TAG, the node's sandbox image.
#   httpclient.tar     sim.x-k8s.io/httpclient:test, runs as 65532: the test
#                      client (test/images/httpclient) that e2e tests run in
#                      Pods to attack what Pods reach. Only tests ask for it
#                      (not in the default IMAGES); its tag is fixed, as the
#                      node's containerd is new with every cluster.
#
# VERSION defaults to what the Makefile stamps into the binaries, so that
# sim-apiserver's default simulator image (pkg/version) is the one built here.
# The kube binaries come from BIN_DIR (`make tools`); simulator, sim-apiserver
# sim-scheduler and sim-control-plane are hack/build.sh's, which this script runs into BIN_DIR
# first; pause and httpclient are built static from this tree into OUT_DIR/bin.
#
# An image is rebuilt only when its inputs (binaries, VERSION, this script)
# changed: their sha256 is kept next to the tarball in <image>.tar.stamp.
#
# Environment:
#   VERSION   image tag and pkg/version.Version (default: git describe, as the Makefile)
#   IMAGES    images to build (default: "pause simulator sim-apiserver")
#   BIN_DIR   the kube binaries and this tree's (default _output/bin)
#   OUT_DIR   tarballs, binaries, stamps (default _output/images)
#   FORCE     "true" to rebuild unconditionally
# Prints the tarball of each image, one per line, on stdout; progress on stderr.

set -o errexit
set -o nounset
set -o pipefail

SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
REPO_ROOT="$(cd "$(dirname "${SCRIPT}")/.." && pwd)"
# shellcheck source=hack/lib/go-env.sh
source "${REPO_ROOT}/hack/lib/go-env.sh"
cd "${REPO_ROOT}"

VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)}"
IMAGES="${IMAGES:-pause simulator sim-apiserver}"
BIN_DIR="${BIN_DIR:-_output/bin}"
OUT_DIR="${OUT_DIR:-_output/images}"
FORCE="${FORCE:-false}"
IMAGE_REPO="sim.x-k8s.io"
PAUSE_TAG="1.0"
MODULE="sigs.k8s.io/simulator-apiserver"

log() { echo "$*" >&2; }

hack/node/install-deps.sh >&2
mkdir -p "${OUT_DIR}/bin"
OUT_DIR="$(cd "${OUT_DIR}" && pwd)"
if [[ "${BIN_DIR}" != /* ]]; then
  BIN_DIR="${REPO_ROOT}/${BIN_DIR}"
fi

# One build at a time (a test and `make run` may start together): they share
# the binaries, the buildah storage and the tarballs.
exec 9>"${OUT_DIR}/.lock"
flock 9

# go_build PACKAGE NAME: a static test binary in OUT_DIR/bin. go build
# leaves an up-to-date output alone, so an unchanged tree costs no link.
go_build() {
  go build -ldflags "-s -w" -o "${OUT_DIR}/bin/$2" "$1"
}
# The tree's own binaries, with the image's VERSION stamped in.
if [[ " ${IMAGES} " == *" simulator "* || " ${IMAGES} " == *" sim-apiserver "* ]]; then
  BIN_DIR="${BIN_DIR}" VERSION="${VERSION}" hack/build.sh >&2
fi

# require_tools NAME...: fails unless BIN_DIR has every binary.
require_tools() {
  for name in "$@"; do
    if [[ ! -x "${BIN_DIR}/${name}" ]]; then
      log "error: ${BIN_DIR}/${name} is missing; run make tools"
      exit 1
    fi
  done
}

# Buildah keeps its storage under OUT_DIR for the length of this run only,
# and its network configuration too, which it creates (/etc/cni/net.d by
# default) though the builds run nothing: nothing of it is left on the machine.
STORAGE="${OUT_DIR}/.buildah"
mkdir -p "${STORAGE}"
export CONTAINERS_CONF="${STORAGE}/containers.conf"
printf '[network]\nnetwork_config_dir = "%s"\n' "${STORAGE}/net.d" >"${CONTAINERS_CONF}"
buildah_() {
  buildah --storage-driver vfs --root "${STORAGE}/root" --runroot "${STORAGE}/run" "$@"
}
cleanup() {
  if [[ -d "${STORAGE}" ]]; then
    buildah_ rm --all >/dev/null 2>&1 || true
    rm -rf "${STORAGE}"
  fi
}
trap cleanup EXIT

# build NAME REF USER ENTRYPOINT DIRS DIR:FILE...: builds image REF from
# scratch with the (space separated) DIRS made world-writable and each FILE
# copied into DIR, and writes OUT_DIR/NAME.tar unless its stamp says it is up
# to date.
build() {
  local name="$1" ref="$2" user="$3" entrypoint="$4" dirs="$5"
  shift 5
  local tar="${OUT_DIR}/${name}.tar"
  local stamp
  stamp="$({
    echo "${ref} ${user} ${entrypoint} ${dirs} $*"
    sha256sum "${SCRIPT}"
    for spec in "$@"; do sha256sum "${spec#*:}"; done
  } | sha256sum | awk '{print $1}')"
  if [[ "${FORCE}" != "true" && -f "${tar}" && "$(cat "${tar}.stamp" 2>/dev/null)" == "${stamp}" ]]; then
    log "${ref}: up to date (${tar})"
    echo "${tar}"
    return
  fi
  local start ctr root
  start="$(date +%s%N)"
  ctr="$(buildah_ from scratch)"
  root="$(buildah_ mount "${ctr}")"
  for dir in ${dirs}; do
    mkdir -p "${root}${dir}"
    chmod 1777 "${root}${dir}"
  done
  for spec in "$@"; do
    mkdir -p "${root}${spec%%:*}"
    install -m 0755 "${spec#*:}" "${root}${spec%%:*}/"
  done
  buildah_ umount "${ctr}" >/dev/null
  buildah_ config \
    --entrypoint "[\"${entrypoint}\"]" --cmd '' \
    --env PATH=/usr/local/bin:/usr/bin:/bin \
    --user "${user}" --workingdir / \
    --label "org.opencontainers.image.version=${VERSION}" \
    --label "org.opencontainers.image.source=https://${MODULE}" \
    "${ctr}"
  buildah_ commit --quiet --rm "${ctr}" "${ref}" >/dev/null
  rm -f "${tar}" "${tar}.stamp" "${tar}.tmp"
  buildah_ push --quiet "${ref}" "docker-archive:${tar}.tmp:${ref}" >/dev/null
  buildah_ rmi "${ref}" >/dev/null
  mv "${tar}.tmp" "${tar}"
  echo "${stamp}" >"${tar}.stamp"
  log "${ref}: built ${tar} ($(du -m "${tar}" | cut -f1) MiB) in $((($(date +%s%N) - start) / 1000000)) ms"
  echo "${tar}"
}

for image in ${IMAGES}; do
  case "${image}" in
  pause)
    go_build ./hack/node/pause pause
    build pause "${IMAGE_REPO}/pause:${PAUSE_TAG}" 65535 /pause "" "/:${OUT_DIR}/bin/pause"
    ;;
  simulator)
    require_tools kube-apiserver sim-scheduler sim-control-plane kube-controller-manager kwok etcd
    build simulator "${IMAGE_REPO}/simulator:${VERSION}" 0 /usr/local/bin/simulator "/tmp /var/lib/etcd" \
      "/usr/local/bin:${BIN_DIR}/simulator" \
      "/usr/local/bin:${BIN_DIR}/kube-apiserver" \
      "/usr/local/bin:${BIN_DIR}/sim-scheduler" \
      "/usr/local/bin:${BIN_DIR}/sim-control-plane" \
      "/usr/local/bin:${BIN_DIR}/kube-controller-manager" \
      "/usr/local/bin:${BIN_DIR}/kwok" \
      "/usr/local/bin:${BIN_DIR}/etcd"
    ;;
  sim-apiserver)
    build sim-apiserver "${IMAGE_REPO}/sim-apiserver:${VERSION}" 65532:65532 /sim-apiserver /tmp \
      "/:${BIN_DIR}/sim-apiserver"
    ;;
  httpclient)
    go_build ./test/images/httpclient httpclient
    build httpclient "${IMAGE_REPO}/httpclient:test" 65532:65532 /httpclient "" "/:${OUT_DIR}/bin/httpclient"
    ;;
  *)
    log "error: unknown image ${image} (want pause, simulator, sim-apiserver or httpclient)"
    exit 1
    ;;
  esac
done

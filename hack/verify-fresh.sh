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

# Proves that README's two commands work on a fresh machine: it clones the
# committed HEAD of this repository into a new directory and runs, there, with
# empty temporary Go module and build caches (GOMODCACHE, GOCACHE, GOPATH) and
# no _output:
#
#   1. `make test` (with CI=true, as .ci/run does), timed, then
#      `make verify`, timed too (what it adds once the test's build is cached:
#      staticcheck's analysis, the code generators);
#   2. `make run` until it prints the KUBECONFIG to use, then Ctrl-C (SIGINT),
#      timed.
#
# --only test or --only run does one of them: the time of a first `make run`
# on a fresh machine is that of `--only run` (after `make test` the caches are
# warm).
#
# So a step that only works because a module, a binary or a tool is already on
# this machine fails here, not on a user's. Uncommitted changes are not part
# of the clone: commit first.
#
# With --remove-node-packages it first purges the Debian packages the node
# installs (hack/node/install-deps.sh, but iproute2), so that their
# installation is part of the run too, as on a fresh machine. That changes the
# machine: run it only where no other cluster with a node is running.
#
# Needs root (the node). Takes ~20-40 minutes: everything is downloaded and
# compiled from nothing. The caches go with the run unless --keep.
#
# Usage: hack/verify-fresh.sh [--only test|run] [--remove-node-packages] [--keep] [--dir DIR]

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
remove_packages=false
only=""
keep=false
work=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --remove-node-packages) remove_packages=true ;;
    --only) only="$2"; shift ;;
    --keep) keep=true ;;
    --dir) work="$2"; shift ;;
    *) echo "usage: $0 [--only test|run] [--remove-node-packages] [--keep] [--dir DIR]" >&2; exit 2 ;;
  esac
  shift
done
if [[ "$(id -u)" -ne 0 ]]; then
  echo "error: make test and make run start a node: run as root" >&2
  exit 1
fi

work="${work:-$(mktemp -d -t verify-fresh.XXXXXX)}"
mkdir -p "${work}"
cleanup() {
  if [[ "${keep}" == "true" ]]; then
    echo "kept ${work}"
    return
  fi
  # The module cache is read-only by design.
  chmod -R u+w "${work}" 2>/dev/null || true
  rm -rf "${work}"
}
trap cleanup EXIT

clone="${work}/simulator-apiserver"
git clone --quiet --no-local "${REPO_ROOT}" "${clone}"
echo "fresh clone of $(git -C "${clone}" rev-parse --short HEAD) in ${clone}"

# Nothing of this machine's Go state: new caches, a new GOPATH (so no
# installed tool in ~/go/bin is found), the toolchain itself is all that stays.
export GOMODCACHE="${work}/gomodcache"
export GOCACHE="${work}/gocache"
export GOPATH="${work}/gopath"
# Tools keep caches of their own under it (staticcheck's analysis facts).
export XDG_CACHE_HOME="${work}/cache"
unset GOBIN
export PATH="${GOPATH}/bin:$(go env GOROOT)/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export CI=true

if [[ "${remove_packages}" == "true" ]]; then
  packages=(containerd runc containernetworking-plugins buildah iptables nftables)
  echo "purging ${packages[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >/dev/null
fi

elapsed() { echo $(($(date +%s) - $1)); }
# stamp prefixes each line with the seconds since $1, so that the log says
# where the time of a fresh run goes.
stamp() {
  local line now
  while IFS= read -r line; do
    printf -v now '%(%s)T' -1
    printf '%5ds %s\n' "$((now - $1))" "${line}"
  done
}

cd "${clone}"
if [[ "${only}" != "run" ]]; then
  start="$(date +%s)"
  echo "=== make test (CI=true)"
  make test 2>&1 | stamp "${start}" | tee "${work}/make-test.log"
  test_seconds="$(elapsed "${start}")"
  echo "=== make test passed in ${test_seconds}s"
  start="$(date +%s)"
  echo "=== make verify"
  make verify 2>&1 | stamp "${start}" | tee "${work}/make-verify.log"
  verify_seconds="$(elapsed "${start}")"
  echo "=== make verify passed in ${verify_seconds}s"
fi

if [[ "${only}" != "test" ]]; then
  echo "=== make run (until it prints the KUBECONFIG)"
  start="$(date +%s)"
  log="${work}/make-run.log"
  setsid make run >"${log}" 2>&1 &
  pid=$!
  ready=false
  while kill -0 "${pid}" 2>/dev/null; do
    if grep -q 'export KUBECONFIG=' "${log}"; then
      ready=true
      break
    fi
    sleep 1
  done
  run_seconds="$(elapsed "${start}")"
  # SIGINT to the whole group, as Ctrl-C would; the program undoes the node.
  kill -INT -- "-${pid}" 2>/dev/null || true
  wait "${pid}" || true
  if [[ "${ready}" != "true" ]]; then
    cat "${log}"
    echo "FAIL: make run exited before printing the KUBECONFIG" >&2
    exit 1
  fi
  grep 'export KUBECONFIG=' "${log}"
  echo "=== make run was ready in ${run_seconds}s"
fi

echo "PASS from a fresh clone with empty Go caches:${test_seconds:+ make test ${test_seconds}s}${verify_seconds:+, then make verify ${verify_seconds}s}${run_seconds:+ make run ready in ${run_seconds}s}"

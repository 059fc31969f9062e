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

# Installs the Debian packages the local node needs (test/framework with
# Options.WithNode, `make run`, the e2e tests, hack/build-images.sh):
# containerd, runc, the CNI plugins, buildah, iptables, nftables (to remove the
# iptables tables a node created) and iproute2. With arguments, it installs
# those packages instead, the same way (the browser test's chromium). Packages
# already installed are left alone; when all are there it does nothing and
# needs no network. It must run as root.
#
# No service is started by the installation (policy-rc.d): the framework runs
# its own containerd with its own root, state and socket.

set -o errexit
set -o nounset
set -o pipefail

PACKAGES=(containerd runc containernetworking-plugins buildah iptables nftables iproute2)
if [[ $# -gt 0 ]]; then
  PACKAGES=("$@")
fi

installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == "installed" ]]
}

missing=()
find_missing() {
  missing=()
  for pkg in "${PACKAGES[@]}"; do
    if ! installed "${pkg}"; then
      missing+=("${pkg}")
    fi
  done
}
find_missing
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
  echo "error: the local node needs the Debian packages ${missing[*]}; installing them needs root." >&2
  echo "Run as root, or install them first: apt-get install ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "error: apt-get not found; install ${missing[*]} with this system's package manager" >&2
  exit 1
fi

# One installation at a time on the machine (tests of several checkouts may
# start together on a fresh machine): the second waits, then finds the
# packages there. The lock is on dpkg's directory, which apt does not flock,
# so that nothing is left behind. apt runs without the descriptor: nothing
# it starts may hold the lock.
exec 9</var/lib/dpkg
flock 9
find_missing
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

# Keep package scripts from starting the system's containerd.service.
policy=/usr/sbin/policy-rc.d
if [[ ! -e "${policy}" ]]; then
  printf '#!/bin/sh\nexit 101\n' >"${policy}"
  chmod 0755 "${policy}"
  trap 'rm -f "${policy}"' EXIT
fi

echo "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq 9<&-
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 9<&-
for pkg in "${missing[@]}"; do
  if ! installed "${pkg}"; then
    echo "error: ${pkg} is still not installed" >&2
    exit 1
  fi
done
echo "installed ${missing[*]}"

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

# Starts a local host cluster (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler) with a real node (kubelet, containerd, a CNI bridge) and
# sim-apiserver registered, in the foreground; Ctrl-C stops it and undoes the
# node's changes to the machine. The node needs root; on first use the
# framework installs its Debian packages and builds the images
# (hack/build-images.sh). State and logs go to _output/local, wiped at start.
# `make run` builds the binaries (make build tools) first. Arguments are
# passed to the program, e.g. -v=2, --dir=/some/dir or --without-node (no
# root needed, but simulators stay Pending).

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/go-env.sh
source "${REPO_ROOT}/hack/lib/go-env.sh"
cd "${REPO_ROOT}"

bin="_output/bin/local-up"
go build -o "${bin}" ./test/framework/localup
# exec: SIGINT/SIGTERM go straight to the program, which stops the cluster.
exec "${bin}" "$@"

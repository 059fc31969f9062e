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

# Sourced by hack/build-tools.sh and hack/build.sh: the pinned versions of
# hack/tools/go.mod and the linker flags that stamp them into a binary.

# kube_pins sets kube_version, etcd_version and kwok_version from
# hack/tools/go.mod (REPO_ROOT must be set).
kube_pins() {
  local v
  v="$(cd "${REPO_ROOT}/hack/tools" && GOWORK=off GOFLAGS=-mod=readonly go list -m -f '{{.Path}} {{.Version}}' \
    k8s.io/kubernetes go.etcd.io/etcd/server/v3 sigs.k8s.io/kwok)"
  kube_version="$(awk '$1 == "k8s.io/kubernetes" {print $2}' <<<"${v}")"
  etcd_version="$(awk '$1 == "go.etcd.io/etcd/server/v3" {print $2}' <<<"${v}")"
  kwok_version="$(awk '$1 == "sigs.k8s.io/kwok" {print $2}' <<<"${v}")"
}

# kube_ldflags sets the array ldflags: the same -X flags as kube's
# hack/lib/version.sh, so that kubectl version and the components' /version
# parse. Flags for packages a binary does not link are ignored by the
# linker, so one set serves every binary. The build date is
# SOURCE_DATE_EPOCH, else the date of the last commit that changed the pins:
# the same flags for the same inputs, so that go build leaves an up-to-date
# binary alone.
kube_ldflags() {
  kube_pins
  local major minor epoch build_date
  major="$(cut -d. -f1 <<<"${kube_version#v}")"
  minor="$(cut -d. -f2 <<<"${kube_version#v}")"
  epoch="${SOURCE_DATE_EPOCH:-$(git -C "${REPO_ROOT}" log -1 --format=%ct -- hack/tools/go.mod 2>/dev/null || true)}"
  build_date="$(date -u --date="@${epoch:-0}" +'%Y-%m-%dT%H:%M:%SZ')"
  ldflags=(-s -w)
  local pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=(
      "-X ${pkg}.gitVersion=${kube_version}"
      "-X ${pkg}.gitMajor=${major}"
      "-X ${pkg}.gitMinor=${minor}"
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
}

# build_jobs is go build -p: the number of CPUs, at most 2 (linking kubelet
# or kube-apiserver peaks at ~2.4 GB RSS each), unless BUILD_JOBS says.
build_jobs() {
  local jobs="${BUILD_JOBS:-$(nproc)}"
  if [[ -z "${BUILD_JOBS:-}" && "${jobs}" -gt 2 ]]; then
    jobs=2
  fi
  echo "${jobs}"
}

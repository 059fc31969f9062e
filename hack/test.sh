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

# Runs the unit tests, then the integration tests against a real host
# control plane (binaries from `make build tools`), then the e2e tests on a
# host cluster with a real node (kubelet, containerd: as root; the framework
# installs the Debian packages and builds the images it needs). `make test`
# runs it after verify, build and tools. Extra arguments go to every `go test`
# run, e.g. hack/test.sh -v -run TestAPIResources. With CI=true no test may
# skip.

set -o errexit
set -o nounset
set -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/go-env.sh
source "${REPO_ROOT}/hack/lib/go-env.sh"
cd "${REPO_ROOT}"

run() {
  echo "+ $*"
  "$@"
}

echo "=== unit tests"
run go test -count=1 "$@" ./pkg/... ./cmd/... ./test/images/... ./hack/benchreport/...
# sim-scheduler is a module of its own (it links k8s.io/kubernetes); built
# with hack/build-tools.sh's flags, it reuses that build's cache.
(cd cmd/sim-scheduler && GOWORK=off run go test -count=1 "$@" ./...)
# The modules that both import.
for m in "${SHARED_MODULES[@]}"; do
  (cd "${m}" && GOWORK=off run go test -count=1 "$@" ./...)
done

# Every Fuzz target runs its seed corpus with the unit tests above; here
# the cheap ones also explore for a few seconds each (FUZZTIME=0 skips).
# A count, not a duration: with a duration Go's fuzz coordinator can fail a
# target with "context deadline exceeded" when the deadline finds a starved
# worker mid-input (golang/go#75804, seen here in CI); a count only runs longer
# on a loaded machine (20000 executions: 8-19 s per target idle).
FUZZTIME="${FUZZTIME:-20000x}"
if [[ "${FUZZTIME}" != "0" ]]; then
  echo "=== fuzzing (${FUZZTIME} per target)"
  for target in ./pkg/nodetemplate:FuzzRender ./pkg/nodetemplate:FuzzAddCIDR ./pkg/apis/sim/validation:FuzzValidate; do
    run go test -run '^$' -fuzz "^${target#*:}\$" -fuzztime "${FUZZTIME}" -parallel 1 "${target%%:*}"
  done
  (cd pkg/schedulingresult && GOWORK=off run go test -run '^$' -fuzz '^FuzzUnmarshalBinary$' -fuzztime "${FUZZTIME}" -parallel 1 .)
fi

echo "=== integration tests"
# Two runs at a time: each package starts clusters of its own, and most of
# their time is spent waiting on them (a load of about 1 on 2 cores).
# test/integration alone takes as long as the other packages together, so
# its fault tests (each restarts a component of its own cluster), the
# external etcd's TLS cases (waits of the simulator's etcd grace) and the
# flood (a host of its own, and a latency budget that wants the machine to
# itself, as test/simulator's starts would not leave it) run in a second
# process, after the other packages.
# Extra arguments (a -run of one's own) take the packages as they are.
if [[ $# -gt 0 ]]; then
  run go test -count=1 -p 2 -timeout 45m "$@" ./test/framework/... ./test/simulator/... ./test/integration/...
else
  apart='^(TestFault.*|TestExternalEtcdTLS|TestFlood)$'
  run go test -count=1 -timeout 45m -skip "${apart}" ./test/integration &
  main_run=$!
  (
    run go test -count=1 -p 1 -timeout 45m ./test/framework/... ./test/simulator/... ./test/integration/storagesuite/...
    run go test -count=1 -timeout 30m -run "${apart}" ./test/integration
  ) &
  other_runs=$!
  failed=0
  wait "${main_run}" || failed=1
  wait "${other_runs}" || failed=1
  if [[ "${failed}" -ne 0 ]]; then
    echo "integration tests failed" >&2
    exit 1
  fi
fi

# One cluster with a node per package; the first run builds the images.
# Verbose: the tests log figures (start, create → Available, memory).
echo "=== e2e tests"
run go test -count=1 -p 1 -timeout 45m -v "$@" ./test/e2e/...

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

# go vet over every module of the project, in the build configuration of
# hack/lib/go-env.sh (whose build cache it shares with the tests and the
# binaries).

set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/go-env.sh
source "${REPO_ROOT}/hack/lib/go-env.sh"
cd "${REPO_ROOT}"

go vet ./...
(cd cmd/sim-scheduler && GOWORK=off go vet ./...)
for m in "${SHARED_MODULES[@]}"; do
  (cd "${m}" && GOWORK=off go vet ./...)
done
echo "go vet: ok"

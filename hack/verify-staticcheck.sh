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

# Runs staticcheck, at the version hack/lint/go.mod pins, with its default
# checks over every module of the project: the root module (but the
# generated clients and OpenAPI, which are never edited by hand),
# cmd/sim-scheduler and the modules both import (SHARED_MODULES). Findings fail it; fix them, or
# silence one with a //lint:ignore that says why.

set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/go-env.sh
source "${REPO_ROOT}/hack/lib/go-env.sh"
cd "${REPO_ROOT}"
STATICCHECK="${REPO_ROOT}/_output/tools/staticcheck"
(cd hack/lint && GOWORK=off go build -o "${STATICCHECK}" honnef.co/go/tools/cmd/staticcheck)

ret=0
# shellcheck disable=SC2046 # one package path per word
"${STATICCHECK}" $(go list ./... | grep -v '/pkg/generated/') || ret=1
(cd cmd/sim-scheduler && GOWORK=off "${STATICCHECK}" ./...) || ret=1
for m in "${SHARED_MODULES[@]}"; do
  (cd "${m}" && GOWORK=off "${STATICCHECK}" ./...) || ret=1
done
if [[ ${ret} -ne 0 ]]; then
  echo "FAIL: staticcheck reported the findings above" >&2
  exit 1
fi
echo "staticcheck: no findings"

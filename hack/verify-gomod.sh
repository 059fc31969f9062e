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

# Fails when a go.mod or go.sum of the project's modules is not what
# `go mod tidy` would make it: a requirement marked indirect that a package
# imports, one no package needs, a missing checksum. It may download modules
# that only tests of dependencies need (tidy considers them).

set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=hack/lib/go-env.sh
source "${REPO_ROOT}/hack/lib/go-env.sh"
cd "${REPO_ROOT}"

# Every module the repository holds, so that a new one is checked too.
mapfile -t modules < <(git ls-files -- go.mod '*/go.mod' | xargs -n1 dirname)
ret=0
for m in "${modules[@]}"; do
  if ! diff="$(cd "${m}" && GOWORK=off go mod tidy -diff 2>&1)"; then
    echo "FAIL: ${m}/go.mod is not tidy (run: cd ${m} && GOWORK=off go mod tidy):" >&2
    echo "${diff}" | grep -v '^go: downloading' >&2
    ret=1
  fi
done
if [[ ${ret} -eq 0 ]]; then
  echo "go.mod: every module is tidy"
fi
exit ${ret}

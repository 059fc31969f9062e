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
# Fails when the generated code differs from what hack/update-codegen.sh makes
# now. The tree is left as it was.
set -o errexit -o nounset -o pipefail

SCRIPT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "${SCRIPT_ROOT}"
SNAPSHOT="$(mktemp -d -t verify-codegen.XXXXXX)"
trap 'rm -rf "${SNAPSHOT}"' EXIT

# Everything the generators write: pkg/, the simulator's bootstrap objects
# and the API rule report.
POLICY=cmd/simulator/internal/bootstrapseed/zz_generated.bootstrap_objects.json
cp -a pkg "${SNAPSHOT}/pkg"
cp -a "${POLICY}" "${SNAPSHOT}/bootstrap_objects.json"
cp -a hack/api-violations.list "${SNAPSHOT}/api-violations.list"

restore() {
  rm -rf pkg && cp -a "${SNAPSHOT}/pkg" pkg
  cp -a "${SNAPSHOT}/bootstrap_objects.json" "${POLICY}"
  cp -a "${SNAPSHOT}/api-violations.list" hack/api-violations.list
}

if ! hack/update-codegen.sh >"${SNAPSHOT}/log" 2>&1; then
  cat "${SNAPSHOT}/log"
  restore
  echo "FAIL: hack/update-codegen.sh failed" >&2
  exit 1
fi

ret=0
diff -Naupr "${SNAPSHOT}/pkg" pkg || ret=1
diff -Naup "${SNAPSHOT}/bootstrap_objects.json" "${POLICY}" || ret=1
diff -Naup "${SNAPSHOT}/api-violations.list" hack/api-violations.list || ret=1
restore
if [[ ${ret} -ne 0 ]]; then
  echo "FAIL: generated code is stale: run hack/update-codegen.sh (or make codegen) and commit the result" >&2
  exit 1
fi
echo "generated code is up to date"

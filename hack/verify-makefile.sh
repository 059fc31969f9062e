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

# Fails unless the Makefile's .PHONY names exactly its targets: a phony name
# without a rule is a typo or a target that went away, and a target missing
# from .PHONY stops running once a file of its name exists.

set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MAKEFILE="${1:-${REPO_ROOT}/Makefile}"

phony="$(sed -n 's/^\.PHONY:[[:space:]]*//p' "${MAKEFILE}" | tr ' \t' '\n\n' | sed '/^$/d' | sort -u)"
targets="$(grep -E '^[A-Za-z0-9_.-]+:([^=]|$)' "${MAKEFILE}" | cut -d: -f1 | grep -v '^\.' | sort -u)"

ret=0
if missing="$(comm -23 <(echo "${phony}") <(echo "${targets}"))" && [[ -n "${missing}" ]]; then
  echo "FAIL: .PHONY names targets ${MAKEFILE} does not have:" ${missing} >&2
  ret=1
fi
if undeclared="$(comm -13 <(echo "${phony}") <(echo "${targets}"))" && [[ -n "${undeclared}" ]]; then
  echo "FAIL: targets missing from .PHONY:" ${undeclared} >&2
  ret=1
fi
if [[ ${ret} -eq 0 ]]; then
  echo ".PHONY names every target of ${MAKEFILE}, and only those"
fi
exit ${ret}

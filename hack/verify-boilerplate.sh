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

# Fails unless every Go file, shell script, Makefile and Dockerfile of the
# project opens with the licence header: hack/boilerplate.go.txt for Go
# (after build constraints, which the generators put first),
# hack/boilerplate.sh.txt for the others (after a shebang), any year. Checks the files git knows and the new ones it would add.

set -o errexit -o nounset -o pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${REPO_ROOT}"

# header FILE TEMPLATE: the file's first lines, as many as the template's,
# after a shebang or build constraints, with the year of the copyright line
# replaced by 2026.
header() {
  local n
  n="$(wc -l <"$2")"
  awk -v n="${n}" '
    NR == 1 && /^#!/ { next }
    start && (/^\/\/go:build / || /^\/\/ \+build / || /^$/) { next }
    { start = 0; print; if (++printed == n) exit }
  ' start=1 "$1" |
    sed -E '0,/Copyright [0-9]{4} /s//Copyright 2026 /'
}

failed=()
while IFS= read -r file; do
  [[ -f "${file}" ]] || continue
  case "${file}" in
  *.go) template=hack/boilerplate.go.txt ;;
  *.sh | */Makefile | Makefile | */Dockerfile | Dockerfile | .ci/run) template=hack/boilerplate.sh.txt ;;
  *) continue ;;
  esac
  if ! diff -q <(header "${file}" "${template}") "${template}" >/dev/null; then
    failed+=("${file}")
  fi
done < <(git ls-files --cached --others --exclude-standard)

if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'FAIL: no licence header (%s):\n' "hack/boilerplate.{go,sh}.txt" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "every file has its licence header"

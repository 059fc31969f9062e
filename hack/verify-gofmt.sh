#!/usr/bin/env bash
# Fails when a Go file of the project is not gofmt-ed.
set -o errexit -o nounset -o pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bad="$(git ls-files -z --cached --others --exclude-standard '*.go' | xargs -0 -r gofmt -l)"
if [[ -n "${bad}" ]]; then
  echo "FAIL: not gofmt-ed (run gofmt -w on them):" >&2
  echo "${bad}" >&2
  exit 1
fi
echo "gofmt: ok"

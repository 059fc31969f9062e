#!/usr/bin/env bash
# Runs the benchmarks of DESIGN §8 side by side in one run, against a real
# host control plane (binaries from `make build tools`). Figures are
# percentiles reported as custom metrics (p50-ms, p90-ms, ...); compare
# ratios within one run, never across machines. Extra arguments go to go test.
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
set -x
go test -count=1 -run '^$' -bench . -benchtime "${BENCHTIME:-300x}" "$@" ./test/integration/

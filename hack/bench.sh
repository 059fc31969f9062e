#!/usr/bin/env bash
# Runs the benchmarks of DESIGN §8 side by side in one run (binaries from
# `make build tools`): against the host control plane (proxy GET direct vs
# through the host; listing 100 simulators, with sim-apiserver's RSS; 5,000
# Nodes to Ready via a NodePool vs a raw create loop vs kwokctl scale; a
# simulator's CPU and RSS with 5,000 Nodes idle) and, as
# root, on the cluster with a node (direct vs the host's services/proxy vs
# sim-apiserver's proxy). Figures are percentiles reported as custom metrics
# (p50-ms, p90-ms, ...); compare ratios within one run, never across
# machines. Extra arguments go to go test.
# `make bench` runs it; the figures, as "name value unit" lines and as a
# table with ratios within each benchmark, end up in _output/bench/report.md
# (the raw output next to it, raw.txt).
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
benchtime="${BENCHTIME:-300x}"
out="${BENCH_DIR:-_output/bench}"
mkdir -p "${out}"
: >"${out}/raw.txt"
bench() {
  echo "+ go test $*"
  go test "$@" 2>&1 | tee -a "${out}/raw.txt"
}
bench -count=1 -run '^$' -bench . -skip 'NodesToReady|IdleNodes' -benchtime "${benchtime}" "$@" ./test/integration/
# Simulators filled with 5,000 Nodes (then left idle for 10 minutes): one run
# is the measurement.
bench -count=1 -run '^$' -bench 'NodesToReady|IdleNodes' -benchtime 1x -timeout 40m "$@" ./test/integration/
if [[ "$(id -u)" == "0" ]]; then
  bench -count=1 -run '^$' -bench . -benchtime "${benchtime}" "$@" ./test/e2e/
fi
{
  echo "# Benchmarks"
  echo
  echo "$(date -u +%FT%TZ), $(git describe --always --dirty 2>/dev/null), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB; \`hack/bench.sh${*:+ $*}\` with BENCHTIME=${benchtime}. Ratios are to the first contender of the same benchmark, within this run."
  echo
} >"${out}/report.md"
go run ./hack/benchreport "${out}/table.md" <"${out}/raw.txt"
cat "${out}/table.md" >>"${out}/report.md"
rm "${out}/table.md"
echo "wrote ${out}/report.md"

#!/usr/bin/env bash
# Runs the benchmarks of DESIGN §8 side by side in one run (binaries from
# `make build tools`): against the host control plane (proxy GET direct vs
# through the host; listing 100 simulators, with sim-apiserver's RSS; 5,000
# Nodes to Ready via a NodePool vs a raw create loop vs kwokctl scale) and, as
# root, on the cluster with a node (direct vs the host's services/proxy vs
# sim-apiserver's proxy). Figures are percentiles reported as custom metrics
# (p50-ms, p90-ms, ...); compare ratios within one run, never across
# machines. Extra arguments go to go test.
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
benchtime="${BENCHTIME:-300x}"
set -x
go test -count=1 -run '^$' -bench . -skip NodesToReady -benchtime "${benchtime}" "$@" ./test/integration/
# Three simulators filled with 5,000 Nodes each: one run is the measurement.
go test -count=1 -run '^$' -bench NodesToReady -benchtime 1x -timeout 30m "$@" ./test/integration/
if [[ "$(id -u)" == "0" ]]; then
  go test -count=1 -run '^$' -bench . -benchtime "${benchtime}" "$@" ./test/e2e/
fi

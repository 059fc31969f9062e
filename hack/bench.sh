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
# Runs every comparison of docs/performance.md in one run (`make bench`, after `make
# build tools`, as root: the three-path figures need the cluster with a
# node), each benchmark alternating its contenders so that the machine's
# drift hits them all:
#   test/e2e         small GET, LIST of 1,000 Nodes, watch latency (direct vs
#                    the host's services/proxy vs simulators/proxy);
#                    create → Available; the simulator Pod's RSS and
#                    working set (as kubectl top), and what two more
#                    simulators on the node add
#   test/integration 5,000 Nodes to Ready (NodePool vs raw loop vs kwokctl,
#                    with Ready-over-time samples); 100 simulators listed;
#                    kubectl sim why on a Pod pending among 5,000 Nodes;
#                    how cost grows with 1,000, 5,000 and 20,000 Nodes
#   test/simulator   scheduling throughput, sim-scheduler vs stock; a
#                    simulator's processes idle, its control plane as four
#                    processes and as one
# then hack/benchreport prints one "name value unit" line per figure and
# ratio (figures.txt) and writes _output/bench/report.md: the budgets, a
# table per benchmark, plots. Compare ratios within one run, never across
# machines.
#
# BENCH_QUICK=1 is for developing the benchmarks only: one round, 500 Nodes,
# no scheduling benchmark (it has no smaller size). Extra arguments go to
# every go test.
set -o errexit -o nounset -o pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=hack/lib/go-env.sh
source hack/lib/go-env.sh
out="${BENCH_DIR:-_output/bench}"
rounds=5
node_rounds=2
sched=1
if [[ "${BENCH_QUICK:-}" == 1 ]]; then
  export SIM_BENCH_NODES="${SIM_BENCH_NODES:-500}"
  export SIM_BENCH_SCALE="${SIM_BENCH_SCALE:-500}" SIM_BENCH_SCALE_PODS="${SIM_BENCH_SCALE_PODS:-200}"
  rounds=1
  node_rounds=1
  sched=0
fi
if [[ "$(id -u)" != 0 ]]; then
  echo "make bench needs root: the comparisons of paths run on the cluster with a node" >&2
  exit 1
fi
export SIM_NODE_LOCK_WAIT="${SIM_NODE_LOCK_WAIT:-60m}"
rm -rf "${out}"
mkdir -p "${out}"
export SIM_BENCH_DIR="$(cd "${out}" && pwd)"
load() { cut -d' ' -f1-3 /proc/loadavg; }
started="$(date -u '+%F %H:%M UTC')"
load_before="$(load)"
failed=()
bench() {
  echo "+ go test $*" | tee -a "${out}/raw.txt"
  if ! go test -count=1 -run '^$' "$@" 2>&1 | tee -a "${out}/raw.txt"; then
    failed+=("${*: -1}")
  fi
}
# The node's benchmarks last: another cluster with a node may hold the
# machine for a while (SIM_NODE_LOCK_WAIT).
# Two iterations of the three 5,000-Node makers, the order rotating (Go runs
# a first, single one before them, whose figures it discards): one 5,000-Node
# run of each moved the kwokctl ratio from 3.97x to 4.64x between two runs.
bench -bench NodesToReady -benchtime "${node_rounds}x" -timeout 60m "$@" ./test/integration/
# How a simulator's cost grows with its Nodes: 1,000, 5,000 and 20,000, one
# run of each.
bench -bench 'Scale$' -benchtime 1x -timeout 60m "$@" ./test/integration/
bench -bench ListSimulators -benchtime 300x -timeout 20m "$@" ./test/integration/
# kubectl sim why on a Pod pending among 5,000 Nodes: the table and -o json.
bench -bench KubectlSimWhy -benchtime "${rounds}x" -timeout 20m "$@" ./test/integration/
if [[ "${sched}" == 1 ]]; then
  # Three rounds (~2 minutes each): one round's ratio moved from 0.5x to
  # 1.7x between runs on a busy machine; the median of three moves less.
  bench -bench SchedulingThroughput -benchtime 3x -timeout 40m "$@" ./test/simulator/
fi
# A simulator's processes idle, its control plane as four processes and as
# one (~7 minutes).
bench -bench 'StartToReady$' -benchtime 2x -timeout 30m "$@" ./test/simulator/
# One replay: a minute of wall time for a trace of an hour at 60×.
bench -bench ScenarioReplay -benchtime 1x -timeout 20m "$@" ./test/simulator/
# A source of 5,000 Nodes and 50,000 Pods: its first copy (Once), and a
# Sync mirror's lag while the source changes 100 objects a second.
bench -bench 'Source(Import|Sync)' -benchtime 1x -timeout 40m "$@" ./test/simulator/
bench -bench . -benchtime "${rounds}x" -timeout 60m "$@" ./test/e2e/
{
  echo "# make bench"
  echo
  echo "- When: ${started} to $(date -u '+%H:%M UTC'), at $(git describe --always --dirty 2>/dev/null)"
  echo "- Machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM; load average ${load_before} at the start, $(load) at the end"
  echo "- Command: \`${BENCH_QUICK:+BENCH_QUICK=1 }hack/bench.sh${*:+ $*}\` (rounds of each comparison: ${rounds}, 5,000-Node makers ${node_rounds}, scheduling $((sched * 3)); raw output in raw.txt)"
  if [[ "${#failed[@]}" -gt 0 ]]; then
    echo "- **Failed**: ${failed[*]} (see raw.txt); their figures are missing"
  fi
} >"${out}/report.md"
go run ./hack/benchreport -out "${out}/body.md" -dir "${out}" <"${out}/raw.txt" | tee "${out}/figures.txt"
cat "${out}/body.md" >>"${out}/report.md"
rm "${out}/body.md"
# The budgets, met or not, and where the cost of each one missed goes.
sed -n '/^## Budgets/,/^## Figures/{/^## Figures/!p}' "${out}/report.md"
echo "wrote ${out}/report.md"
[[ "${#failed[@]}" == 0 ]]

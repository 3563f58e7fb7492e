#!/usr/bin/env bash
# What the coordinator costs: the harnesses records, usage, polls and day, each on a
# fresh Citus cluster of this machine (scripts/citus, a coordinator and two workers, in DIR) and
# on the embedded PostgreSQL they start by themselves, alternating, `rounds` times; each output
# kept in benchmark-results/citus-cost-<time>/<harness>-<citus|one>-<round>.txt.
# Usage: Benchmarks/citus-cost.sh [rounds] [DIR]
# CITUS_PORT as for scripts/citus. Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2}
dir=${2:-/tmp/familysync-citus-cost}
harnesses=("records" "usage" "polls 100 100 400" "day 30 30 0.25")
swift build -c release
bench=.build/release/familysync-bench
# shellcheck source=Benchmarks/citus-fresh-cluster.bash
. Benchmarks/citus-fresh-cluster.bash
fresh_citus_cluster "$dir"
nodes=$(ls -d "$dir"/coordinator "$dir"/worker* | paste -sd:)
out=benchmark-results/citus-cost-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for harness in "${harnesses[@]}"; do
    file=${harness%% *}
    echo "round $round: $harness, one PostgreSQL, then the cluster" >&2
    # shellcheck disable=SC2086 # the harness's name and sizes are separate arguments
    $bench $harness > "$out/$file-one-$round.txt" 2>&1 || { tail -20 "$out/$file-one-$round.txt" >&2; exit 1; }
    # shellcheck disable=SC2086
    FAMILYSYNC_BENCH_DATABASE_URL=$url FAMILYSYNC_BENCH_DATABASE_DIRS=$nodes $bench $harness > "$out/$file-citus-$round.txt" 2>&1 ||
      { tail -20 "$out/$file-citus-$round.txt" >&2; exit 1; }
  done
done
echo "$out"

#!/usr/bin/env bash
# Issue 38's table in one go: the harnesses behind each of its rows (health, records, usage,
# polls, sync, concurrency) and the device-day, `rounds` times in turn, each output kept in
# benchmark-results/issue38-<time>/.
# Usage: Benchmarks/issue38.sh [rounds] [idle polls]
# Release build; a round takes about 14 minutes on the 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
idle=${2:-10000}
swift build -c release --product familysync-bench
bench=.build/release/familysync-bench
out=benchmark-results/issue38-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for harness in "health 2000 0.5" "records" "usage" "polls 1000 500 $idle" "sync" "concurrency 20 16" "day"; do
    name=${harness%% *}
    echo "round $round: $harness" >&2
    # shellcheck disable=SC2086 # the harness's name and sizes are separate arguments
    $bench $harness > "$out/$name-$round.txt" 2>&1 || { echo "$harness failed:" >&2; tail -20 "$out/$name-$round.txt" >&2; exit 1; }
  done
done
echo "$out"

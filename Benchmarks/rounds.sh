#!/usr/bin/env bash
# Harnesses in rounds: each of the harnesses given (a name and its sizes, one argument each),
# `rounds` times in turn, each output kept in benchmark-results/<name>-<time>/. Used by
# request-paths.sh and request-paths-and-day.sh.
# Usage: Benchmarks/rounds.sh <name> <rounds> "<harness> [sizes]"...
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
rounds=$2
shift 2
swift build -c release --product familysync-bench
bench=.build/release/familysync-bench
out=benchmark-results/$name-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for harness in "$@"; do
    file=${harness%% *}
    echo "round $round: $harness" >&2
    # shellcheck disable=SC2086 # the harness's name and sizes are separate arguments
    $bench $harness > "$out/$file-$round.txt" 2>&1 || { echo "$harness failed:" >&2; tail -20 "$out/$file-$round.txt" >&2; exit 1; }
  done
done
echo "$out"

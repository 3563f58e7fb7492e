#!/usr/bin/env bash
# Issue 38's table in one go: the harnesses behind each of its rows (health, records, usage,
# polls, sync, concurrency) and the device-day, `rounds` times in turn, each output kept in
# benchmark-results/issue38-<time>/.
# Usage: Benchmarks/issue38.sh [rounds] [idle polls]
# Release build; a round takes about 8 minutes on the 2-core machine.
set -euo pipefail
idle=${2:-10000}
exec "$(dirname "$0")/rounds.sh" issue38 "${1:-3}" "health 2000 0.5" "records" "usage" "polls 1000 500 $idle" "sync" "concurrency 20 16" "day"

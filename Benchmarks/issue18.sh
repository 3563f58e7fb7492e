#!/usr/bin/env bash
# Issue 18's table in one go: the harnesses behind each of its rows (records, usage, polls, sync,
# concurrency), `rounds` times in turn, each output kept in benchmark-results/issue18-<time>/.
# Usage: Benchmarks/issue18.sh [rounds] [idle polls]
# Release build; a round takes about 8 minutes on the 2-core machine.
set -euo pipefail
idle=${2:-10000}
exec "$(dirname "$0")/rounds.sh" issue18 "${1:-3}" "records" "usage" "polls 1000 500 $idle" "sync" "concurrency 20 16"

#!/usr/bin/env bash
# The request paths' harnesses (records, usage, polls, sync, concurrency) in one go, `rounds`
# times in turn, each output kept in benchmark-results/request-paths-<time>/.
# Usage: Benchmarks/request-paths.sh [rounds] [idle polls]
# Release build; a round takes about 8 minutes on the 2-core machine.
set -euo pipefail
idle=${2:-10000}
exec "$(dirname "$0")/rounds.sh" request-paths "${1:-3}" "records" "usage" "polls 1000 500 $idle" "sync" "concurrency 20 16"

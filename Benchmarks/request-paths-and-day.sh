#!/usr/bin/env bash
# The request paths' harnesses (health, records, usage, polls, sync, concurrency) and the
# device-day in one go, `rounds` times in turn, each output kept in
# benchmark-results/request-paths-and-day-<time>/.
# Usage: Benchmarks/request-paths-and-day.sh [rounds] [idle polls]
# Release build; a round takes about 8 minutes on the 2-core machine.
set -euo pipefail
idle=${2:-10000}
exec "$(dirname "$0")/rounds.sh" request-paths-and-day "${1:-3}" "health 2000 0.5" "records" "usage" "polls 1000 500 $idle" "sync" "concurrency 20 16" "day"

#!/usr/bin/env bash
# Measures `familysync serve` on the embedded database: time from exec to /health/ready = 200 with
# a fresh data directory and with an existing one, idle RSS of the server and of its PostgreSQL,
# and the time SIGTERM takes to stop both. Usage: Benchmarks/startup.sh [path/to/familysync] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-.build/debug/familysync}
runs=${2:-5}
[ -x "$binary" ] || swift build --product familysync
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
work=$(mktemp -d /tmp/familysync-bench-XXXX)
trap 'kill -TERM $pid 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

now_ms() { date +%s%3N; }
start_and_wait() {  # $1 data dir; prints ms to ready
  local t0; t0=$(now_ms)
  "$binary" serve --port "$port" --data-dir "$1" --log-level warning 2>>"$work/log" &
  pid=$!
  until curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null; do sleep 0.01; done
  echo $(( $(now_ms) - t0 ))
}
stop_and_wait() {  # prints ms to exit
  local t0; t0=$(now_ms)
  kill -TERM "$pid"; wait "$pid" || true
  echo $(( $(now_ms) - t0 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }

fresh=(); warm=(); stops=()
for i in $(seq 1 "$runs"); do
  dir="$work/data-$i"
  fresh+=("$(start_and_wait "$dir")"); stops+=("$(stop_and_wait)")
  warm+=("$(start_and_wait "$dir")")
  if [ "$i" = "$runs" ]; then
    sleep 2  # let it idle
    server_rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    pg_rss=0
    for p in $(pgrep -f "$dir/pgdata" || true); do
      r=$(awk '/VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0); pg_rss=$((pg_rss + r))
    done
  fi
  stops+=("$(stop_and_wait)")
done
echo "familysync serve on the embedded database ($runs runs each, median)"
echo "  start to ready, fresh data directory:    $(printf '%s\n' "${fresh[@]}" | median) ms"
echo "  start to ready, existing data directory: $(printf '%s\n' "${warm[@]}" | median) ms"
echo "  SIGTERM to exit (server and database):   $(printf '%s\n' "${stops[@]}" | median) ms"
echo "  idle RSS: server $((server_rss / 1024)) MiB, its PostgreSQL processes $((pg_rss / 1024)) MiB"

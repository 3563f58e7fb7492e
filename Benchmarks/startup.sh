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
chmod 755 "$work"  # the postgres user must reach it when this runs as root
pid=""
trap '[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; sleep 1; rm -rf "$work"' EXIT

now_ms() { date +%s%3N; }
start_and_wait() {  # $1 data dir; sets pid and elapsed (ms to ready)
  local t0; t0=$(now_ms)
  "$binary" serve --port "$port" --data-dir "$1" --log-level warning 2>>"$work/log" &
  pid=$!
  until curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "familysync exited:" >&2; cat "$work/log" >&2; exit 1; }
    sleep 0.01
  done
  elapsed=$(( $(now_ms) - t0 ))
}
stop_and_wait() {  # sets elapsed (ms to exit)
  local t0; t0=$(now_ms)
  kill -TERM "$pid"; wait "$pid" || true
  pid=""
  elapsed=$(( $(now_ms) - t0 ))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }

fresh=(); warm=(); stops=()
for i in $(seq 1 "$runs"); do
  dir="$work/data-$i"
  start_and_wait "$dir"; fresh+=("$elapsed")
  stop_and_wait; stops+=("$elapsed")
  start_and_wait "$dir"; warm+=("$elapsed")
  if [ "$i" = "$runs" ]; then
    sleep 2  # let it idle
    server_rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    pg_rss=0
    postmaster=$(head -1 "$dir/pgdata/postmaster.pid")
    for p in $postmaster $(pgrep -P "$postmaster" || true); do
      r=$(awk '/VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0); pg_rss=$((pg_rss + r))
    done
  fi
  stop_and_wait; stops+=("$elapsed")
done
echo "familysync serve on the embedded database ($runs runs each, median)"
echo "  start to ready, fresh data directory:    $(printf '%s\n' "${fresh[@]}" | median) ms"
echo "  start to ready, existing data directory: $(printf '%s\n' "${warm[@]}" | median) ms"
echo "  SIGTERM to exit (server and database):   $(printf '%s\n' "${stops[@]}" | median) ms"
echo "  idle RSS: server $((server_rss / 1024)) MiB; PostgreSQL postmaster and children $((pg_rss / 1024)) MiB (summed, shared memory counted in each)"

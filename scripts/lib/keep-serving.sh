#!/usr/bin/env bash
# Runs `familysync serve …` (the command given) and starts it again if it crashes, as systemd's
# Restart=on-failure does for the packaged unit. A crash is an end by a signal the server did not
# ask for (PostgresNIO 1.33 can trap when the database drops a connection mid-result; see
# docs/operations.md). A clean stop (SIGTERM or Ctrl-C, forwarded as SIGTERM) and an exit with a
# status (2: bad configuration) end this script with the same status.
set -u
stopping=""
pid=""
forward() {
  stopping=1
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
}
trap forward TERM INT HUP
while :; do
  "$@" &
  pid=$!
  # A trapped signal interrupts `wait`; wait again until the server itself has ended.
  while :; do
    wait "$pid"
    status=$?
    kill -0 "$pid" 2>/dev/null || break
  done
  if [ -n "$stopping" ] || [ "$status" -lt 128 ]; then
    exit "$status"
  fi
  echo "keep-serving: the server ended by signal $((status - 128)); starting it again in 1 s" >&2
  sleep 1
done

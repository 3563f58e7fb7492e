#!/usr/bin/env bash
# Runs `familysync serve …` (the command given) and starts it again if it crashes, as systemd's
# Restart=on-failure does for the packaged unit, with the unit's backoff and limit: the first
# restart after 1 s, each next one after twice as long up to 30 s (back to 1 s once a server has
# run for a minute), and no more once it has crashed KEEP_SERVING_CRASHES times (10) within
# KEEP_SERVING_WINDOW seconds (300): a server that cannot stay up is reported, not restarted every
# second for ever. A crash is an end by a signal the server did not ask for. A clean stop
# (SIGTERM or Ctrl-C, forwarded as SIGTERM) and an exit with a status (2: bad configuration) end
# this script with the same status; giving up ends it with the last crash's.
set -u
limit=${KEEP_SERVING_CRASHES:-10}
window=${KEEP_SERVING_WINDOW:-300}
stopping=""
pid=""
forward() {
  stopping=1
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
}
trap forward TERM INT HUP
delay=1
crashes=()
while :; do
  started=$SECONDS
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
  [ $((SECONDS - started)) -ge 60 ] && delay=1
  recent=()
  for at in "${crashes[@]}" "$SECONDS"; do
    [ $((SECONDS - at)) -lt "$window" ] && recent+=("$at")
  done
  crashes=("${recent[@]}")
  if [ "${#crashes[@]}" -ge "$limit" ]; then
    echo "keep-serving: the server ended by signal $((status - 128)), ${#crashes[@]} crashes within ${window} s; not starting it again" >&2
    exit "$status"
  fi
  echo "keep-serving: the server ended by signal $((status - 128)); starting it again in ${delay} s" >&2
  pid=""
  sleep "$delay" &
  wait $!
  [ -n "$stopping" ] && exit "$status"
  delay=$((delay * 2 > 30 ? 30 : delay * 2))
done

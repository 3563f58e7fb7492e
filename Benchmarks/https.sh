#!/usr/bin/env bash
# What HTTPS costs `familysync serve` (PROTOCOL §1.4), as server CPU a request, each figure a ratio
# to plain HTTP/1.1 measured in the same run:
#   plain HTTP/1.1 keep-alive · HTTPS/1.1 keep-alive · HTTP/2 (10 streams a connection) ·
#   nginx ending TLS (HTTP/2) in front of plain FamilySync, nginx's CPU added;
# and a new TLS connection's cost (openssl s_time -new: full handshakes, the server's CPU each).
# The request is a device's "nothing new": GET /v1/poll?timeout=0&since=<its token>.
# Usage: Benchmarks/https.sh [path/to/familysync] [requests a round] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-.build/release/familysync}")
requests=${2:-20000}
rounds=${3:-3}
[ -x "$binary" ] || swift build -c release --product familysync
for tool in h2load nginx openssl curl; do
  command -v "$tool" >/dev/null || { echo "https.sh needs $tool (Debian: nghttp2-client, nginx, openssl, curl)" >&2; exit 1; }
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
work=$(mktemp -d /tmp/familysync-https-XXXX)
chmod 755 "$work"  # the postgres user must reach the data directory when this runs as root
server=""; nginx_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill -QUIT "$nginx_pid" 2>/dev/null || true
  [ -n "$server" ] && kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)
# CPU ticks (user + system) of the processes given, threads included.
ticks() { local sum=0; for p in "$@"; do sum=$((sum + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$sum"; }

(cd "$work" && "$binary" tls self-signed --host localhost --host 127.0.0.1 >/dev/null)
plain=$(free_port); tls=$(free_port); front=$(free_port)
start() {  # $1 port, then serve's own flags; sets server
  "$binary" serve --port "$1" --data-dir "$work/data" --log-level warning --device-rate-limit 1000000 "${@:2}" 2>>"$work/log" &
  server=$!
  until curl -sf "http://127.0.0.1:$1/health/ready" >/dev/null 2>&1 || curl -sfk "https://127.0.0.1:$1/health/ready" >/dev/null 2>&1; do
    kill -0 "$server" 2>/dev/null || { echo "familysync exited:" >&2; cat "$work/log" >&2; exit 1; }
    sleep 0.05
  done
}
stop() { kill -TERM "$server"; wait "$server" || true; server=""; }

# One family on the database both servers use in turn; the parent's credential and its token.
start "$plain" --public-url "http://127.0.0.1:$plain"
credential=$(curl -sf -H 'Content-Type: application/json' -d '{"device":{"name":"Bench","platform":"ios","timeZone":"UTC"}}' \
  "http://127.0.0.1:$plain/v1/families" | python3 -c 'import json,sys; print(json.load(sys.stdin)["credential"])')
token=$(curl -sf -H "Authorization: Bearer $credential" "http://127.0.0.1:$plain/v1/poll?timeout=0" | python3 -c 'import json,sys; print(json.load(sys.stdin)["changeToken"])')
path="/v1/poll?timeout=0&since=$token"

cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx.err;
events { worker_connections 1024; }
http {
  access_log off;
  # A connection carries the whole run (nginx ends one after 1,000 requests by default).
  keepalive_requests 10000000;
  upstream familysync { server 127.0.0.1:$plain; keepalive 16; }
  server {
    listen $front ssl http2;
    ssl_certificate $work/familysync.crt;
    ssl_certificate_key $work/familysync.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / {
      proxy_pass http://familysync;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
    }
  }
}
CONF

# CPU a request, in microseconds, of the processes named, over one h2load run; $1 the processes'
# pids (space-separated), then h2load's arguments.
measure() {
  local pids=$1; shift
  h2load -n $((requests / 10)) "$@" >/dev/null  # warm
  local before; before=$(ticks $pids)
  local report; report=$(h2load -n "$requests" "$@")
  echo "$report" | grep -q "$requests succeeded" || { echo "h2load: not every request succeeded:" >&2; echo "$report" >&2; exit 1; }
  echo $(( ( $(ticks $pids) - before ) * 1000000 / hz / requests ))
}

declare -A cpu
for round in $(seq 1 "$rounds"); do
  # Plain, and nginx in front of it.
  [ -n "$server" ] || start "$plain"
  cpu[plain]+="$(measure "$server" --h1 -c 4 -H "Authorization: Bearer $credential" "http://127.0.0.1:$plain$path") "
  nginx -c "$work/nginx.conf" -g 'daemon on;' 2>>"$work/nginx.err"
  sleep 0.5
  nginx_pid=$(cat "$work/nginx.pid")
  cpu[nginx]+="$(measure "$server $nginx_pid $(pgrep -P "$nginx_pid" | tr '\n' ' ')" -c 4 -m 10 -H "Authorization: Bearer $credential" "https://127.0.0.1:$front$path") "
  kill -QUIT "$nginx_pid"; nginx_pid=""; sleep 0.5
  stop
  # The same server with its own certificate.
  start "$tls" --tls-certificate "$work/familysync.crt" --tls-key "$work/familysync.key"
  cpu[https1]+="$(measure "$server" --h1 -c 4 -H "Authorization: Bearer $credential" "https://127.0.0.1:$tls$path") "
  cpu[h2]+="$(measure "$server" -c 4 -m 10 -H "Authorization: Bearer $credential" "https://127.0.0.1:$tls$path") "
  before=$(ticks "$server")
  handshakes=$(openssl s_time -connect "127.0.0.1:$tls" -new -time 5 2>/dev/null | awk '/connections in/ {print $1; exit}')
  cpu[handshake]+="$(( ( $(ticks "$server") - before ) * 1000000 / hz / handshakes )) "
  stop
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
base=$(echo "${cpu[plain]}" | median)
echo "server CPU a request for nothing new ($requests requests a round, $rounds rounds: each round's µs, then the median's ratio to plain HTTP/1.1)"
for mode in plain https1 h2 nginx; do
  label=$(case $mode in plain) echo "plain HTTP/1.1 keep-alive";; https1) echo "HTTPS/1.1 keep-alive";; h2) echo "HTTP/2, 10 streams a connection";; nginx) echo "nginx (TLS, HTTP/2) + plain FamilySync";; esac)
  m=$(echo "${cpu[$mode]}" | median)
  printf '  %-40s %-20s ×%s\n' "$label" "${cpu[$mode]}" "$(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2f", a / b}')"
done
h=$(echo "${cpu[handshake]}" | median)
echo "a new TLS connection (full handshake, openssl s_time -new): ${cpu[handshake]}µs of server CPU each; about $((1000000 / h)) a second a core"

#!/usr/bin/env bash
# What a program linking only the SDK costs, over each transport: the size of its executable
# (stripped, as an app ships it; Foundation and the Swift runtime are the system's, as on iOS) and
# the shared libraries it brings beyond them, and its resident memory for one pairing, one usage
# upload and one poll against a release `familysync serve` on the embedded database. Memory is a
# ratio to the same process's own baseline (its resident set before the first call).
# Usage: Benchmarks/sdk-footprint.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
for product in familysync sdk-footprint-urlsession sdk-footprint-asynchttpclient; do
  swift build -c release --product "$product" >&2
done
bin=$(swift build -c release --show-bin-path)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
work=$(mktemp -d /tmp/familysync-footprint-XXXX)
chmod 755 "$work"  # the postgres user must reach it when this runs as root
pid=""
trap '[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid"; rm -rf "$work"' EXIT
# Every run creates a family and accepts a pairing from 127.0.0.1: above the default limit.
"$bin/familysync" serve --port "$port" --data-dir "$work/data" --log-level warning --unauthenticated-rate-limit 10000 2>>"$work/log" &
pid=$!
until curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null; do
  kill -0 "$pid" 2>/dev/null || { echo "familysync exited:" >&2; cat "$work/log" >&2; exit 1; }
  sleep 0.05
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
kib() { awk -v k="$1" 'BEGIN {printf "%.1f MiB", k / 1024}'; }
echo "SDK footprint on $(nproc) cores, $runs runs each (median), server $("$bin/familysync" --version 2>/dev/null || echo release)"
declare -A size
for transport in urlsession asynchttpclient; do
  program="$bin/sdk-footprint-$transport"
  strip -o "$work/$transport" "$program"
  size[$transport]=$(stat -c %s "$work/$transport")
  # The shared libraries it names (not theirs in turn) beyond the Swift runtime, Foundation and libc.
  extra=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev '^(ld-linux|lib(swift|Foundation\.so|FoundationEssentials|FoundationInternationalization|_FoundationICU|dispatch|BlocksRuntime|c\.so|m\.so|stdc\+\+|gcc_s|pthread|dl\.so|rt\.so|util\.so))' | tr '\n' ' ')
  baseline=(); peak=()
  for _ in $(seq 1 "$runs"); do
    line=$("$program" "http://127.0.0.1:$port")
    baseline+=("$(echo "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin)["baselineKiB"])')")
    peak+=("$(echo "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin)["peakKiB"])')")
  done
  b=$(printf '%s\n' "${baseline[@]}" | median); p=$(printf '%s\n' "${peak[@]}" | median)
  echo "  $transport: executable $(kib $((size[$transport] / 1024))) stripped; also loads: ${extra:-nothing}"
  echo "  $transport: resident before the first call $(kib "$b"), peak $(kib "$p"), peak - baseline $(kib $((${p%.*} - ${b%.*}))), peak/baseline $(awk -v p="$p" -v b="$b" 'BEGIN {printf "%.2f", p / b}')"
done
echo "  executable size, AsyncHTTPClient / URLSession: $(awk -v a="${size[asynchttpclient]}" -v u="${size[urlsession]}" 'BEGIN {printf "%.2f", a / u}')"

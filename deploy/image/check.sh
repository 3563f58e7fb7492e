#!/usr/bin/env bash
# What deploy/Dockerfile does, done outside Docker (no Docker engine runs on the project's
# machines), so that the image's steps are tested rather than hoped: the build context (the
# repository's files that git does not ignore, as .dockerignore leaves them) copied to a directory of its own, the
# build stage's scripts run there, the runtime stage's setup, then the binary started as the
# image starts it (the unprivileged user, the image's environment, the embedded database) until
# its HEALTHCHECK passes, and stopped with SIGTERM. As root it adds the image's user and runs the
# server as that user; otherwise the server runs as the caller, unprivileged already.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
if ! command -v rsync >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "deploy/image/check.sh needs rsync: sudo apt-get install -y rsync" >&2; exit 1; }
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rsync >/dev/null
fi

# The build context. Kept in .build/ between runs so that a second run builds incrementally; a
# fresh clone (CI) builds from nothing, as `docker build` does.
context=$root/.build/image-context
mkdir -p "$context"
# Exactly the listed files: the context's own build cache stays, everything else goes first
# (rsync's --delete does not reach files a --files-from list leaves out, so a file moved or
# removed since the last run would still be built beside its new copy).
find "$context" -mindepth 1 -maxdepth 1 ! -name .build ! -name out -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard | rsync -a --delete --from0 --files-from=- ./ "$context/"
echo "image check: build stage in $context" >&2
(cd "$context" && deploy/image/resolve.sh && deploy/image/build.sh "$context/out")
binary=$context/out/familysync

# The runtime image is debian:bookworm-slim, without Swift: nothing of Swift's may be linked
# dynamically, and every library the binary needs must be one Debian provides.
if ldd "$binary" | grep -E "libswift|libFoundation|libdispatch|libBlocksRuntime|not found" >&2; then
  echo "image check: the binary needs libraries the runtime image lacks (above)" >&2
  exit 1
fi

# The runtime stage.
work=$(mktemp -d)
chmod 0755 "$work"
# (Never `kill` an empty pid: `kill 0` would end this script's whole process group.)
trap 'if [ -n "${server:-}" ]; then kill -KILL "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
install -m 0755 "$binary" "$work/familysync"
if [ "$(id -u)" = 0 ]; then
  deploy/image/install-runtime.sh "$work/data"
  user=familysync
  as_user=(setpriv --reuid=familysync --regid=familysync --init-groups)
else
  mkdir -m 0700 "$work/data"
  user=$(id -un)
  as_user=()
fi
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# As the image runs it: ENV, USER, ENTRYPOINT and CMD of deploy/Dockerfile (the port a free one).
image_environment=(PATH=/usr/local/bin:/usr/bin:/bin HOME=/var/lib/familysync FAMILYSYNC_HOST=127.0.0.1 FAMILYSYNC_PORT="$port"
  FAMILYSYNC_DATA_DIR="$work/data" FAMILYSYNC_LOG_FORMAT=json)
"${as_user[@]}" env -i "${image_environment[@]}" "$work/familysync" serve >"$work/server.log" 2>&1 &
server=$!

# The image's HEALTHCHECK command, as it is written there, in the image's environment.
for _ in $(seq 1 120); do
  if env -i "${image_environment[@]}" "$work/familysync" healthcheck >/dev/null 2>&1; then
    healthy=1
    break
  fi
  kill -0 "$server" 2>/dev/null || break
  sleep 0.5
done
if [ -z "${healthy:-}" ]; then
  echo "image check: the server never passed its health check; its log:" >&2
  cat "$work/server.log" >&2
  exit 1
fi
owner=$(ps -o uid= -p "$server" | tr -d ' ')
[ "$owner" = "$(id -u "$user")" ] && [ "$owner" != 0 ] || { echo "image check: the server runs as uid $owner, not $user" >&2; exit 1; }
kill -TERM "$server"
status=0
wait "$server" || status=$?
server=
[ "$status" = 0 ] || { echo "image check: the server exited $status after SIGTERM; its log:" >&2; cat "$work/server.log" >&2; exit 1; }
echo "image check: built, started as $user on the embedded database, healthy, stopped cleanly" >&2

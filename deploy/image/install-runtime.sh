#!/usr/bin/env bash
# The runtime image's setup (deploy/Dockerfile) on Debian 12: PostgreSQL (for the embedded default;
# unused when DATABASE_URL is set), CA certificates (APNs, Apple's keys), time zones and libcurl
# (FoundationNetworking's, linked by the SDK's URLSessionTransport), qrencode (the dashboard's
# sign-in page draws its QR code with it), and the
# unprivileged user the server runs as, owning its data directory ($1, /var/lib/familysync).
set -euo pipefail
data_directory=${1:-/var/lib/familysync}
export DEBIAN_FRONTEND=noninteractive
needed=()
for package in postgresql ca-certificates tzdata libcurl4 qrencode; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || needed+=("$package")
done
if [ ${#needed[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${needed[@]}" >/dev/null
fi
id -u familysync >/dev/null 2>&1 \
  || useradd --system --user-group --home-dir /var/lib/familysync --shell /usr/sbin/nologin familysync
install -d -o familysync -g familysync -m 0700 "$data_directory"

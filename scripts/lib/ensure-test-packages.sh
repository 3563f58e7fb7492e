# Sourced by scripts/test: the Debian programs some tests start for themselves (PgBouncer, between
# servers and their database; nginx, in front of three servers; qrencode, which draws the
# dashboard's QR code; Chromium and its chromedriver, the dashboard's browser). As root with apt-get it installs what is missing; otherwise it stops
# and prints the command to run. A test is never skipped because a part is missing.
missing_packages=()
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing_packages+=(pgbouncer)
[ -x /usr/sbin/nginx ] || missing_packages+=(nginx)
command -v qrencode >/dev/null 2>&1 || missing_packages+=(qrencode)
[ -x /usr/bin/chromium ] || missing_packages+=(chromium fonts-dejavu-core)
[ -x /usr/bin/chromedriver ] || missing_packages+=(chromium-driver)

if [ ${#missing_packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian's ${missing_packages[*]} for the tests" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing_packages[@]}" >/dev/null
  else
    echo "The tests need ${missing_packages[*]}. Install it, then run this again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing_packages[*]}" >&2
    exit 1
  fi
fi

# Sourced by scripts/serve and scripts/test: makes sure the PostgreSQL server programs that the
# embedded database runs (initdb, pg_ctl, postgres) are on this machine. As root with apt-get it
# installs Debian's postgresql package; otherwise it stops and prints the command to run.
postgres_binaries_present() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 && command -v postgres >/dev/null 2>&1; then
    return 0
  fi
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ] && return 0
  done
  return 1
}

if ! postgres_binaries_present; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "PostgreSQL server not found: installing Debian's postgresql package (apt-get install -y postgresql)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    echo "PostgreSQL server not found. Install it, then run this again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y postgresql" >&2
    exit 1
  fi
fi

# Sourced by the Citus harnesses: a fresh cluster by scripts/citus in DIR (whatever was there
# stopped and removed), stopped again when the harness exits. Sets `url` to its DATABASE_URL.
# Needs the release build (`swift build -c release`) and CITUS_PORT as for scripts/citus.
fresh_citus_cluster() { # fresh_citus_cluster DIR
  local dir=$1
  if [ -e "$dir" ]; then
    scripts/citus stop "$dir" >/dev/null
    rm -rf "$dir"
  fi
  mkdir -p "$dir"
  chmod 755 "$dir"
  url=$(FAMILYSYNC_BINARY=.build/release/familysync scripts/citus start "$dir" | sed -n 's/^DATABASE_URL=//p')
  # shellcheck disable=SC2064 # the directory is fixed now
  trap "scripts/citus stop '$dir' >/dev/null" EXIT
}

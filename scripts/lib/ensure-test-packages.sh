# Sourced by scripts/test: the Debian programs some tests start for themselves (PgBouncer, between
# servers and their database; nginx, in front of three servers; qrencode, which draws the
# dashboard's QR code; Chromium and its chromedriver, the dashboard's browser, with a Korean font for
# the Korean pages' screenshots; Python's pip, for axe-core below; Prometheus, whose promtool checks
# the alert rules, deploy/prometheus/check.sh; gdb, with which a hung run prints every thread's
# stack, Tests/FamilySyncTestSupport/ThreadBacktraces.swift; curl and nghttp2's h2load, HTTPS and
# HTTP/2 clients of `serve`; openssl, which reads its certificates back; iproute2's ss, which counts
# a test server's connections). As root with apt-get it installs
# what is missing; otherwise it stops and prints the command to run. A test is never skipped because
# a part is missing.
missing_packages=()
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing_packages+=(pgbouncer)
[ -x /usr/sbin/nginx ] || missing_packages+=(nginx)
command -v qrencode >/dev/null 2>&1 || missing_packages+=(qrencode)
[ -x /usr/bin/chromium ] || missing_packages+=(chromium fonts-dejavu-core)
[ -x /usr/bin/chromedriver ] || missing_packages+=(chromium-driver)
fc-list 2>/dev/null | grep -qi nanum || missing_packages+=(fonts-nanum)
command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1 || missing_packages+=(python3-pip)
command -v promtool >/dev/null 2>&1 || missing_packages+=(prometheus)
[ -x /usr/bin/gdb ] || missing_packages+=(gdb)
command -v curl >/dev/null 2>&1 || missing_packages+=(curl)
command -v h2load >/dev/null 2>&1 || missing_packages+=(nghttp2-client)
command -v openssl >/dev/null 2>&1 || missing_packages+=(openssl)
command -v ss >/dev/null 2>&1 || missing_packages+=(iproute2)

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

# axe-core, the accessibility checker the browser tests run on each page: the script PyPI's
# axe-selenium-python ships (pinned: the tests read it at its path in that release), installed
# into .build (not the system's Python), once.
axe_script=.build/test-python/axe_selenium_python/node_modules/axe-core/axe.min.js
if [ ! -f "$axe_script" ]; then
  echo "installing axe-core (PyPI's axe-selenium-python) for the browser tests" >&2
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target .build/test-python axe-selenium-python==2.1.6 >&2
fi

# schemathesis, which SchemathesisTests runs against a test server to hold docs/openapi.yaml to
# what the server answers, with the Hypothesis that generates its cases (both pinned: a seeded run
# sends the same requests every time), installed with their dependencies into .build, once.
if [ ! -d .build/test-python/schemathesis-4.32.5.dist-info ] || [ ! -d .build/test-python/hypothesis-6.170.17.dist-info ]; then
  echo "installing schemathesis (PyPI) for the OpenAPI conformance test" >&2
  python3 -m pip install --quiet --disable-pip-version-check --upgrade --target .build/test-python schemathesis==4.32.5 hypothesis==6.170.17 >&2
fi

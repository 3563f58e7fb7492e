#!/usr/bin/env bash
# Checks Prometheus's configuration and the alert rules, and runs the rules' unit tests
# (familysync-rules.test.yml), with Debian's promtool. scripts/test runs it before the build, since
# it takes a second and needs no server.
set -euo pipefail
cd "$(dirname "$0")/../.."
promtool check config deploy/prometheus/prometheus.yml
promtool check rules deploy/prometheus/familysync-rules.yml
promtool test rules deploy/prometheus/familysync-rules.test.yml

#!/usr/bin/env bash
# Kinto 26.5 from PyPI, with its PostgreSQL storage, in a virtual environment of its own: the peer
# the full-sync harness measures against (`familysync-bench peersync`, Benchmarks/README.md).
# Usage: Benchmarks/kinto.sh [directory]   (default /tmp/familysync-kinto; prints its kinto program)
set -euo pipefail
directory="${1:-/tmp/familysync-kinto}"
if [ ! -x "$directory/bin/kinto" ]; then
    python3 -m venv "$directory"
    "$directory/bin/pip" install --quiet 'kinto[postgresql]==26.5.0'
fi
echo "$directory/bin/kinto"

#!/usr/bin/env bash
# Operations under load (docs/operations.md, "Outgrowing one PostgreSQL"), on a Citus cluster of this machine: a fresh cluster by
# scripts/citus in DIR, `familysync-bench cluster-ops` against it (two instances, the families'
# load, a worker added and the shards rebalanced, worker1 stopped and started again, every
# acknowledged write read back), then the cluster stopped. Its output is kept in
# benchmark-results/citus-operations-<time>.txt; the request log in DIR/cluster-ops-requests.tsv.
# Usage: Benchmarks/citus-operations.sh [DIR] [families] [seconds a phase] [seconds stopped]
# Needs Citus installed (docs/operations.md, "Outgrowing one PostgreSQL"); CITUS_PORT as for
# scripts/citus (it takes that port and the next three). Release build; about 5 minutes a run.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/familysync-citus-operations}
swift build -c release
# shellcheck source=Benchmarks/citus-fresh-cluster.bash
. Benchmarks/citus-fresh-cluster.bash
fresh_citus_cluster "$dir"
out=benchmark-results/citus-operations-$(date -u +%Y%m%dT%H%M%SZ).txt
mkdir -p benchmark-results
.build/release/familysync-bench cluster-ops "$url" "$dir" "${2:-40}" "${3:-45}" "${4:-30}" | tee "$out"
echo "$out"

#!/usr/bin/env bash
# Issue 21's load runs (not CI): wrk at 64 connections for 60 s with writes mixed in, on SpatiaLite,
# on PostGIS, and on PostGIS with PostgreSQL restarted (fast, then immediate) in the middle; and
# /health with 1,000 idle connections open. Each prints and writes a JSON summary
# (Benchmarks/.data/load/load-RUN.json) and fails when a promise broke (Benchmarks/load/load.py says which).
#
#   Benchmarks/load/run.sh [spatialite|postgis|restart|idle|cluster|all] [SECONDS] [CONNECTIONS]
#   CITYTWIN_BIN=.build/debug/citytwin Benchmarks/load/run.sh restart 60 64     (a built binary, no release build)
#   CITYTWIN_CLUSTER_SERVERS=1|2 Benchmarks/load/run.sh cluster 30 16   (issue 57 §4: Scripts/cluster.sh behind nginx, 1 or 2 servers)
#   CITYTWIN_LOAD_PORT (8098): the server's port; CITYTWIN_LOAD_PG_PORT (55440): its PostgreSQL's.
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
seconds=${2:-60}
connections=${3:-64}
if ! command -v wrk >/dev/null; then
  [[ $(id -u) -eq 0 ]] || { echo "wrk is needed: apt-get install wrk" >&2; exit 2; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
fi
source Benchmarks/bin.sh
if [[ -n ${CITYTWIN_BIN:-} || -n ${BENCH_BIN_DIR:-} ]]; then
  bin=${CITYTWIN_BIN:-$(bench_bin citytwin)}
else
  export PATH=/opt/swift/usr/bin:$PATH
  swift build -c release --product citytwin 2>&1 | grep -E "error|Build complete" || true
  bin=$(swift build -c release --show-bin-path)/citytwin
fi
runs=("$what")
[[ $what == all ]] && runs=(idle spatialite postgis restart)
status=0
for run in "${runs[@]}"; do
  echo "load: $run, ${seconds} s, $connections connections ($bin)"
  python3 Benchmarks/load/load.py "$bin" "$run" "$seconds" "$connections" Benchmarks/.data/load || status=1
done
exit $status

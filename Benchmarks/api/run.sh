#!/usr/bin/env bash
# OGC API benchmarks (issue 4), each against its peer in one invocation, on the same data:
#   Benchmarks/api/run.sh          all three
#   Benchmarks/api/run.sh tiles    dynamic z14 MVT: citytwin serve vs PostGIS ST_AsMVT per tile
#   Benchmarks/api/run.sh pages    1,000-item pages through 100,000 polygons: citytwin serve vs pygeoapi
#   Benchmarks/api/run.sh wrk      cached tiles under wrk: citytwin serve vs nginx on the same files
# Data (sample district + 100,000 synthetic polygons, SpatiaLite and PostGIS) is built once under
# Benchmarks/.data/api and in the PostgreSQL database citytwin_api. CityTwin is built in release
# with its own scratch path (BENCH_SCRATCH, default /work/.build-bench or .build-bench beside the
# repository), so a benchmark never waits on the shared debug .build.
# Environment: BENCH_BIN_DIR (binaries already built, Benchmarks/bin.sh), API_BENCH_PARCELS (100000), BENCH_SKIP_BUILD=1 (use the binary already in the scratch path), BENCH_ROUNDS (2), API_BENCH_BACKENDS (spatialite,postgis), WRK_SECONDS (15),
# WRK_THREADS (2), WRK_CONNECTIONS (64); see api_bench.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/opt/swift/usr/bin:$PATH
suite=${1:-all}
case "$suite" in all|tiles|pages|wrk) ;; *) echo "usage: $0 [tiles|pages|wrk]" >&2; exit 2 ;; esac

py=.venv/bin/python
[[ -x $py ]] || Scripts/setup.sh >/dev/null
# Peer-side Python packages: psycopg2 (ST_AsMVT client, pygeoapi's PostgreSQL provider),
# geoalchemy2 (the provider's geometry columns), gunicorn (pygeoapi's production server).
$py -c "import pygeoapi, psycopg2, geoalchemy2, gunicorn, mapbox_vector_tile" 2>/dev/null ||
  $py -m pip install -q pygeoapi psycopg2-binary geoalchemy2 gunicorn mapbox-vector-tile
if [[ $suite == all || $suite == wrk ]]; then
  if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
    [[ $(id -u) -eq 0 ]] || { echo "wrk and nginx are needed: apt-get install wrk nginx-light" >&2; exit 2; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null; }
  fi
fi

source Benchmarks/bin.sh
scratch=${BENCH_SCRATCH:-$(cd .. && pwd)/.build-bench}
bin=$scratch/release/citytwin
if [[ -n ${BENCH_BIN_DIR:-} ]]; then
  bin=$(bench_bin citytwin)
elif [[ ${BENCH_SKIP_BUILD:-0} == 1 && -x $bin ]]; then
  echo "BENCH_SKIP_BUILD=1: using $bin as built at $(date -r "$bin" '+%F %T')" >&2
elif ! swift build -c release --product citytwin --scratch-path "$scratch" >/tmp/citytwin-api-bench-build.log 2>&1; then
  grep -E "error:" /tmp/citytwin-api-bench-build.log | head -5 >&2
  echo "release build failed (log: /tmp/citytwin-api-bench-build.log); BENCH_SKIP_BUILD=1 reuses $bin" >&2
  exit 1
fi
pg=$(Scripts/postgis.sh start)
pg=${pg%/*}
data=Benchmarks/.data/api
$py Benchmarks/api/api_bench.py prepare "$data" "$bin" "$pg"
echo "$(uptime)  ($(nproc) cores)"
for s in tiles pages wrk; do
  [[ $suite == all || $suite == "$s" ]] && $py Benchmarks/api/api_bench.py "$s" "$data" "$bin" "$pg"
done
exit 0

#!/usr/bin/env bash
# How CityTwin's costs grow with the city (issue 57): the sample city of N × N districts on
# SpatiaLite and PostGIS, built, served and measured (Benchmarks/scale/scale_bench.py says what).
#   Benchmarks/run.sh scale [SIZES=1,3,10] [BACKENDS=spatialite,postgis]      (1×, 9×, 100× the district)
#   SCALE_BENCH_BIN=.build/debug/citytwin Benchmarks/scale/run.sh 1,2 spatialite --quick   (a smoke run)
# Release build in the benchmarks' scratch path unless SCALE_BENCH_BIN names a binary. Results:
# Benchmarks/.data/scale/scale-results.json and the table printed; 100× takes about an hour.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/opt/swift/usr/bin:$PATH
sizes=${1:-1,3,10}; backends=${2:-spatialite,postgis}; shift $(( $# > 2 ? 2 : $# )) || true
[[ -x .venv/bin/python ]] || Scripts/setup.sh --test >/dev/null
source Benchmarks/bin.sh
if [[ -n ${SCALE_BENCH_BIN:-} ]]; then bin=$SCALE_BENCH_BIN; else bin=$(bench_bin citytwin); fi
pg=
if [[ $backends == *postgis* ]]; then pg=$(Scripts/postgis.sh start); fi
echo "$(uptime)  ($(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB)"
exec .venv/bin/python Benchmarks/scale/scale_bench.py "$bin" Benchmarks/.data/scale --sizes "$sizes" --backends "$backends" \
  ${pg:+--postgres "$pg"} "$@"

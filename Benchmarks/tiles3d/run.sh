#!/usr/bin/env bash
# 3D Tiles generation for ~100,000 buildings (issue 56): `citytwin tiles3d export` of a scaled city's
# buildings in PostGIS against py3dtiles converting the same buildings from the same PostGIS
# (Benchmarks/tiles3d/tiles3d_bench.py says what each side does and what is timed).
#   Benchmarks/run.sh tiles3d [SCALE=7] [ROUNDS=3]             (7 × 7 districts ≈ 96,000 buildings)
#   TILES3D_BENCH_BIN=.build/debug/citytwin Benchmarks/tiles3d/run.sh --quick   (the district, one round: a smoke run)
# Release build in the benchmarks' scratch path unless TILES3D_BENCH_BIN names a binary.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/opt/swift/usr/bin:$PATH
scale=7; rounds=${BENCH_ROUNDS:-3}
if [[ ${1:-} == --quick ]]; then scale=1; rounds=1; shift
else  # SCALE and ROUNDS are taken off the arguments; the rest (e.g. --keep) go to the script
  if [[ ${1:-} =~ ^[0-9]+$ ]]; then scale=$1; shift; fi
  if [[ ${1:-} =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
fi
[[ -x .venv/bin/python ]] || Scripts/setup.sh --test >/dev/null
if [[ -n ${TILES3D_BENCH_BIN:-} ]]; then bin=$TILES3D_BENCH_BIN; else
  scratch=${BENCH_SCRATCH:-$(cd .. && pwd)/.build-bench}
  swift build -c release --product citytwin --scratch-path "$scratch" >/dev/null
  bin=$scratch/release/citytwin
fi
pg=$(Scripts/postgis.sh start)
echo "$(uptime)  ($(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB)"
exec .venv/bin/python Benchmarks/tiles3d/tiles3d_bench.py "$bin" "$pg" --scale "$scale" --rounds "$rounds" "$@"

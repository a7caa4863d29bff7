#!/usr/bin/env bash
# Real clients against a running server: builds the sample district into a temporary store, starts
# `citytwin serve` on a free loopback port, waits for /health, runs the client tests (Tests/Clients:
# GDAL's OAPIF and MVT drivers, QGIS's OAPIF provider and vector-tile layer, mapbox-vector-tile, OWSLib,
# schemathesis), stops the server and exits with pytest's status. Needs gdal-bin and python3-qgis
# (Scripts/setup.sh --test) and the test-only Python packages:
#   .venv/bin/pip install -r Scripts/requirements-test.txt
# Extra arguments go to pytest (e.g. -k owslib). CITYTWIN_BIN overrides the binary (no build then).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

if [[ -z "${CITYTWIN_BIN:-}" ]]; then
  swift build --product citytwin
  CITYTWIN_BIN=$(swift build --product citytwin --show-bin-path)/citytwin
fi
for tool in ogrinfo ogr2ogr; do
  command -v "$tool" >/dev/null || { echo "client_tests: $tool missing: run Scripts/setup.sh --test" >&2; exit 2; }
done
/usr/bin/python3 -c "import qgis.core" 2>/dev/null || {
  echo "client_tests: QGIS missing (python3-qgis): run Scripts/setup.sh --test" >&2; exit 2; }
.venv/bin/python -c "import pytest, owslib, mapbox_vector_tile, schemathesis, requests, shapely, frost_sta_client, paho.mqtt.client" 2>/dev/null || {
  echo "client_tests: test packages missing: .venv/bin/pip install -r Scripts/requirements-test.txt" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/citytwin-clients.XXXXXX")
server_pid=""
stop_server() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
cleanup() { stop_server; rm -rf "$work"; }
trap cleanup EXIT

store="$work/district.sqlite"
"$CITYTWIN_BIN" district build --store "$store" --layers Layers

port=$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base_url="http://127.0.0.1:$port"
# The server's default limits, as a user runs it: the clients must read every layer with them (issue 58 §12).
"$CITYTWIN_BIN" serve --store "$store" --layers Layers --host 127.0.0.1 --port "$port" >"$work/server.log" 2>&1 &
server_pid=$!

for _ in $(seq 1 120); do
  if .venv/bin/python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('$base_url/health', timeout=2).status != 200)" 2>/dev/null; then
    break
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "client_tests: citytwin serve exited:" >&2; tail -n 40 "$work/server.log" >&2; exit 1
  fi
  sleep 0.5
done
.venv/bin/python -c "import urllib.request; urllib.request.urlopen('$base_url/health', timeout=5)" || {
  echo "client_tests: $base_url/health never answered" >&2; tail -n 40 "$work/server.log" >&2; exit 1; }
echo "client_tests: citytwin serve at $base_url (store $store)"

set +e
mkdir -p .build
CITYTWIN_CLIENT_BASE_URL=$base_url CITYTWIN_CLIENT_BIN=$CITYTWIN_BIN CITYTWIN_CLIENT_STORE=$store \
  .venv/bin/python -m pytest Tests/Clients -q -p no:cacheprovider --durations=15 "$@" | tee .build/client-tests-output.txt
status=${PIPESTATUS[0]}
# pytest's closing counts (e.g. "28 passed in 87.1s"), for Scripts/test.sh's summary line.
grep -oE '[0-9]+ passed' .build/client-tests-output.txt | tail -1 > .build/client-tests-summary.txt || true
set -e

# Whatever client sent it, a 5xx in the server's request log fails the run.
if grep -qE 'status=5[0-9][0-9]' "$work/server.log"; then
  echo "client_tests: the server answered 5xx during the run:" >&2
  grep -E 'status=5[0-9][0-9]' "$work/server.log" | tail -n 20 >&2
  [[ $status -eq 0 ]] && status=1
fi
[[ $status -ne 0 ]] && echo "client_tests: failed ($status)" >&2
stop_server
exit "$status"

#!/usr/bin/env bash
# Depth map tiles of a flood scenario over HTTP, uncached: builds the CLI, a sample district
# (20 m cells: demCoarsening 2) and one scenario run with a depth grid every 5 simulated
# minutes, serves it, and times GET /collections/{depth layer}/map/tiles/WebMercatorQuad/z/y/x
# ?datetime=… for tiles over the district at z15–z17, every request a tile and step not asked
# before (the server keeps no PNG cache; the step's grid is read once and kept, as in service).
# Prints p50/p90/max in ms and whether p50 meets the 20 ms target of issue 19.
# Usage: Benchmarks/run.sh rasters [REQUESTS]   (default 400)
#   BENCH_CONFIG=debug uses the debug build (no release build); BENCH_PORT (default 16250);
#   RASTERS_DURATION_SCALE (0.03): the scenario's share of the design storm (fewer steps: a smoke run).
set -euo pipefail
N="${1:-400}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${TMPDIR:-/tmp}/citytwin-rasters-bench"
PORT="${BENCH_PORT:-16250}"
CONFIG="${BENCH_CONFIG:-release}"
mkdir -p "$WORK"
cd "$ROOT"
source Benchmarks/bin.sh
if [ -n "${BENCH_BIN_DIR:-}" ]; then
  BIN=$(bench_bin citytwin)
elif [ "$CONFIG" = debug ]; then
  swift build --product citytwin 2>&1 | grep -E "error|Compiling|complete" | tail -2
  BIN="$ROOT/.build/debug/citytwin"
else
  SCRATCH="${BENCH_SCRATCH:-$(dirname "$ROOT")/.build-bench}"
  swift build -c release --product citytwin --scratch-path "$SCRATCH" 2>&1 | grep -E "error|complete" | tail -2
  BIN="$SCRATCH/release/citytwin"
fi
STORE="$WORK/district.sqlite"
if [ ! -f "$STORE" ]; then "$BIN" district build --store "$STORE" >/dev/null; fi
if ! "$BIN" scenario show bench-p50 --store "$STORE" 2>/dev/null | grep -q '"successful"'; then
  "$BIN" scenario show bench-p50 --store "$STORE" >/dev/null 2>&1 ||
    "$BIN" scenario create bench-p50 --model p50-waterlogging --duration-scale "${RASTERS_DURATION_SCALE:-0.03}" --dem-coarsening 2 --output-interval-minutes 3 --store "$STORE" >/dev/null
  "$BIN" scenario run bench-p50 --store "$STORE" 2>/dev/null | head -3
fi
TOKEN=$("$BIN" token create --department 水务和湖泊局 --role viewer --subject bench --store "$STORE")
"$BIN" serve --store "$STORE" --port "$PORT" --address-rate 0 --token-rate 0 --log-level warning >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
PY="$ROOT/.venv/bin/python"; [ -x "$PY" ] || PY=python3
"$PY" Benchmarks/rasters/tiles_bench.py "http://127.0.0.1:$PORT" "$TOKEN" scenario_bench_p50_depth "$N" "$CONFIG"

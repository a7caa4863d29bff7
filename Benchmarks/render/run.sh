#!/usr/bin/env bash
# Rendered z14 tiles against MapServer (issue 55, Done when): builds the CLI (release), the sample
# district into a SpatiaLite store, serves it, and runs Benchmarks/render/render_bench.py: every z14
# Web Mercator tile over the district for every public collection the style draws at that scale,
# CityTwin's WMTS PNG tiles (uncached: each tile drawn once) against MapServer 8 drawing the same
# layers from the same SpatiaLite file through OGR, with a mapfile the script generates from the same
# MapLibre style (Benchmarks/render/mapfile.py), in-process through mapscript; alternating chunks,
# throughput, p50/p99 and the ratio.
# Usage: Benchmarks/run.sh render [CHUNKS_OF_TEN]   (default: the whole tile list)
#   RENDER_BENCH_BIN=<citytwin binary> skips the build; BENCH_PORT (default 16260); RENDER_BENCH_SETTLE=0 times
#   the tiles as soon as the server answers (by default it waits for the server's start-up work to end).
#   Debian packages for this benchmark only: mapserver-bin, python3-mapscript, python3-pil (installed here when missing).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${TMPDIR:-/tmp}/citytwin-render-bench"
PORT="${BENCH_PORT:-16260}"
mkdir -p "$WORK"
cd "$ROOT"
# MapServer, its Python binding and PIL (comparing the tiles), for this benchmark only (not the runtime's packages).
if ! command -v map2img >/dev/null || ! /usr/bin/python3 -c "import mapscript, PIL" 2>/dev/null; then
  echo "render benchmark: installing mapserver-bin and python3-mapscript"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends mapserver-bin python3-mapscript python3-pil >/dev/null
fi
# The release CLI in the benchmarks' scratch path (or RENDER_BENCH_BIN, e.g. a debug build: say so with the figures).
BIN="${RENDER_BENCH_BIN:-${BENCH_SCRATCH:-$(dirname "$ROOT")/.build-bench}/release/citytwin}"
[ -n "${RENDER_BENCH_BIN:-}" ] || swift build -c release --product citytwin --scratch-path "$(dirname "$(dirname "$BIN")")" 2>&1 | grep -E "error|complete" | tail -2
STORE="$WORK/district.sqlite"
if [ ! -f "$STORE" ]; then "$BIN" district build --store "$STORE" >/dev/null; fi
# A fresh server each run: its tile cache is in memory, so every tile below is drawn, not cached.
"$BIN" serve --store "$STORE" --port "$PORT" --address-rate 0 --token-rate 0 --log-level warning >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
# The server's start-up work (the road graph's contraction hierarchy, the change feeds' first
# reads) runs on after /health answers: the tiles are timed once it is idle (under 5 % of a core
# for a second, at most two minutes' wait), as MapServer's side starts with its mapfile loaded
# (RENDER_BENCH_SETTLE=0: timed at once, as before 2026-11-27).
for _ in $(seq 1 $([ "${RENDER_BENCH_SETTLE:-1}" = 0 ] && echo 0 || echo 120)); do
  before=$(awk '{print $14 + $15}' "/proc/$SERVER/stat"); sleep 1; after=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
  (( after - before <= 5 )) && break
done
/usr/bin/python3 Benchmarks/render/render_bench.py "http://127.0.0.1:$PORT" "$STORE" "$WORK" "$@"

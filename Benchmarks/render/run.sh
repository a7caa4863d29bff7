#!/usr/bin/env bash
# Rendered tiles against MapServer (issue 55, Done when): builds the CLI (release), the sample
# district into a SpatiaLite store, and runs Benchmarks/render/render_bench.py: every z14 and z15
# Web Mercator tile over the district for every public collection the style draws at that scale,
# CityTwin's WMTS PNG tiles (uncached: a fresh server each round, each tile drawn once) against
# MapServer 8 drawing the same layers from the same SpatiaLite file through OGR, with mapfiles the
# script generates from the same MapLibre style (Benchmarks/render/mapfile.py), in-process through
# mapscript; several rounds alternating which side goes first, each round's ratio, the median and
# the spread, p50/p99, and the pixels' agreement.
# Usage: Benchmarks/run.sh render [ROUNDS]   (default 7)
#   RENDER_BENCH_BIN=<citytwin binary> skips the build; BENCH_PORT (default 16260); RENDER_BENCH_SETTLE=0 times
#   the tiles as soon as the server answers (by default it waits for the server's start-up work to end);
#   RENDER_BENCH_PERF=<dir> records each round's server with perf (perf-round<N>.data).
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
# render_bench.py starts a fresh server per round (its tile cache is in memory, so every tile is
# drawn, not cached) and waits for its start-up work to end before timing.
exec /usr/bin/python3 Benchmarks/render/render_bench.py "$BIN" "$STORE" "$WORK" "$PORT" "$@"

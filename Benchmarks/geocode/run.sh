#!/usr/bin/env bash
# Geocoding, on the sample district:
#  1. batch throughput: N noisy address strings (default 100,000) drawn from the district, timed
#     through `citytwin geocode` (the geocoding process, run by the CLI);
#  2. single-address latency over HTTP: `GET /geocode?q=` p50/p90 on `citytwin serve` vs a plain
#     Python http.server + sqlite LIKE lookup over the same addresses (http_bench.py says how).
# Usage: Benchmarks/geocode/run.sh [N]      both (run from the repository root)
#        Benchmarks/geocode/run.sh http     only the HTTP latency
# GEOCODE_BENCH_BIN=path/to/citytwin uses that binary instead of building the release one (a debug
# binary's figures are slower than a release build's: say which when quoting them).
# GEOCODE_BENCH_PORT (default 16180): the port the server listens on.
set -euo pipefail
MODE=both; N=100000
case "${1:-}" in http) MODE=http ;; "") ;; *) N=$1 ;; esac
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${TMPDIR:-/tmp}/citytwin-geocode-bench"
mkdir -p "$WORK"
cd "$ROOT"
source Benchmarks/bin.sh
if [ -n "${GEOCODE_BENCH_BIN:-}" ] || [ -n "${BENCH_BIN_DIR:-}" ]; then
  BIN="${GEOCODE_BENCH_BIN:-$(bench_bin citytwin)}"
  echo "binary: $BIN (given; not a fresh release build)"
else
  # Own scratch path (as the api suite): a release build here never waits on the debug build's lock.
  SCRATCH="${BENCH_SCRATCH:-$(dirname "$ROOT")/.build-bench}"
  swift build -c release --product citytwin --scratch-path "$SCRATCH" 2>&1 | grep -E "error|complete" | tail -2
  BIN="$SCRATCH/release/citytwin"
  echo "binary: $BIN (release)"
fi
STORE="$WORK/district.sqlite"
if [ ! -f "$STORE" ]; then "$BIN" district build --store "$STORE" >/dev/null; fi
PY="$ROOT/.venv/bin/python"; [ -x "$PY" ] || PY=python3

if [ "$MODE" = both ]; then
  "$PY" Benchmarks/geocode/make_sample.py "$STORE" "$N" "$WORK/sample.csv"
  START=$(date +%s.%N)
  "$BIN" geocode "$WORK/sample.csv" --store "$STORE" -o "$WORK/out.csv" 2>"$WORK/geocode.log"
  END=$(date +%s.%N)
  MATCHED=$(awk -F, 'NR > 1 && $3 != "" { m++ } END { print m + 0 }' "$WORK/out.csv")
  tail -1 "$WORK/geocode.log"
  python3 - "$N" "$START" "$END" "$MATCHED" <<'PY'
import sys
n, start, end, matched = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
s = end - start
print(f"geocode: {n} addresses in {s:.2f} s (including store load and index build) = {n / s:,.0f} addresses/s; {matched} matched")
PY
fi

# Single addresses over HTTP: a viewer token of a department (the standard addresses are shared
# with departments), no rate limits (one client sends every request).
PORT="${GEOCODE_BENCH_PORT:-16180}"
TOKEN=$("$BIN" token create --department 应急管理局 --role viewer --subject geocode-bench --expires 1h --store "$STORE")
"$BIN" serve --store "$STORE" --port "$PORT" --log-level warning --token-rate 0 --address-rate 0 >"$WORK/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
  sleep 0.2
done
"$PY" Benchmarks/geocode/http_bench.py "$STORE" "http://127.0.0.1:$PORT" "$TOKEN" "${GEOCODE_BENCH_QUERIES:-2000}"

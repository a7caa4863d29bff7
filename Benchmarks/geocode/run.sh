#!/usr/bin/env bash
# Batch geocoding throughput: builds the release CLI, makes sure a district store exists, writes
# N noisy address strings (default 100,000) drawn from it and times `citytwin geocode` on them.
# Usage: Benchmarks/geocode/run.sh [N]   (run from the repository root)
set -euo pipefail
N="${1:-100000}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="${TMPDIR:-/tmp}/citytwin-geocode-bench"
mkdir -p "$WORK"
cd "$ROOT"
# Own scratch path (as the api suite): a release build here never waits on the debug build's lock.
SCRATCH="${BENCH_SCRATCH:-$(dirname "$ROOT")/.build-bench}"
swift build -c release --product citytwin --scratch-path "$SCRATCH" 2>&1 | grep -E "error|complete" | tail -2
BIN="$SCRATCH/release/citytwin"
STORE="$WORK/district.sqlite"
if [ ! -f "$STORE" ]; then "$BIN" district build --store "$STORE" >/dev/null; fi
PY="$ROOT/.venv/bin/python"; [ -x "$PY" ] || PY=python3
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

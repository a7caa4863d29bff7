#!/usr/bin/env bash
# Crash safety of `citytwin import`: SIGKILL in the middle of a large import must leave the store
# as it was: `PRAGMA integrity_check` = ok and the layer's count unchanged (no partial layer).
#
#   Scripts/crash_import_check.sh [path/to/citytwin] [features]
#
# It imports a small file first (so "unchanged" means the previous count, not just 0), then
# starts a large import, kills it with SIGKILL after a delay chosen to land inside the write,
# and checks. It repeats with three delays so the kill hits reading, checking and writing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/debug/citytwin}
n=${2:-200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store="$work/city.sqlite"

python3 - "$work" "$n" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
def feature(i, prefix):
    return {"type": "Feature", "properties": {"main": f"{prefix}-{i}", "kind": "地上式", "outlet_mm": 100,
            "status": "完好", "road": "齐安大道"},
            "geometry": {"type": "Point", "coordinates": [114.78 + (i % 1000) * 1e-5, 30.82 + (i // 1000) * 1e-5]}}
json.dump({"type": "FeatureCollection", "features": [feature(i, "small") for i in range(25)]}, open(f"{work}/small.geojson", "w"))
with open(f"{work}/large.geojsonl", "w") as f:
    for i in range(n):
        f.write(json.dumps(feature(i, "large"), ensure_ascii=False) + "\n")
PY

count() {
    "$bin" layers --store "$store" | python3 -c 'import json,sys; print(next(l["count"] for l in json.load(sys.stdin) if l["id"] == "hydrants"))'
}

"$bin" import "$work/small.geojson" --layer hydrants --store "$store" >/dev/null
before=$(count)
echo "before: $before features"

status=0
for delay in 1 3 6; do
    "$bin" import "$work/large.geojsonl" --layer hydrants --store "$store" >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid"
        wait "$pid" 2>/dev/null || true
        killed="killed after ${delay}s"
    else
        wait "$pid" || true
        killed="finished before ${delay}s (use more features)"
    fi
    integrity=$(sqlite3 "$store" "PRAGMA integrity_check;")
    after=$(count)
    echo "$killed: integrity_check=$integrity count=$after"
    if [[ "$integrity" != "ok" ]]; then echo "FAIL: integrity_check"; status=1; fi
    if [[ "$killed" == killed* && "$after" != "$before" ]]; then echo "FAIL: partial layer ($after != $before)"; status=1; fi
    if [[ "$killed" == finished* ]]; then before=$after; fi
done
[[ $status == 0 ]] && echo "PASS: no partial import after SIGKILL"
exit $status

#!/usr/bin/env bash
# Crash safety of `citytwin import` into SpatiaLite: SIGKILL in the middle of a large import must
# leave the store as it was: `PRAGMA integrity_check` = ok, the R*Tree consistent, and the layer's
# count, version rows, audit entries and change events unchanged (no partial layer).
#
#   Scripts/crash_import_check.sh [path/to/citytwin] [features]
#
# Defaults: .build/release/citytwin when built (else .build/debug/citytwin), 200,000 points.
# Two starting states, each checked the same way: a layer holding 25 features (so "unchanged"
# means the previous state, and the import adds to indexes that exist), and an empty layer (the
# bulk path that drops the layer's indexes, loads, rebuilds them and packs the R*Tree, all in
# the one transaction: a kill must leave the indexes and triggers as they were).
# Each runs the large import once uninterrupted on a copy of the store: the control (it must
# succeed, so a kill that "leaves nothing" is not just an import that would have failed) and
# the calibration (how large the write-ahead log grows while the one write transaction runs).
# Then, on the real store, it SIGKILLs the large import at four points, one after another:
#   reading     at the first "reading" progress line (features parsed, nothing written yet)
#   write 10%   when the WAL has grown to 10% of its calibrated peak (inside the transaction)
#   write 50%   … 50%
#   write 90%   … 90% (close to the commit)
# and checks the store after each kill before anything but sqlite3 opens it. A kill that comes
# after the import finished fails the check (the input was too small to test anything).
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
default_bin=.build/debug/citytwin
[[ -x .build/release/citytwin ]] && default_bin=.build/release/citytwin
bin=${1:-$default_bin}
n=${2:-200000}
[[ -x $bin ]] || { echo "no citytwin binary at $bin (swift build -c release --product citytwin)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "sqlite3 (the CLI) is needed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store="$work/city.sqlite"
echo "crash check: $bin, $n features, store $store"

python3 - "$work" "$n" <<'PY'
import json, sys
work, n = sys.argv[1], int(sys.argv[2])
def feature(i, prefix):
    return {"type": "Feature", "properties": {"main": f"{prefix}-{i}", "kind": "地上式", "outlet_mm": 100,
            "status": "完好", "road": "齐安大道"},
            "geometry": {"type": "Point", "coordinates": [114.78 + (i % 1000) * 1e-5, 30.82 + (i // 1000) * 1e-5]}}
with open(f"{work}/small.geojson", "w") as f:
    json.dump({"type": "FeatureCollection", "features": [feature(i, "small") for i in range(25)]}, f, ensure_ascii=False)
with open(f"{work}/empty.geojson", "w") as f:
    json.dump({"type": "FeatureCollection", "features": []}, f)
with open(f"{work}/large.geojsonl", "w") as f:
    for i in range(n):
        f.write(json.dumps(feature(i, "large"), ensure_ascii=False) + "\n")
PY

# The layer as the store reports it (current features), and the raw rows behind it.
count() {
    "$bin" layers --store "$1" | python3 -c 'import json,sys; print(next(l["count"] for l in json.load(sys.stdin) if l["id"] == "hydrants"))'
}
rows() {
    sqlite3 "$1" "SELECT (SELECT count(*) FROM f_hydrants) || ' versions, ' || (SELECT count(*) FROM audit_log) || ' audit, ' || (SELECT count(*) FROM idx_f_hydrants_geom_rowid) || ' R*Tree entries, ' || (SELECT count(*) FROM sqlite_master WHERE tbl_name = 'f_hydrants') || ' indexes+triggers';"
}

# Runs the large import against a store; TRIGGER is `none` (run to the end), `reading` or
# `wal:BYTES`; SIGKILLs it when the trigger is met. Prints one JSON line describing the run.
run_import() {
    python3 - "$bin" "$1" "$work/large.geojsonl" "$2" <<'PY'
import json, os, signal, subprocess, sys, time
binary, store, source, trigger = sys.argv[1:5]
wal = store + "-wal"
log = open(store + ".progress", "w+")
start = time.monotonic()
p = subprocess.Popen([binary, "import", source, "--layer", "hydrants", "--store", store],
                     stdout=subprocess.DEVNULL, stderr=log)
peak, reading_at, killed = 0, None, False
def wal_size():
    try: return os.stat(wal).st_size
    except FileNotFoundError: return 0
while p.poll() is None:
    size = wal_size()
    peak = max(peak, size)
    if reading_at is None:
        with open(store + ".progress") as f:
            if "reading" in f.read(): reading_at = time.monotonic() - start
    if (trigger == "reading" and reading_at is not None) or \
       (trigger.startswith("wal:") and size >= int(trigger[4:])):
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        killed = True
        break
    time.sleep(0.02)
print(json.dumps({"killed": killed, "exit": p.returncode, "seconds": round(time.monotonic() - start, 2),
                  "wal_bytes": peak, "reading_at": reading_at}))
PY
}
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }

status=0
# One starting state: SETUP is the file imported first, LABEL says what it leaves.
scenario() {
    rm -f "$store"*
    "$bin" import "$work/$1" --layer hydrants --store "$store" >/dev/null 2>&1
    before=$(count "$store")
    before_rows=$(rows "$store")
    echo "== starting from $2: $before features ($before_rows)"

    # Control and calibration on a copy (the store is closed cleanly, so the file alone is the state).
    cp "$store" "$work/control.sqlite"
    if [[ -f "$store.audit-key" ]]; then cp "$store.audit-key" "$work/control.sqlite.audit-key"; fi
    control=$(run_import "$work/control.sqlite" none)
    control_count=$(count "$work/control.sqlite")
    peak=$(field "$control" wal_bytes)
    echo "control (no kill): exit $(field "$control" exit) in $(field "$control" seconds)s, WAL peak $((peak / 1048576)) MB, count $control_count"
    if [[ $(field "$control" exit) != 0 || $control_count != $((before + n)) ]]; then
        echo "FAIL: the uninterrupted import did not write $n features (count $control_count)"; status=1; return
    fi
    control_check=$(sqlite3 "$work/control.sqlite" "PRAGMA integrity_check; SELECT rtreecheck('idx_f_hydrants_geom');" | tr '\n' ' ' | sed 's/ $//')
    echo "control: integrity_check, rtreecheck = $control_check ($(rows "$work/control.sqlite"))"
    [[ $control_check == "ok ok" ]] || { echo "FAIL: the uninterrupted import left an inconsistent store"; status=1; }
    rm -f "$work"/control.sqlite*

    for point in reading 10 50 90; do
        if [[ $point == reading ]]; then trigger=reading; label="reading"; else
            trigger="wal:$((peak * point / 100))"; label="write ${point}%"; fi
        result=$(run_import "$store" "$trigger")
        # Check the file before any CityTwin process opens (and possibly repairs) it.
        integrity=$(sqlite3 "$store" "PRAGMA integrity_check;" | tr '\n' ' ' | sed 's/ $//')
        rtree=$(sqlite3 "$store" "SELECT rtreecheck('idx_f_hydrants_geom');" | tr '\n' ' ' | sed 's/ $//')
        after_rows=$(rows "$store")
        after=$(count "$store")
        if [[ $(field "$result" killed) == True ]]; then
            what="killed at $label after $(field "$result" seconds)s (WAL $(( $(field "$result" wal_bytes) / 1048576 )) MB)"
        else
            what="NOT killed at $label: the import ended first (exit $(field "$result" exit)); use more features"
            status=1
        fi
        echo "$what: integrity_check=$integrity rtreecheck=$rtree count=$after ($after_rows)"
        [[ $integrity == ok ]] || { echo "FAIL: integrity_check"; status=1; }
        [[ $rtree == ok ]] || { echo "FAIL: rtreecheck"; status=1; }
        [[ $after == "$before" && $after_rows == "$before_rows" ]] || { echo "FAIL: partial layer ($after features, $after_rows; expected $before, $before_rows)"; status=1; }
    done
}
scenario small.geojson "a layer of 25 features"
scenario empty.geojson "an empty layer"
[[ $status == 0 ]] && echo "PASS: SIGKILL at every point left the store as it was"
exit $status

#!/usr/bin/env bash
# The documentation's own examples must run: takes every `swift run citytwin …` line of the `sh`
# blocks of README.md and docs/**/*.md (README first, then docs/cli.md, then the other pages in path
# order) and runs it with the built binary, in order, in a fresh directory (so `district build` there
# makes a fresh sample district in its default store, and every later line reads it), and fails when
# any line fails.
#
# How a line becomes a command: the comment after `  # ` goes; an optional part `[…]` is kept
# without its brackets, unless it names alternatives or a placeholder (`|` or `…`), then it goes
# (so `[--failed-valve WV-0003]` is checked, `[--store PATH|postgresql://…]` is not). What a
# line needs beyond the district is made here: small GeoJSON and CSV inputs; `serve` is started
# on a free port and must answer /health; `worker` runs with `--once`. A block that calls `curl`
# is not taken line by line: the block marked `<!-- readme_check: session -->` (the sensing page's)
# runs in one shell against the served district and must raise an alert; others are not run.
#
#   Scripts/readme_check.sh            (needs: swift build; called by Scripts/test.sh)
#   CITYTWIN_BIN=.build/debug/citytwin Scripts/readme_check.sh   (a binary already built)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
export PATH=/opt/swift/usr/bin:$PATH

fail() { echo "readme_check: FAIL: $*" >&2; exit 1; }

if [[ -n ${CITYTWIN_BIN:-} ]]; then
  CITYTWIN=$CITYTWIN_BIN
else
  swift build --product citytwin 2>&1 | grep -E "error|Build complete" || true
  CITYTWIN=$(swift build --show-bin-path)/citytwin
fi
[[ -x $CITYTWIN ]] || fail "no citytwin binary at $CITYTWIN"
export CITYTWIN

work=$(mktemp -d /tmp/citytwin-readme.XXXXXX)
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The documentation's pages, in the order their examples run, and their command lines turned into
# shell commands (one per line).
pages=$(cd "$repo" && { echo README.md; echo docs/cli.md; find docs -name '*.md' ! -path docs/cli.md | LC_ALL=C sort; })
commands=$(cd "$repo" && python3 Scripts/doc_examples.py commands $pages)
count=$(grep -c . <<<"$commands" || true)
# 58 examples when the README's "Command line" block moved into docs/: never fewer.
((count >= 58)) || fail "found only $count command lines in the sh blocks of README.md and docs/ (at least 58 expected)"

# The inputs the lines name, and the repository paths they use.
cd "$work"
for d in Layers Models Tests; do ln -s "$repo/$d" "$d"; done
# SUMO's tools (eclipse-sumo) where a user of the repository has them: its .venv.
[[ -d $repo/.venv ]] && ln -s "$repo/.venv" .venv
cat >district.geojson <<'JSON'
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "id": "gate", "properties": {"name": "邾城街道"}, "geometry": {"type": "Point", "coordinates": [114.80, 30.84]}},
 {"type": "Feature", "id": "block", "properties": {"name": "街区"}, "geometry": {"type": "Polygon",
  "coordinates": [[[114.80, 30.84], [114.81, 30.84], [114.81, 30.85], [114.80, 30.85], [114.80, 30.84]]]}}]}
JSON
# One parcel is a bow tie (self-intersecting): --repair must fix it.
cat >parcels.geojson <<'JSON'
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "id": "P-1", "properties": {}, "geometry": {"type": "Polygon",
  "coordinates": [[[114.80, 30.84], [114.801, 30.84], [114.801, 30.841], [114.80, 30.841], [114.80, 30.84]]]}},
 {"type": "Feature", "id": "P-2", "properties": {}, "geometry": {"type": "Polygon",
  "coordinates": [[[114.80, 30.84], [114.801, 30.841], [114.801, 30.84], [114.80, 30.841], [114.80, 30.84]]]}}]}
JSON

# A closed block for `network route --avoid`.
cat >closed-area.geojson <<'JSON'
{"type": "Polygon", "coordinates": [[[114.805, 30.842], [114.812, 30.842], [114.812, 30.848], [114.805, 30.848], [114.805, 30.842]]]}
JSON

# Points inside the district for reverse geocoding, and two hydrants the layer does not hold yet
# (with ids: the default import mode refuses features without ids into a layer that has some).
cat >points.csv <<'CSV'
name,lon,lat
gate,114.80,30.84
square,114.815,30.845
CSV
cat >hydrants.geojson <<'JSON'
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "id": "HY-README-1", "properties": {"main": "WM-0001", "kind": "地上式", "outlet_mm": 100, "status": "完好", "road": "齐安大道"},
  "geometry": {"type": "Point", "coordinates": [114.801, 30.841]}},
 {"type": "Feature", "id": "HY-README-2", "properties": {"main": "WM-0001", "kind": "地下式", "outlet_mm": 150, "status": "完好", "road": "齐安大道"},
  "geometry": {"type": "Point", "coordinates": [114.802, 30.842]}}]}
JSON

# Addresses to geocode: real 门牌 of the district just built (after its `district build` line).
addresses_from_district() {
  python3 - .citytwin/district.sqlite <<'PY' >addresses.csv
import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = db.execute("SELECT props FROM f_addresses WHERE valid_to IS NULL ORDER BY fid").fetchall()
doors = [p["full_address"] for p in (json.loads(r[0]) for r in rows) if p.get("level") == "门牌" and p.get("status") == "在用"]
if len(doors) < 3:
    sys.exit("the district has fewer than 3 door plates")
print("address")
for a in doors[:: max(1, len(doors) // 5)][:5]:
    print('"' + a.replace('"', '""') + '"')
PY
}

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
TIMEFORMAT='%R %U %S'
failures=0
n=0
while IFS= read -r cmd; do
  [[ -z $cmd ]] && continue
  n=$((n + 1))
  log="$work/command-$n.log"
  case "$cmd" in
    *'"$CITYTWIN" serve'*)
      cmd=$(sed -E 's/ --port [^ ]+//' <<<"$cmd")" --port $port"
      echo "readme_check: [$n] $cmd  (until /health answers)"
      bash -c "$cmd" >"$log" 2>&1 &
      server_pid=$!
      ok=0
      for _ in $(seq 1 150); do
        if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then ok=1; break; fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.2
      done
      kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""
      if ((ok)); then continue; fi
      ;;
    *)
      [[ $cmd == *'"$CITYTWIN" worker'* && $cmd != *--once* ]] && cmd="$cmd --once"
      echo "readme_check: [$n] $cmd"
      # Each command's wall and CPU seconds (user + system, its children included): the CPU figure
      # does not depend on what else the machine runs, so it tells which examples make this stage long.
      status=0
      { time bash -c "$cmd" >"$log" 2>&1 </dev/null; } 2>"$work/time-$n" || status=$?
      read -r wall user sys <"$work/time-$n" || true
      echo "readme_check: [$n] took ${wall:-?} s (CPU $(python3 -c "print(round(${user:-0} + ${sys:-0}, 1))") s)"
      if ((status == 0)); then
        if [[ $cmd == *'"$CITYTWIN" district build'* ]]; then addresses_from_district || fail "cannot read addresses from the district"; fi
        continue
      fi
      ;;
  esac
  failures=$((failures + 1))
  echo "readme_check: FAILED: $cmd" >&2
  tail -15 "$log" | sed 's/^/    /' >&2
done <<<"$commands"

((failures == 0)) || fail "$failures of $n documented commands failed"

# The session block (the sensing page's), in order in one shell (TOKEN carries over), against the
# district served on the free port: every curl must succeed, and the last must show the raised alert.
sensor_lines=$(cd "$repo" && python3 Scripts/doc_examples.py session $pages)
[[ -n $sensor_lines ]] || fail "no block marked <!-- readme_check: session --> in README.md or docs/"
"$CITYTWIN" serve --port "$port" >"$work/sensors-serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.2; done
echo "readme_check: session block ($(grep -c . <<<"$sensor_lines") lines)"
if ! port=$port bash -euo pipefail -c "$sensor_lines" >"$work/sensors.log" 2>&1; then
  tail -20 "$work/sensors.log" | sed 's/^/    /' >&2
  fail "a line of the session block failed"
fi
grep -q '"level":"danger"' "$work/sensors.log" || fail "the session block raised no alert: $(tail -c 400 "$work/sensors.log")"
kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=""

# What the pages' comments promise, on the same district.
expect_failure() {  # expect_failure "what it must say" command…
  local want=$1; shift
  local out status=0
  out=$("$@" 2>&1) || status=$?
  ((status != 0)) || fail "'$*' succeeded; it must fail"
  grep -qF -- "$want" <<<"$out" || fail "'$*' must say '$want'; it said: $out"
}
# Importing the same file again is refused (nothing doubles).
expect_failure "already holds feature" "$CITYTWIN" import hydrants.geojson --layer hydrants
# Every bad feature is reported and the rest checked: an unclosed ring, a bow tie, a good one.
cat >bad-parcels.geojson <<'JSON'
{"type": "FeatureCollection", "features": [
 {"type": "Feature", "id": "open", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}},
 {"type": "Feature", "id": "bowtie", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}},
 {"type": "Feature", "id": "good", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}}]}
JSON
report=$("$CITYTWIN" geo validate <bad-parcels.geojson 2>&1) && fail "geo validate passed a file with bad features"
grep -q "feature 0 (id open): unreadable" <<<"$report" || fail "geo validate did not report the unclosed ring: $report"
grep -q "feature 1 (id bowtie): invalid" <<<"$report" || fail "geo validate did not carry on to the bow tie: $report"
grep -q "1 of 3 geometries valid, 1 unreadable" <<<"$report" || fail "geo validate's tally is wrong: $report"
# With --repair the bow tie is repaired in the output and the tally says so (not "1 of 3 valid" alone).
report=$("$CITYTWIN" geo validate --repair <bad-parcels.geojson 2>&1 >/dev/null) && fail "geo validate --repair passed a file with an unreadable feature"
grep -q "feature 1 (id bowtie): invalid: .* (repaired)" <<<"$report" || fail "geo validate --repair did not say the bow tie was repaired: $report"
grep -q "1 of 3 geometries valid, 1 repaired, 1 unreadable (left out)" <<<"$report" || fail "geo validate --repair's tally is wrong: $report"
# A failed valve that does not bound the burst main's segment changes nothing, and the answer says so.
note=$("$CITYTWIN" network isolate --main WM-0001 --failed-valve WV-0003 2>&1 >/dev/null)
grep -q "WV-0003 neither bounds nor lies in the segment of WM-0001: its failure changes nothing" <<<"$note" || fail "network isolate said nothing of WV-0003: $note"
expect_failure "WV-9999 is not a valve of the water network" "$CITYTWIN" network isolate --main WM-0001 --failed-valve WV-9999
# serve on a port another program holds: the error, and no "serving on" line before it.
busy_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -c "import socket, time; s = socket.socket(); s.bind(('127.0.0.1', $busy_port)); s.listen(); time.sleep(60)" &
holder=$!
sleep 0.5
busy=$("$CITYTWIN" serve --host 127.0.0.1 --port "$busy_port" 2>&1) && fail "serve started on a busy port"
kill "$holder" 2>/dev/null || true
grep -q "another program is using that port" <<<"$busy" || fail "serve on a busy port did not say so: $busy"
! grep -q "serving on" <<<"$busy" || fail "serve said 'serving on' before failing to bind: $busy"
# A token for a department the store does not know, and a store that does not exist, are refused.
expect_failure "no department '不存在局'" "$CITYTWIN" token create --department 不存在局
expect_failure "no store at" "$CITYTWIN" layers --store missing/none.sqlite
expect_failure "no store at" "$CITYTWIN" token create --department 应急管理局 --store missing/none.sqlite
[[ ! -e missing ]] || fail "a command that only reads created missing/"
echo "readme_check: all $n documented commands ran (README.md and docs/)"

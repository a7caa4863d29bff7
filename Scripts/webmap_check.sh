#!/usr/bin/env bash
# End-to-end check of the web map: builds the sample district into a temporary store, runs a
# quick flood scenario on it (result layers and depth over time to draw), starts `citytwin serve`, and drives headless
# Chromium (Debian `chromium`) through /map with Scripts/webmap_check.py, which checks
#   1. the anonymous map loads and goes idle without the (department-only) flood results;
#   2. signing in with a department token through the page (no reload) makes the flood depth
#      layer appear; at least four depth classes are drawn, found by their legend colours in
#      the map's pixels; the legend shows them; labels are drawn (pixels of the text layers);
#   3. a click on the map with the nearest-resources tool lists the resources and draws routes;
#   4. rivers are water blue, not flood; a corridor's green wave and time–space diagram with
#      intersections by LOS; the depth-over-time slider; a flood job started from the page and
#      followed to its layers; the swipe comparison of the two runs; WCAG contrast of all text;
#   5. no console error and no request beyond the server (no CDN);
# and here: MapLibre GL JS and the glyphs came from the server; vector tiles were served; the map
# area is not blank; a GeoPackage download opens in GDAL (`ogrinfo`) with the expected count.
# Screenshots are kept in artifacts/ (git-ignored): webmap.png (the flood, signed in),
# webmap-public.png, webmap-nearest.png, webmap-corridor.png, webmap-time-*.png, webmap-job.png,
# webmap-swipe.png, webmap-popup.png, webmap-3d-flat.png, webmap-3d.png (the 3D view: terrain, extruded
# buildings, the flood draped), webmap-3d-underground.png; the flooded and cut-off buildings' highlights
# need a run that floods buildings: Scripts/webmap_check_3d.sh. Exits non-zero on any failure.
#
#   Scripts/webmap_check.sh            (needs: swift build, chromium, gdal-bin, .venv with maplibre and fonttools)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

fail() { echo "webmap_check: FAIL: $*" >&2; exit 1; }
command -v ogrinfo >/dev/null || fail "ogrinfo is not installed (apt-get install gdal-bin)"

source Scripts/browser_session.sh
session_start webmap

if [[ ! -f .venv/share/citytwin/glyphs/wqy-microhei/0-255.pbf ]]; then
  .venv/bin/python Scripts/make_glyphs.py --out .venv/share/citytwin/glyphs || fail "the map's glyphs could not be made"
fi

echo "webmap_check: building the district into $work/city.sqlite"
"$bin" district build --store "$work/city.sqlite" --layers Layers >"$work/district.log" 2>&1 \
  || { tail -20 "$work/district.log"; fail "district build failed"; }
# A quick flood scenario run (10 % of the storm: 18 min of the 50-a storm, 100 m cells, the depth
# every 2 minutes; about 2.5 CPU minutes): result layers scenario_p50_base_*, depth over time. With
# the levees holding the 长江 and 举水 in their channels, the rain ponds behind them and in the low
# ground in all five depth classes (0.05–0.15 m 49 ha, 0.15–0.3 m 7 ha, 0.3–0.5 m 9 ha, 0.5–1 m
# 2 ha, > 1 m 1 ha); 5 % of the storm reaches three. The page runs a second one (p50-with-storage,
# 2 %) as a job, to compare the two.
"$bin" scenario create p50-base --store "$work/city.sqlite" --model p50-waterlogging --duration-scale 0.1 --dem-coarsening 10 \
  --output-interval-minutes 2 >"$work/flood.log" 2>&1 || { tail -20 "$work/flood.log"; fail "the scenario could not be created"; }
"$bin" scenario run p50-base --store "$work/city.sqlite" >>"$work/flood.log" 2>&1 \
  || { tail -20 "$work/flood.log"; fail "the flood scenario failed"; }
token=$("$bin" token create --store "$work/city.sqlite" --department 水务和湖泊局 --role editor --expires 1h 2>"$work/token.log") \
  || { cat "$work/token.log"; fail "no token"; }

session_serve --store "$work/city.sqlite" --layers Layers --address-rate 0
echo "webmap_check: serving on port $port"

mkdir -p artifacts
rm -f artifacts/webmap*.png
# Headless Chromium driven over the DevTools protocol (Scripts/webmap_check.py, stdlib only).
session_chromium
set +e
python3 Scripts/webmap_check.py "$devtools" "http://127.0.0.1:$port" "$token" "$PWD/artifacts"
shot_status=$?
set -e
session_stop_chromium
[[ -s artifacts/webmap.png ]] || { tail -20 "$work/chromium.log"; fail "no screenshot written"; }

grep -q 'path=/static/maplibre-gl.js .*status=200' "$work/server.log" \
  || { grep 'path=/static' "$work/server.log" || true; fail "maplibre-gl.js was not served"; }
grep -q 'path=/tiles/WebMercatorQuad/style.json .*status=200' "$work/server.log" || fail "the style was not loaded"
tiles=$(grep -cE 'path=/tiles/WebMercatorQuad/[0-9]+/[0-9]+/[0-9]+ .*status=200' "$work/server.log" || true)
if [[ $tiles -eq 0 ]]; then
  grep 'path=/tiles' "$work/server.log" | tail -5
  grep -o 'CONSOLE.*map error.*' "$work/chromium.log" | head -5 || true
  fail "no vector tile was served (MapLibre's errors above, if any)"
fi
grep -q 'path=/fonts/wqy-microhei/0-255.pbf .*status=200' "$work/server.log" || fail "the label glyphs were not served"
echo "webmap_check: $tiles vector tiles served"
if [[ $shot_status -ne 0 ]]; then
  grep -o 'CONSOLE.*map error.*' "$work/chromium.log" | head -5 || true
  fail "the map check failed (MapLibre's errors above, if any)"
fi

# The screenshot: decoded by webmap_check.py's PNG reader; real variety required in the map
# area (right of the 18em layer panel).
python3 - "$PWD/artifacts/webmap.png" <<'PY'
import sys
sys.path.insert(0, "Scripts")
from webmap_check import decode_png
w, h, rows = decode_png(open(sys.argv[1], "rb").read())
colours, left = {}, w // 3
for y in range(0, h, 2):
    for x in range(left, w, 2):
        colours[rows[y][x]] = colours.get(rows[y][x], 0) + 1
total = sum(colours.values()); top = max(colours.values())
print(f"webmap_check: screenshot {w}x{h}, {len(colours)} colours in the map area, background {100 * top / total:.1f}%")
assert len(colours) >= 20, "the map area is (nearly) one colour: nothing was drawn"
assert top / total < 0.97, "the map area is almost entirely background: no features drawn"
PY

# A GeoPackage download of an open layer, read by GDAL.
curl -sf -o "$work/roads.gpkg" "http://127.0.0.1:$port/collections/roads/items?f=gpkg" || fail "GeoPackage download failed"
expected=$(curl -sf "http://127.0.0.1:$port/collections/roads/items?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["numberMatched"])')
ogrinfo -ro -so "$work/roads.gpkg" roads >"$work/ogrinfo.txt" 2>&1 || { cat "$work/ogrinfo.txt"; fail "ogrinfo cannot read the GeoPackage"; }
grep -q "Feature Count: $expected\$" "$work/ogrinfo.txt" || { cat "$work/ogrinfo.txt"; fail "ogrinfo feature count is not $expected"; }
grep -qE 'ID\["EPSG",4490\]|AUTHORITY\["EPSG","4490"\]' "$work/ogrinfo.txt" || { cat "$work/ogrinfo.txt"; fail "the GeoPackage is not in EPSG:4490"; }
if ogrinfo -ro "$work/roads.gpkg" roads 2>&1 | grep -E '^(ERROR|Warning) [0-9]+:'; then fail "ogrinfo reported problems"; fi
echo "webmap_check: GeoPackage of $expected roads reads in GDAL"
echo "webmap_check: OK (screenshot artifacts/webmap.png)"

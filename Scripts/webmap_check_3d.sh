#!/usr/bin/env bash
# The web map's 3D view alone (Scripts/webmap_check_3d.py; webmap_check.sh runs it after its other
# checks): builds the sample district into a temporary store, serves it, signs in through the page
# as an editor of 水务和湖泊局 in headless Chromium, runs the 3D check's flood (a 100-a 30-min storm
# with the 长江 and 举水 at 25.0 m, on 20 m cells, that must flood buildings and cut off a resource; see
# webmap_check_3d.py) and checks terrain, extruded buildings, the draped depth, the flooded
# (orange) and cut-off (red) buildings and the pipes under a transparent surface by their pixels.
# Screenshots in artifacts/: webmap-3d-flat.png, webmap-3d.png, webmap-3d-cutoff.png,
# webmap-3d-underground.png. Exits non-zero on any failure.
#
#   Scripts/webmap_check_3d.sh         (CITYTWIN_BIN=… to use a built binary; else `swift build`)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
fail() { echo "webmap_check_3d: FAIL: $*" >&2; exit 1; }

source Scripts/browser_session.sh
session_start webmap3d
if [[ ! -f .venv/share/citytwin/glyphs/wqy-microhei/0-255.pbf ]]; then
  .venv/bin/python Scripts/make_glyphs.py --out .venv/share/citytwin/glyphs || fail "the map's glyphs could not be made"
fi
"$bin" district build --store "$work/city.sqlite" --layers Layers >"$work/district.log" 2>&1 \
  || { tail -20 "$work/district.log"; fail "district build failed"; }
token=$("$bin" token create --store "$work/city.sqlite" --department 水务和湖泊局 --role editor --expires 1h 2>"$work/token.log") \
  || { cat "$work/token.log"; fail "no token"; }
session_serve --store "$work/city.sqlite" --layers Layers --address-rate 0
mkdir -p artifacts
rm -f artifacts/webmap-3d*.png
session_chromium
python3 Scripts/webmap_check_3d.py "$devtools" "http://127.0.0.1:$port" "$token" "$PWD/artifacts" \
  || { grep -o 'CONSOLE.*map error.*' "$work/chromium.log" | head -5 || true; tail -5 "$work/server.log"; fail "the 3D check failed"; }

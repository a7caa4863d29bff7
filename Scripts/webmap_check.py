#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol (Python stdlib only) through /map as a
person would, and checks what is drawn by pixels. Called by Scripts/webmap_check.sh, which
builds a district with a flood result, starts the server and Chromium.

  webmap_check.py DEVTOOLS_PORT SERVER_URL TOKEN ARTIFACTS_DIR

1. Anonymous: the map loads and becomes idle; no flood result layer is in the style (they are
   shared with departments only); screenshot webmap-public.png.
2. Sign in through the page's form (no reload: a marker on `window` survives): the caller's
   department is shown, the flood depth layer appears in the layer tree and is drawn.
3. View of the flood: at least four depth classes are drawn, each found by its legend colour in
   the map's pixels (not the legend's); the legend shows them; labels are drawn (pixels change
   when the label layers are hidden); screenshot webmap.png.
4. A click on the map with the nearest-resources tool runs the process; the result list is in
   the page and the routes are drawn; screenshot webmap-nearest.png.
5. Throughout: no console error, no exception, no request to anything but the server.
Exits non-zero with the reason on any failure.
"""
import base64, json, os, socket, struct, sys, time, urllib.request, zlib

port, server, token, artifacts = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3], sys.argv[4]


def fail(why):
    sys.exit(f"webmap_check: FAIL: {why}")


for _ in range(100):
    try:
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        break
    except OSError:
        time.sleep(0.2)
else:
    fail("Chromium's DevTools endpoint did not answer")
ws_url = next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page")
path = ws_url.split(f":{port}", 1)[1]
sock = socket.create_connection(("127.0.0.1", port))
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
buf = b""
while b"\r\n\r\n" not in buf:
    buf += sock.recv(4096)
assert b" 101 " in buf.split(b"\r\n", 1)[0], buf[:200]
buf = buf.split(b"\r\n\r\n", 1)[1]


def recv_exact(n):
    global buf
    while len(buf) < n:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise EOFError
        buf += chunk
    data, buf = buf[:n], buf[n:]
    return data


def recv_message():
    payload = b""
    while True:
        b0, b1 = recv_exact(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", recv_exact(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", recv_exact(8))[0]
        payload += recv_exact(n)
        if b0 & 0x80:
            return payload


errors, requests = [], []


def event(m):
    method, p = m.get("method"), m.get("params", {})
    if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
        errors.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
    elif method == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        errors.append("exception: " + (d.get("exception", {}).get("description") or d.get("text", "")))
    elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
        errors.append("log: " + p["entry"].get("text", "") + " " + p["entry"].get("url", ""))
    elif method == "Network.requestWillBeSent":
        requests.append(p.get("request", {}).get("url", ""))


next_id = 0


def call(method, **params):
    global next_id
    next_id += 1
    data = json.dumps({"id": next_id, "method": method, "params": params}).encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(data) < 126:
        header += bytes([0x80 | len(data)])
    elif len(data) < 65536:
        header += bytes([0x80 | 126]) + struct.pack(">H", len(data))
    else:
        header += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
    while True:
        m = json.loads(recv_message())
        if m.get("id") == next_id:
            if "error" in m:
                raise RuntimeError(f"{method}: {m['error']}")
            return m["result"]
        event(m)


def evaluate(expr, wait=False):
    r = call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=wait)
    if "exceptionDetails" in r:
        raise RuntimeError(f"{expr[:80]}: {r['exceptionDetails']}")
    return r["result"].get("value")


def wait_for(expr, what, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if evaluate(expr):
                return
        except RuntimeError:
            pass  # the page is still loading (no document yet)
        time.sleep(0.3)
    status = evaluate("document.getElementById('status').textContent")
    fail(f"{what} within {seconds} s (page status: {status!r})")


def wait_idle(what):
    wait_for("document.documentElement.dataset.mapIdle === 'true'", what)


def redraw_idle(js):
    """Runs `js` (which changes the view), then waits for the map's next idle."""
    evaluate("document.documentElement.dataset.mapIdle = 'false'; (() => { const m = window.citytwin.map; "
             f"{js}; m.once('idle', () => {{ document.documentElement.dataset.mapIdle = 'true'; }}); m.triggerRepaint(); }})()")
    wait_idle("the map did not finish drawing")


def screenshot(name):
    png = base64.b64decode(call("Page.captureScreenshot", format="png")["data"])
    with open(os.path.join(artifacts, name), "wb") as f:
        f.write(png)
    return decode_png(png)


def decode_png(data):
    """8-bit RGB/RGBA non-interlaced PNG (as Chromium writes) → (width, height, rows of RGB tuples)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, f"unsupported PNG: depth {depth} colour {color}"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw, stride = zlib.decompress(idat), w * bpp
    prev, rows, i = bytearray(stride), [], 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def rect(selector):
    return evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect(); "
                    "return [Math.ceil(r.left), Math.ceil(r.top), Math.floor(r.right), Math.floor(r.bottom)]; })()")


def hex_rgb(h):
    h = h.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


def count_colour(image, box, rgb, tolerance=3):
    w, h, rows = image
    x0, y0, x1, y1 = max(box[0], 0), max(box[1], 0), min(box[2], w), min(box[3], h)
    n = 0
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            p = row[x]
            if abs(p[0] - rgb[0]) <= tolerance and abs(p[1] - rgb[1]) <= tolerance and abs(p[2] - rgb[2]) <= tolerance:
                n += 1
    return n


call("Runtime.enable")
call("Log.enable")
call("Network.enable")
call("Page.enable")

# 1. Anonymous.
call("Page.navigate", url=f"{server}/map")
wait_idle("the anonymous map never became idle (tiles not all loaded and drawn)")
screenshot("webmap-public.png")
public_layers = evaluate("[...document.querySelectorAll('#tree input[data-collection]')].map((b) => b.dataset.collection)")
if any(c.startswith("flood_") for c in public_layers):
    fail(f"an anonymous caller's layer tree lists a flood result layer: {public_layers}")
if evaluate("document.getElementById('who').textContent").find("公众") < 0:
    fail("the anonymous caller is not shown as the public")
print(f"webmap_check: anonymous map idle, {len(public_layers)} layers in the tree, no flood result layer")

# 2. Sign in through the form, without a reload.
evaluate("window.__notReloaded = true; document.getElementById('token').value = " + json.dumps(token)
         + "; document.getElementById('signin').requestSubmit();")
wait_for("document.documentElement.dataset.caller && document.documentElement.dataset.caller !== 'anonymous'"
         " && document.documentElement.dataset.styleLoads === '2' && document.documentElement.dataset.mapIdle === 'true'",
         "signing in did not load the department's style")
if not evaluate("window.__notReloaded === true"):
    fail("signing in reloaded the page")
if evaluate("sessionStorage.getItem('citytwin.token')") != token or evaluate("localStorage.getItem('citytwin.token')") is not None:
    fail("the token is not kept in session storage only")
who = evaluate("document.getElementById('who').textContent")
depth = evaluate("[...document.querySelectorAll('#tree input[data-collection]')].map((b) => b.dataset.collection).find((c) => /^flood_.*_depth$/.test(c)) || ''")
if not depth:
    fail("after signing in, no flood depth layer is in the layer tree")
print(f"webmap_check: signed in without reload as {who!r}; {depth} appears")

# 3. The flood in view: depth classes by legend colour, legend, labels.
bbox = json.load(urllib.request.urlopen(urllib.request.Request(f"{server}/collections/{depth}", headers={
    "Accept": "application/json", "Authorization": f"Bearer {token}"})))["extent"]["spatial"]["bbox"][0]
redraw_idle(f"m.fitBounds([[{bbox[0]}, {bbox[1]}], [{bbox[2]}, {bbox[3]}]], {{padding: 10, duration: 0}})")
drawn = evaluate(f"window.citytwin.map.queryRenderedFeatures({{layers: ['{depth}-fill']}}).length")
if not drawn:
    fail(f"{depth} is not drawn after signing in")
legend = evaluate("(() => { const out = []; let title = ''; for (const n of document.getElementById('legend').children) {"
                  " if (n.tagName === 'H3') title = n.textContent; else out.push([title, n.textContent, n.querySelector('.swatch').dataset.color]); }"
                  " return out; })()")
classes = [(label, colour) for title, label, colour in legend if "积水深度" in title and " m" in label]
if len(classes) < 4:
    fail(f"the legend has {len(classes)} flood depth classes: {legend}")
evaluate("document.getElementById('legend-h').scrollIntoView({block: 'start'})")
image = screenshot("webmap.png")
map_box = rect("#map")
legend_box = rect("#legend")
found = []
for label, colour in classes:
    n = count_colour(image, map_box, hex_rgb(colour))
    in_legend = count_colour(image, legend_box, hex_rgb(colour))
    print(f"webmap_check: depth class {label:>12} {colour}: {n} px on the map, {in_legend} px in the legend")
    if in_legend < 20:
        fail(f"the legend does not show the colour of {label} ({colour})")
    if n >= 40:
        found.append(label)
if len(found) < 4:
    fail(f"only {len(found)} flood depth classes found by their legend colours on the map: {found}")
# Labels: the map's pixels change where the text layers are hidden.
labels = evaluate("window.citytwin.map.getStyle().layers.filter((l) => l.type === 'symbol' && l.layout && l.layout.visibility !== 'none').map((l) => l.id)")
placed = evaluate(f"window.citytwin.map.queryRenderedFeatures({{layers: {json.dumps(labels)}}}).length") if labels else 0
if not labels or not placed:
    fail(f"no label is drawn (text layers {labels}, {placed} placed)")
redraw_idle(f"{json.dumps(labels)}.forEach((id) => m.setLayoutProperty(id, 'visibility', 'none'))")
bare = screenshot("webmap-nolabels.png")
redraw_idle(f"{json.dumps(labels)}.forEach((id) => m.setLayoutProperty(id, 'visibility', 'visible'))")
os.remove(os.path.join(artifacts, "webmap-nolabels.png"))
x0, y0, x1, y1 = map_box
changed = sum(1 for y in range(y0, y1) for x in range(x0, x1) if image[2][y][x] != bare[2][y][x])
print(f"webmap_check: {placed} labels placed from {len(labels)} text layers; {changed} map pixels are text")
if changed < 300:
    fail(f"labels change only {changed} pixels of the map")

# 4. Nearest resources from a click on the map.
redraw_idle(f"m.fitBounds([[{bbox[0]}, {bbox[1]}], [{bbox[2]}, {bbox[3]}]], {{padding: 10, duration: 0}})")
evaluate("document.querySelector('input[name=tool][value=nearest]').click(); document.getElementById('nearest-layer').value = 'shelters';")
cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
    call("Input.dispatchMouseEvent", type=kind, x=cx, y=cy, button="left", clickCount=1 if kind != "mouseMoved" else 0)
wait_for("['done', 'failed'].includes(document.documentElement.dataset.analysis)", "the nearest-resources analysis did not finish")
items = evaluate("[...document.querySelectorAll('#analysis-list li.result')].map((li) => li.textContent)")
if evaluate("document.documentElement.dataset.analysis") != "done" or not items:
    fail(f"nearest resources from a click gave no result list: {items}")
evaluate("document.getElementById('analysis').scrollIntoView({block: 'center'})")
redraw_idle("m.triggerRepaint()")
routes = evaluate("window.citytwin.map.queryRenderedFeatures({layers: ['ct-results-route']}).length")
screenshot("webmap-nearest.png")
print(f"webmap_check: a click ran nearest-resources: {len(items)} results listed ({items[0]!r}), {routes} route pieces drawn")
if not routes:
    fail("the nearest-resources routes are not drawn")

# A service area (isochrones) from a click: translucent fills, listed, in the legend.
evaluate("document.documentElement.dataset.analysis = ''; document.querySelector('input[name=tool][value=service]').click()")
for kind in ("mousePressed", "mouseReleased"):
    call("Input.dispatchMouseEvent", type=kind, x=cx, y=cy, button="left", clickCount=1)
wait_for("['done', 'failed'].includes(document.documentElement.dataset.analysis)", "the service-area analysis did not finish")
areas = evaluate("[...document.querySelectorAll('#analysis-list li.result')].map((li) => li.textContent)")
redraw_idle("m.triggerRepaint()")
filled = evaluate("window.citytwin.map.queryRenderedFeatures({layers: ['ct-results-area']}).length")
screenshot("webmap-service.png")
if evaluate("document.documentElement.dataset.analysis") != "done" or len(areas) < 2 or not filled:
    fail(f"a service area from a click was not listed and drawn: {areas}, {filled} areas drawn")
print(f"webmap_check: a click ran service-area: {areas} listed, {filled} area pieces drawn")

# Digits and Latin letters come from the server's glyph ranges (ideographs from the browser's
# font): a label of both is placed and drawn.
evaluate("(() => { const m = window.citytwin.map, c = m.getCenter();"
         " m.addSource('probe', {type: 'geojson', data: {type: 'Point', coordinates: [c.lng, c.lat]}});"
         " m.addLayer({id: 'probe', type: 'symbol', source: 'probe', layout: {'text-field': 'CityTwin 2026 A-F 积水',"
         " 'text-font': ['wqy-microhei'], 'text-size': 16, 'text-allow-overlap': true}}); })()")
redraw_idle("m.triggerRepaint()")
if not evaluate("window.citytwin.map.queryRenderedFeatures({layers: ['probe']}).length"):
    fail("a label of digits and Latin letters was not placed (glyph ranges from /fonts/)")
# A street-level view with the probe: road names, buildings, points (webmap-detail.png).
redraw_idle("m.jumpTo({zoom: 16.5})")
screenshot("webmap-detail.png")
evaluate("(() => { const m = window.citytwin.map; m.removeLayer('probe'); m.removeSource('probe'); })()")
print("webmap_check: digits and Latin letters drawn from the served glyph ranges")

# Language: English on the switch, Chinese again after.
evaluate("document.getElementById('lang').click()")
if evaluate("document.documentElement.lang") != "en" or evaluate("document.getElementById('legend-h').textContent") != "Legend":
    fail("the English switch did not change the page's language")
evaluate("document.getElementById('lang').click()")
if evaluate("document.documentElement.lang") != "zh-CN":
    fail("the page did not switch back to Chinese")
if not evaluate("document.getElementById('signin').hidden && getComputedStyle(document.getElementById('signin')).display === 'none'"):
    fail("the sign-in form is still shown after signing in")
print("webmap_check: English on the switch and back to Chinese; the sign-in form hidden once signed in")

# 5. Console and network.
call("Runtime.evaluate", expression="1")  # drain pending events
outside = [u for u in requests if not (u.startswith(server + "/") or u.startswith("data:") or u.startswith("blob:"))]
if outside:
    fail(f"requests beyond the server: {outside[:5]}")
if errors:
    fail(f"console errors: {errors[:5]}")
print(f"webmap_check: {len(requests)} requests, all to the server; no console errors")

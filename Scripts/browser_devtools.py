"""Headless Chromium over the DevTools protocol, Python stdlib only: the connection, calls and
events, waits on the page's hooks, screenshots decoded to pixels, colour counts and WCAG contrast.
Shared by Scripts/webmap_check.py and Scripts/basemap_check.py, which set `port`, `server`, `token`
and `artifacts` before `connect()`. `fail` names the check that uses it (`name`).
"""
import base64, json, os, re, socket, struct, sys, time, urllib.request, zlib

name = "webmap_check"
port, server, token, artifacts = 0, "", "", ""
sock, buf = None, b""


def fail(why):
    sys.exit(f"{name}: FAIL: {why}")


def connect():
    """Opens the DevTools WebSocket of the page Chromium shows."""
    global sock, buf
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


CONTRAST_JS = r"""(() => {
  // WCAG 2.x contrast of every visible text in the page (computed styles): the text colour over
  // the composited backgrounds of the element and its ancestors (the page is white below them).
  const parse = (c) => { const m = /rgba?\(([^)]+)\)/.exec(c || ''); if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(parseFloat); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, below) => [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3])).concat([1]);
  const lum = (c) => { const l = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
  function backdrop(el) {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e), bg = parse(s.backgroundColor);
      if (bg && bg[3] > 0) { layers.push(bg); if (bg[3] >= 1) break; }
    }
    let c = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) c = over(layers[i], c);
    return c;
  }
  const visible = (el) => {
    if (el.closest('[hidden]')) return false;
    for (let e = el; e; e = e.parentElement) { const s = getComputedStyle(e); if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0) return false; }
    const r = el.getBoundingClientRect(); return r.width > 2 && r.height > 2;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
  const out = [];
  function check(el, text, colour, pseudo) {
    const s = getComputedStyle(el, pseudo), bg = backdrop(el), fg = over(parse(colour) || [0, 0, 0, 1], bg);
    const a = lum(fg), b = lum(bg), ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700, large = size >= 24 || (bold && size >= 18.66);
    out.push({el: name(el), text: text.slice(0, 30), ratio: Math.round(ratio * 100) / 100, need: large ? 3 : 4.5,
              fg: fg.slice(0, 3).map(Math.round), bg: bg.slice(0, 3).map(Math.round), size});
  }
  for (const el of document.body.querySelectorAll('*')) {
    if (['SCRIPT', 'STYLE', 'OPTION', 'CANVAS'].includes(el.tagName) || el.disabled || !visible(el)) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent.trim()).join(' ').trim();
    if (own) check(el, own, getComputedStyle(el).color);
    if (el.tagName === 'SELECT' && el.selectedOptions.length) check(el, el.selectedOptions[0].textContent, getComputedStyle(el).color);
    if (el.tagName === 'INPUT' && !['checkbox', 'radio', 'range', 'hidden'].includes(el.type)) {
      if (el.value) check(el, el.type === 'password' ? '••••' : el.value, getComputedStyle(el).color);
      else if (el.placeholder) check(el, el.placeholder, getComputedStyle(el, '::placeholder').color, '::placeholder');
    }
  }
  return out;
})()"""


def contrast(where):
    """Fails when a visible text's WCAG contrast is below 4.5:1 (3:1 for large text)."""
    pairs = evaluate(CONTRAST_JS)
    low = [p for p in pairs if p["ratio"] < p["need"]]
    worst = min(pairs, key=lambda p: p["ratio"] / p["need"]) if pairs else None
    print(f"webmap_check: contrast ({where}): {len(pairs)} texts measured, lowest {worst['ratio'] if worst else '-'}:1 ({worst['el'] if worst else ''} {worst['text'] if worst else ''!r})")
    if len(pairs) < 20:
        fail(f"contrast ({where}): only {len(pairs)} texts measured")
    if low:
        fail(f"contrast ({where}): {len(low)} texts below WCAG AA: " + "; ".join(f"{p['el']} {p['text']!r} {p['ratio']}:1 < {p['need']} (fg {p['fg']} on {p['bg']})" for p in low[:8]))


def css_rgb(c):
    """An RGB triple from a style colour (#rgb, #rrggbb, rgb()/rgba(); alpha ignored), else None."""
    c = c.strip().lower()
    if c.startswith("#") and len(c) in (4, 7):
        h = c[1:] if len(c) == 7 else "".join(ch * 2 for ch in c[1:])
        return hex_rgb(h)
    if c.startswith("rgb"):
        return tuple(int(float(v)) for v in c[c.index("(") + 1:c.index(")")].split(",")[:3])
    return None


def style_colours(value):
    """Every colour a paint value can take (a constant or the outputs of an expression)."""
    if isinstance(value, str):
        rgb = css_rgb(value)
        return [rgb] if rgb else []
    if isinstance(value, list):
        return [c for v in value[1:] for c in style_colours(v)]
    return []


def wcag_ratio(a, b):
    def lum(rgb):
        ch = [v / 255 for v in rgb]
        ch = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def label_contrast(where):
    """The map's canvas labels (symbol layers with text) against what they are drawn on: the text
    halo (at least 1 px wide, the glyph's own outline) or, without one, the circle of the same
    features under it. Every colour a label can take must reach WCAG AA 4.5:1 (labels of 16 px
    or more 3:1, as large text) against every colour of its background."""
    layers = evaluate("window.citytwin.map.getStyle().layers")
    measured, low = 0, []
    for l in layers:
        if l.get("type") != "symbol" or "text-field" not in (l.get("layout") or {}) or (l.get("layout") or {}).get("visibility") == "none":
            continue
        paint, size = l.get("paint") or {}, (l.get("layout") or {}).get("text-size", 16)
        need = 3.0 if isinstance(size, (int, float)) and size >= 16 else 4.5
        fg = style_colours(paint.get("text-color", "#000000"))
        if (paint.get("text-halo-width") or 0) >= 1:
            bg, on = style_colours(paint.get("text-halo-color", "rgba(0,0,0,0)")), "halo"
        else:
            under = [c for c in layers if c.get("type") == "circle" and c.get("source") == l.get("source")
                     and c.get("source-layer") == l.get("source-layer") and c.get("filter") == l.get("filter")]
            bg, on = [rgb for c in under for rgb in style_colours((c.get("paint") or {}).get("circle-color", ""))], "circle"
        if not fg or not bg:
            low.append(f"{l['id']}: no known colour or background (text {paint.get('text-color')}, {on})")
            continue
        ratio = min(wcag_ratio(a, b) for a in fg for b in bg)
        measured += 1
        if ratio < need:
            low.append(f"{l['id']}: {ratio:.2f}:1 < {need} on its {on}")
    print(f"webmap_check: label contrast ({where}): {measured} text layers measured against halo or symbol")
    if not measured:
        fail(f"label contrast ({where}): no text layer measured")
    if low:
        fail(f"label contrast ({where}): " + "; ".join(low[:8]))



"""Rendered z14 tiles: CityTwin's WMTS PNG tiles against MapServer's, same tiles, same data, same style.

The tile list is every z14 Web Mercator tile over the district for every public collection the
style draws at that scale (one WMTS layer per collection, as CityTwin serves them). Each side
draws each tile once — CityTwin keeps rendered tiles in its cache, so every request is a tile it
has not drawn (uncached) — in chunks of ten that alternate which side goes first, so load on a
shared machine falls on both. CityTwin is timed over HTTP (request to last byte, one connection);
MapServer in-process through mapscript (mapfile loaded once, Benchmarks/render/mapfile.py
translating the same MapLibre style to SQL over the same SpatiaLite store), so MapServer pays no
HTTP. Prints throughput (tiles/s), p50 and p99 per side and the ratio, then how far the two draw
the same: per collection, the share of pixels both leave unpainted or both paint (alpha > 0),
from the tiles each side wrote (kept in WORK_DIR/tiles, compared after the timing).

    python3 render_bench.py BASE_URL STORE.sqlite WORK_DIR [ROUNDS_OF_TEN]
"""
import http.client
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from urllib.parse import urlparse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mapfile  # noqa: E402

FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
Z = 14


def tile_of(lon, lat, z):
    n = 2 ** z
    return int((lon + 180) / 360 * n), int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def main():
    base, store, work = sys.argv[1], sys.argv[2], sys.argv[3]
    u = urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=300)

    def get(path):
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.getheader("Content-Type"), r.read()

    status, _, body = get("/tiles/WebMercatorQuad/style.json")
    assert status == 200, body[:300]
    style_path = os.path.join(work, "style.json")
    with open(style_path, "wb") as f:
        f.write(body)
    map_path = os.path.join(work, "style.map")
    # MapLibre's zoom of a 256-pixel z14 tile is 13 (its tiles are 512 pixels).
    mapfile.main(style_path, store, FONT, Z - 1, map_path)
    style = json.loads(body)
    collections = sorted({l["source-layer"] for l in style["layers"] if l.get("source-layer")
                          and l["type"] in ("fill", "line", "circle", "symbol") and l.get("minzoom", 0) <= Z - 1})
    west = south = math.inf
    east = north = -math.inf
    for c in collections:
        status, _, body = get(f"/collections/{c}")
        box = json.loads(body)["extent"]["spatial"]["bbox"][0]
        west, south, east, north = min(west, box[0]), min(south, box[1]), max(east, box[2]), max(north, box[3])
    x0, y0 = tile_of(west, north, Z)
    x1, y1 = tile_of(east, south, Z)
    tiles = [(c, x, y) for c in collections for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    random.seed(55)
    random.shuffle(tiles)
    limit = int(sys.argv[4]) * 10 if len(sys.argv) > 4 else len(tiles)
    tiles = tiles[:limit]

    tiles_dir = os.path.join(work, "tiles")
    os.makedirs(tiles_dir, exist_ok=True)
    for name in os.listdir(tiles_dir):
        os.remove(os.path.join(tiles_dir, name))
    server = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "mapserver_tiles.py"), map_path, "--write", tiles_dir],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def mapserver(c, z, x, y):
        server.stdin.write(f"{c} {z} {x} {y}\n")
        server.stdin.flush()
        return json.loads(server.stdout.readline())

    def citytwin(c, z, x, y):
        t0 = time.perf_counter()
        status, kind, png = get(f"/wmts/1.0.0/{c}/default/WebMercatorQuad/{z}/{y}/{x}.png")
        seconds = time.perf_counter() - t0
        assert status == 200 and kind == "image/png", (c, z, x, y, status, png[:200])
        with open(os.path.join(tiles_dir, f"citytwin-{c}-{z}-{x}-{y}.png"), "wb") as f:
            f.write(png)
        return {"seconds": seconds, "bytes": len(png)}

    # Warm both sides on z13 tiles (not in the list): connections opened, style and mapfile read.
    for c in collections:
        wx, wy = tile_of((west + east) / 2, (south + north) / 2, Z - 1)
        citytwin(c, Z - 1, wx, wy)
        mapserver(c, Z - 1, wx, wy)

    ours, peer = [], []
    for i in range(0, len(tiles), 10):
        chunk = tiles[i:i + 10]
        sides = [(citytwin, ours), (mapserver, peer)]
        if (i // 10) % 2:
            sides.reverse()
        for draw, out in sides:
            for c, x, y in chunk:
                out.append(draw(c, Z, x, y))
    server.stdin.close()
    server.wait()

    def summary(runs):
        seconds = [r["seconds"] for r in runs]
        return {"tiles": len(runs), "tiles_per_s": len(runs) / sum(seconds), "p50_ms": 1000 * statistics.median(seconds),
                "p99_ms": 1000 * percentile(seconds, 0.99), "kb": sum(r["bytes"] for r in runs) / 1024}

    o, p = summary(ours), summary(peer)
    print(f"z{Z} tiles: {len(tiles)} ({len(collections)} collections × {(x1 - x0 + 1) * (y1 - y0 + 1)} tiles), each drawn once per side, alternating chunks of 10")
    print(f"{'side':34} {'tiles/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'PNG KB':>8}")
    print(f"{'CityTwin WMTS PNG (HTTP, uncached)':34} {o['tiles_per_s']:8.1f} {o['p50_ms']:8.1f} {o['p99_ms']:8.1f} {o['kb']:8.0f}")
    print(f"{'MapServer 8 mapscript (in-process)':34} {p['tiles_per_s']:8.1f} {p['p50_ms']:8.1f} {p['p99_ms']:8.1f} {p['kb']:8.0f}")
    print(f"ratio (CityTwin / MapServer throughput): {o['tiles_per_s'] / p['tiles_per_s']:.2f}x (goal >= 1)")
    agreement = painted_agreement(tiles_dir, tiles)
    print("painted/unpainted pixels agreeing with MapServer's: " + ", ".join(f"{c} {100 * a:.1f} %" for c, a in sorted(agreement.items())))
    print(json.dumps({"citytwin": o, "mapserver": p, "agreement": agreement}))


def painted_agreement(tiles_dir, tiles):
    """Per collection, the share of pixels that both sides paint or both leave transparent."""
    from PIL import Image  # Debian python3-pil, beside python3-mapscript
    same, total = {}, {}
    for c, x, y in tiles:
        a = Image.open(os.path.join(tiles_dir, f"citytwin-{c}-{Z}-{x}-{y}.png")).convert("RGBA").getchannel("A").getdata()
        b = Image.open(os.path.join(tiles_dir, f"mapserver-{c}-{Z}-{x}-{y}.png")).convert("RGBA").getchannel("A").getdata()
        same[c] = same.get(c, 0) + sum(1 for p, q in zip(a, b) if (p > 0) == (q > 0))
        total[c] = total.get(c, 0) + len(a)
    return {c: same[c] / total[c] for c in total}


if __name__ == "__main__":
    main()

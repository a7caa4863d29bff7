"""Rendered tiles: CityTwin's WMTS PNG tiles against MapServer's, same tiles, same data, same style.

The tile list is every z14 and every z15 Web Mercator tile over the district for every public
collection the style draws at that scale (one WMTS layer per collection, as CityTwin serves them).
The list is drawn in ROUNDS rounds. Each round starts a fresh `citytwin serve` (its tile cache is in
memory, so every tile is one it has not drawn: uncached) and a fresh MapServer process (mapscript,
mapfiles loaded once; it keeps no tiles), waits until the server's start-up work is over, warms
both on z13 tiles, then draws each tile once per side in chunks of ten that alternate which side
goes first; the side that opens the round alternates from round to round, so load on a shared
machine falls on both. CityTwin is timed over HTTP (request to last byte, one connection);
MapServer in-process through mapscript (Benchmarks/render/mapfile.py translating the same
MapLibre style to SQL over the same SpatiaLite store), so MapServer pays no HTTP. Prints each
round's throughput per side and ratio (with the machine's load), the median ratio and its spread,
p50/p99 over all rounds, then how far the two draw the same: per collection and zoom, the share of
pixels both leave unpainted or both paint (alpha > 0), from the tiles each side wrote in the last
round (kept in WORK_DIR/tiles).

    python3 render_bench.py CITYTWIN_BIN STORE.sqlite WORK_DIR PORT [ROUNDS]

RENDER_BENCH_SETTLE=0 times the tiles as soon as /health answers; RENDER_BENCH_PERF=<dir> records
each round's server with `perf record -F 2000 -g` while its tiles are drawn (perf-round<N>.data).
"""
import http.client
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mapfile  # noqa: E402

FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
ZOOMS = (14, 15)


def tile_of(lon, lat, z):
    n = 2 ** z
    return int((lon + 180) / 360 * n), int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * n)


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


class CityTwin:
    """A fresh `citytwin serve` on the store, and one HTTP connection to it."""

    def __init__(self, binary, store, work, port):
        self.port = port
        self.log = open(os.path.join(work, "serve.log"), "ab")
        self.process = subprocess.Popen([binary, "serve", "--store", store, "--port", str(port), "--address-rate", "0",
                                         "--token-rate", "0", "--log-level", "warning"], stdout=self.log, stderr=self.log)
        for _ in range(300):
            try:
                self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
                if self.get("/health")[0] == 200:
                    break
            except OSError:
                pass
            if self.process.poll() is not None:
                raise SystemExit(f"citytwin serve exited ({self.process.returncode}): see {self.log.name}")
            time.sleep(0.2)
        else:
            raise SystemExit(f"citytwin serve did not answer /health on port {port} within a minute")

    def settle(self):
        """Waits until the server's start-up work (the road graph's contraction hierarchy, the change
        feeds' first reads) is over: under 5 % of a core for a second, at most two minutes."""
        def ticks():
            with open(f"/proc/{self.process.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime + stime
        for _ in range(120):
            before = ticks()
            time.sleep(1)
            if ticks() - before <= 5:
                return

    def get(self, path):
        self.connection.request("GET", path)
        r = self.connection.getresponse()
        return r.status, r.getheader("Content-Type"), r.read()

    def draw(self, c, z, x, y, tiles_dir):
        t0 = time.perf_counter()
        status, kind, png = self.get(f"/wmts/1.0.0/{c}/default/WebMercatorQuad/{z}/{y}/{x}.png")
        seconds = time.perf_counter() - t0
        assert status == 200 and kind == "image/png", (c, z, x, y, status, png[:200])
        with open(os.path.join(tiles_dir, f"citytwin-{c}-{z}-{x}-{y}.png"), "wb") as f:
            f.write(png)
        return {"seconds": seconds, "bytes": len(png), "z": z}

    def close(self):
        self.connection.close()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


class MapServer:
    """A fresh mapscript process (Benchmarks/render/mapserver_tiles.py) with one mapfile per zoom."""

    def __init__(self, maps, tiles_dir):
        args = [f"{z}={path}" for z, path in sorted(maps.items())]
        self.process = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "mapserver_tiles.py"), *args, "--write", tiles_dir],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def draw(self, c, z, x, y, _tiles_dir):
        self.process.stdin.write(f"{c} {z} {x} {y}\n")
        self.process.stdin.flush()
        return dict(json.loads(self.process.stdout.readline()), z=z)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def summary(runs):
    seconds = [r["seconds"] for r in runs]
    return {"tiles": len(runs), "tiles_per_s": len(runs) / sum(seconds), "p50_ms": 1000 * statistics.median(seconds),
            "p99_ms": 1000 * percentile(seconds, 0.99), "kb": sum(r["bytes"] for r in runs) / 1024}


def main():
    binary, store, work, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 7
    if rounds < 1:
        raise SystemExit(f"ROUNDS must be at least 1, not {rounds}")
    settle = os.environ.get("RENDER_BENCH_SETTLE", "1") != "0"
    perf_dir = os.environ.get("RENDER_BENCH_PERF")
    tiles_dir = os.path.join(work, "tiles")
    os.makedirs(tiles_dir, exist_ok=True)

    # The style, the collections and the district's extent, from a first server.
    first = CityTwin(binary, store, work, port)
    status, _, body = first.get("/tiles/WebMercatorQuad/style.json")
    assert status == 200, body[:300]
    style_path = os.path.join(work, "style.json")
    with open(style_path, "wb") as f:
        f.write(body)
    style = json.loads(body)
    maps, tiles = {}, []
    west = south = math.inf
    east = north = -math.inf
    drawn = {}
    for z in ZOOMS:
        # MapLibre's zoom of a 256-pixel tile at z is z - 1 (its tiles are 512 pixels).
        maps[z] = os.path.join(work, f"style-z{z}.map")
        mapfile.main(style_path, store, FONT, z - 1, maps[z])
        drawn[z] = sorted({l["source-layer"] for l in style["layers"] if l.get("source-layer")
                           and l["type"] in ("fill", "line", "circle", "symbol")
                           and l.get("minzoom", 0) <= z - 1 < l.get("maxzoom", 99)})
    for c in sorted(set().union(*drawn.values())):
        status, _, body = first.get(f"/collections/{c}")
        box = json.loads(body)["extent"]["spatial"]["bbox"][0]
        west, south, east, north = min(west, box[0]), min(south, box[1]), max(east, box[2]), max(north, box[3])
    first.close()
    counts = {}
    for z in ZOOMS:
        x0, y0 = tile_of(west, north, z)
        x1, y1 = tile_of(east, south, z)
        counts[z] = (len(drawn[z]), (x1 - x0 + 1) * (y1 - y0 + 1))
        tiles += [(c, z, x, y) for c in drawn[z] for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    random.seed(55)
    random.shuffle(tiles)
    warm = [(c, 13, *tile_of((west + east) / 2, (south + north) / 2, 13)) for c in drawn[ZOOMS[0]]]

    print(f"tiles per round: {len(tiles)} ("
          + ", ".join(f"z{z}: {n} collections × {k} tiles" for z, (n, k) in counts.items())
          + "), each drawn once per side by a fresh server; chunks of 10 alternate sides")
    print(f"{'round':>5} {'first':>9} {'load':>5} {'CityTwin t/s':>12} {'MapServer t/s':>13} {'ratio':>6}")
    results = []
    for r in range(rounds):
        for name in os.listdir(tiles_dir):
            os.remove(os.path.join(tiles_dir, name))
        ours = CityTwin(binary, store, work, port)
        if settle:
            ours.settle()
        peer = MapServer(maps, tiles_dir)
        for c, z, x, y in warm:  # connections opened, style and mapfiles read
            ours.draw(c, z, x, y, tiles_dir)
            peer.draw(c, z, x, y, tiles_dir)
        perf = None
        if perf_dir:
            perf = subprocess.Popen(["perf", "record", "-F", "2000", "-g", "-o", os.path.join(perf_dir, f"perf-round{r + 1}.data"),
                                     "-p", str(ours.process.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1)
        load = load_average()
        runs = {"citytwin": [], "mapserver": []}
        sides = [("citytwin", ours), ("mapserver", peer)]
        if r % 2:
            sides.reverse()
        for i in range(0, len(tiles), 10):
            order = sides if (i // 10) % 2 == 0 else sides[::-1]
            for name, side in order:
                for c, z, x, y in tiles[i:i + 10]:
                    runs[name].append(side.draw(c, z, x, y, tiles_dir))
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        load = max(load, load_average())
        peer.close()
        ours.close()
        o, p = summary(runs["citytwin"]), summary(runs["mapserver"])
        ratio = o["tiles_per_s"] / p["tiles_per_s"]
        results.append({"round": r + 1, "first": sides[0][0], "load": load, "citytwin": o, "mapserver": p, "ratio": ratio,
                         "by_zoom": {z: summary([t for t in runs["citytwin"] if t["z"] == z])["tiles_per_s"]
                                     / summary([t for t in runs["mapserver"] if t["z"] == z])["tiles_per_s"] for z in ZOOMS},
                         "runs": runs})
        print(f"{r + 1:5} {sides[0][0]:>9} {load:5.2f} {o['tiles_per_s']:12.1f} {p['tiles_per_s']:13.1f} {ratio:5.2f}x", flush=True)

    ratios = [x["ratio"] for x in results]
    o = summary([t for x in results for t in x["runs"]["citytwin"]])
    p = summary([t for x in results for t in x["runs"]["mapserver"]])
    print(f"ratio (CityTwin / MapServer throughput) over {rounds} rounds: median {statistics.median(ratios):.2f}x, "
          f"min {min(ratios):.2f}x, max {max(ratios):.2f}x (goal: median >= 1, no round below 1)")
    print("median ratio by zoom: " + ", ".join(f"z{z} {statistics.median(x['by_zoom'][z] for x in results):.2f}x" for z in ZOOMS))
    print(f"{'all rounds':34} {'tiles/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'PNG KB/round':>13}")
    print(f"{'CityTwin WMTS PNG (HTTP, uncached)':34} {o['tiles_per_s']:8.1f} {o['p50_ms']:8.2f} {o['p99_ms']:8.2f} {o['kb'] / rounds:13.0f}")
    print(f"{'MapServer 8 mapscript (in-process)':34} {p['tiles_per_s']:8.1f} {p['p50_ms']:8.2f} {p['p99_ms']:8.2f} {p['kb'] / rounds:13.0f}")
    agreement = painted_agreement(tiles_dir, tiles)
    print("painted/unpainted pixels agreeing with MapServer's (z14, z15): "
          + ", ".join(f"{c} " + "/".join(f"{100 * a[z]:.1f}" if z in a else "-" for z in ZOOMS) + " %" for c, a in sorted(agreement.items())))
    for x in results:
        del x["runs"]
    print(json.dumps({"rounds": results, "median_ratio": statistics.median(ratios), "min_ratio": min(ratios), "max_ratio": max(ratios),
                      "citytwin": o, "mapserver": p, "agreement": agreement}))


def painted_agreement(tiles_dir, tiles):
    """Per collection and zoom, the share of pixels that both sides paint or both leave transparent."""
    from PIL import Image, ImageChops  # Debian python3-pil, beside python3-mapscript

    def painted(path):
        return Image.open(path).convert("RGBA").getchannel("A").point(lambda v: 255 if v > 0 else 0)
    same, total = {}, {}
    for c, z, x, y in tiles:
        a = painted(os.path.join(tiles_dir, f"citytwin-{c}-{z}-{x}-{y}.png"))
        b = painted(os.path.join(tiles_dir, f"mapserver-{c}-{z}-{x}-{y}.png"))
        key = (c, z)
        same[key] = same.get(key, 0) + ImageChops.difference(a, b).histogram()[0]
        total[key] = total.get(key, 0) + a.width * a.height
    out = {}
    for (c, z), n in total.items():
        out.setdefault(c, {})[z] = same[(c, z)] / n
    return out


if __name__ == "__main__":
    main()

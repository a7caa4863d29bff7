#!/usr/bin/env python3
"""`Benchmarks/api/run.sh`: CityTwin's OGC API against its peers, in one invocation, on the same data.

    api_bench.py prepare DIR BIN PGBASE   # sample district + 100,000 synthetic polygons into SpatiaLite and PostGIS
    api_bench.py tiles   DIR BIN PGBASE   # dynamic z14 MVT: citytwin serve vs PostGIS ST_AsMVT per tile
    api_bench.py pages   DIR BIN PGBASE   # 1,000-item pages through 100,000 features: citytwin serve vs pygeoapi
    api_bench.py wrk     DIR BIN PGBASE   # cached tiles under wrk: citytwin serve vs nginx on the same tile files

BIN is the release citytwin binary; PGBASE a postgresql://user:pass@host:port URL without a database
(the benchmark uses its own database citytwin_api). The synthetic layer is `bench_parcels`
(Benchmarks/api/layers/bench_parcels.json). Environment: BENCH_ROUNDS (2) alternating rounds per
measurement, each side keeping its best; API_BENCH_BACKENDS (postgis,spatialite): the stores
`citytwin serve` is measured on (wrk uses the first); API_BENCH_CLIENTS (1,2): concurrent tile clients; WRK_SECONDS (15), WRK_THREADS (2), WRK_CONNECTIONS (64).
Ratios are peer seconds / CityTwin seconds (> 1: CityTwin is faster).
"""
import http.client
import json
import math
import os
import pwd
import queue
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
N_PARCELS = 100_000
LAYER = "bench_parcels"
DB = "citytwin_api"
ZOOM = 14
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
BACKENDS = [b for b in os.environ.get("API_BENCH_BACKENDS", "postgis,spatialite").split(",") if b]
CLIENTS = [int(c) for c in os.environ.get("API_BENCH_CLIENTS", "1,2").split(",") if c]
SECRET = "api-bench-secret-0123456789abcdef0123"
# The synthetic layer covers the sample district (邾城, 114.80°E 30.84°N, 5 km × 5 km) and around it.
WEST, SOUTH, EAST, NORTH = 114.70, 30.76, 114.90, 30.92
USES = ["住宅", "商业", "办公", "公共服务", "工业"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# PostgreSQL and the store

def pg_url(base, db=DB):
    return f"{base.rstrip('/')}/{db}"


def pg_parts(base):
    u = urllib.parse.urlparse(base)
    return dict(host=u.hostname, port=str(u.port or 5432), user=u.username or "", password=u.password or "")


def psql(base, db, sql):
    p = pg_parts(base)
    env = dict(os.environ, PGPASSWORD=p["password"], PGOPTIONS="-c client_min_messages=warning")
    r = subprocess.run(["psql", "-h", p["host"], "-p", p["port"], "-U", p["user"], "-d", db, "-v", "ON_ERROR_STOP=1",
                        "-qAt", "-c", sql], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"psql failed on {db}: {sql}\n{r.stderr}")
    return r.stdout.strip()


def pg_connect(base):
    import psycopg2
    p = pg_parts(base)
    return psycopg2.connect(host=p["host"], port=p["port"], user=p["user"], password=p["password"], dbname=DB)


def sqlite_scalar(path, sql):
    r = subprocess.run(["sqlite3", str(path), sql], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"failed ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stdout[-1500:]}\n{r.stderr[-2000:]}")
    return r.stdout


def stores(d: Path, base: str):
    """backend name -> --store argument."""
    return {"spatialite": str(d / "api.sqlite"), "postgis": pg_url(base)}


def parcels_file(d: Path) -> Path:
    return d / f"bench_parcels_{N_PARCELS}.geojson"


def make_parcels(d: Path):
    out = parcels_file(d)
    if out.exists():
        return out
    rnd = random.Random(4490)
    tmp = out.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        for i in range(N_PARCELS):
            # A parcel of 4, 8 or 12 vertices: a rotated rectangle with its corners cut, 10-60 m a side.
            cx, cy = rnd.uniform(WEST, EAST), rnd.uniform(SOUTH, NORTH)
            w, h = rnd.uniform(10, 60), rnd.uniform(10, 40)
            a = rnd.uniform(0, math.pi)
            k = rnd.choice([4, 8, 12])
            ring = []
            for j in range(k):
                t = 2 * math.pi * j / k + math.pi / k
                x = w / 2 * math.copysign(min(1, abs(math.cos(t)) * 1.4), math.cos(t))
                y = h / 2 * math.copysign(min(1, abs(math.sin(t)) * 1.4), math.sin(t))
                ex, ey = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
                ring.append([round(cx + ex / 95_700, 7), round(cy + ey / 110_900, 7)])
            ring.append(ring[0])
            floors = rnd.randint(1, 33)
            props = {"name": f"地块{i // 100}-{i % 100 + 1}", "use": rnd.choice(USES), "floors": floors,
                     "height_m": round(floors * 3.0 + rnd.uniform(0, 2), 1), "area_m2": round(w * h * 0.9, 1)}
            f.write(json.dumps({"type": "Feature", "properties": props,
                                "geometry": {"type": "Polygon", "coordinates": [ring]}},
                               ensure_ascii=False, separators=(",", ":")))
            f.write(",\n" if i + 1 < N_PARCELS else "\n")
        f.write("]}\n")
    tmp.rename(out)
    return out


def prepare(d: Path, binary: str, base: str):
    """The sample district and the synthetic layer in both stores (skipped when already there),
    plus `peer.bench_parcels`, the plain table a pygeoapi deployment would publish."""
    d.mkdir(parents=True, exist_ok=True)
    src = make_parcels(d)
    if not psql(base, "citytwin", f"SELECT 1 FROM pg_database WHERE datname = '{DB}'"):
        psql(base, "citytwin", f"CREATE DATABASE {DB}")
    psql(base, DB, "CREATE EXTENSION IF NOT EXISTS postgis")
    layers = str(HERE / "layers")
    sqlite_path = d / "api.sqlite"

    def count_sqlite():
        return int(sqlite_scalar(sqlite_path, f"SELECT count(*) FROM f_{LAYER} WHERE valid_to IS NULL") or 0) \
            if sqlite_path.exists() else 0

    def count_pg():
        if not psql(base, DB, f"SELECT 1 FROM pg_tables WHERE schemaname='citytwin' AND tablename='f_{LAYER}'"):
            return 0
        return int(psql(base, DB, f"SELECT count(*) FROM citytwin.f_{LAYER} WHERE valid_to IS NULL"))

    for name, target, count, reset in [
            ("SpatiaLite", str(sqlite_path), count_sqlite,
             lambda: [Path(str(sqlite_path) + s).unlink(missing_ok=True) for s in ["", "-wal", "-shm"]]),
            ("PostGIS", pg_url(base), count_pg, lambda: psql(base, DB, "DROP SCHEMA IF EXISTS citytwin CASCADE"))]:
        if count() == N_PARCELS:
            continue
        reset()
        t = time.perf_counter()
        run([binary, "district", "build", "--store", target])
        run([binary, "import", str(src), "--layer", LAYER, "--store", target, "--layers", layers])
        if count() != N_PARCELS:
            raise SystemExit(f"{name}: {count()} features in {LAYER}, expected {N_PARCELS}")
        log(f"  built the district and imported {N_PARCELS:,} parcels into {name} in {time.perf_counter() - t:.1f} s")
        if name == "PostGIS":
            psql(base, DB, "ANALYZE")
    if psql(base, DB, "SELECT count(*) FROM pg_tables WHERE schemaname='peer' AND tablename='bench_parcels'") != "1":
        psql(base, DB, f"""
            CREATE SCHEMA IF NOT EXISTS peer;
            CREATE TABLE peer.bench_parcels AS
              SELECT fid, props->>'name' AS name, props->>'use' AS use, (props->>'floors')::integer AS floors,
                     (props->>'height_m')::float8 AS height_m, (props->>'area_m2')::float8 AS area_m2, geom
              FROM citytwin.f_{LAYER} WHERE valid_to IS NULL;
            ALTER TABLE peer.bench_parcels ADD PRIMARY KEY (fid);
            CREATE INDEX bench_parcels_geom ON peer.bench_parcels USING gist (geom);
            ANALYZE peer.bench_parcels;""")


# ---------------------------------------------------------------------------------------------
# citytwin serve

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_answering(proc, port, path, name, stop, log=None):
    """Polls http://127.0.0.1:PORT/PATH until it answers 200 (up to about a minute); exits if the
    server process ends first (with the tail of its log) or never answers."""
    for _ in range(600):
        if proc.poll() is not None:
            tail = f": {Path(log).read_text()[-2000:]}" if log else ""
            raise SystemExit(f"{name} exited ({proc.returncode}){tail}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", path)
            if c.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.1)
    stop()
    raise SystemExit(f"{name} did not answer {path}")


class Server:
    """A fresh `citytwin serve` on a free loopback port (cold tile cache), with an admin token."""

    def __init__(self, binary, store):
        self.port = free_port()
        env = dict(os.environ, CITYTWIN_TOKEN_SECRET=SECRET)
        self.token = run([binary, "token", "create", "--role", "admin", "--store", store], env=env).strip()
        # --log-level warning: no per-request log line, as the peers run (nginx access_log off,
        # gunicorn without an access log).
        self.proc = subprocess.Popen([binary, "serve", "--store", store, "--port", str(self.port), "--log-level", "warning", "--address-rate", "0"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_answering(self.proc, self.port, "/health", "citytwin serve", self.stop)

    def headers(self):
        return {"Authorization": f"Bearer {self.token}"}

    def get_json(self, path):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        c.request("GET", path, headers=self.headers())
        r = c.getresponse()
        body = r.read()
        if r.status != 200:
            raise SystemExit(f"GET {path}: HTTP {r.status} {body[:300]!r}")
        return json.loads(body)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.stop()


# ---------------------------------------------------------------------------------------------
# Tiles

def tile_range(w, s, e, n, z):
    """The WebMercatorQuad tiles (x, y) of level z covering a lon/lat box."""
    def tx(lon):
        return int((lon + 180) / 360 * 2 ** z)

    def ty(lat):
        r = math.radians(lat)
        return int((1 - math.log(math.tan(r) + 1 / math.cos(r)) / math.pi) / 2 * 2 ** z)
    return [(x, y) for y in range(ty(n), ty(s) + 1) for x in range(tx(w), tx(e) + 1)]


def tiled_layers(base):
    """(layer, [(x, y)…]) for every layer with geometry and current rows, over its extent."""
    out = []
    rows = psql(base, DB, "SELECT c.table_name FROM information_schema.columns c WHERE c.table_schema='citytwin' "
                          "AND c.column_name='geom' ORDER BY 1").split()
    for table in rows:
        ext = psql(base, DB, f"SELECT ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e) FROM "
                             f"(SELECT ST_Extent(geom) AS e FROM citytwin.{table} WHERE valid_to IS NULL) q")
        if not ext or ext == "|||":
            continue
        w, s, e, n = map(float, ext.split("|"))
        out.append((table[2:], tile_range(w, s, e, n, ZOOM)))
    return out


def tile_jobs(layers):
    return [(layer, ZOOM, x, y) for layer, tiles in layers for x, y in tiles]


TIMES = {}   # (side, layer, z, x, y) -> seconds of the last fetch of that tile


def fetch_ours(server, jobs, clients, anonymous=False):
    """Fetches every tile once over HTTP with `clients` keep-alive connections; returns
    (seconds, {job: bytes-or-None})."""
    q = queue.Queue()
    for j in jobs:
        q.put(j)
    results, errors = {}, []

    def worker():
        c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        h = {} if anonymous else server.headers()
        while True:
            try:
                layer, z, x, y = q.get_nowait()
            except queue.Empty:
                return
            t0 = time.perf_counter()
            c.request("GET", f"/collections/{layer}/tiles/WebMercatorQuad/{z}/{y}/{x}", headers=h)
            r = c.getresponse()
            body = r.read()
            TIMES[("ours", layer, z, x, y)] = time.perf_counter() - t0
            if r.status == 200:
                results[(layer, z, x, y)] = body
            elif r.status == 204:
                results[(layer, z, x, y)] = None
            else:
                errors.append(f"{layer} {z}/{y}/{x}: HTTP {r.status} {body[:200]!r}")
                return
    t = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    s = time.perf_counter() - t
    if errors:
        raise SystemExit("; ".join(errors[:3]))
    return s, results


PEER_SQL = """
SELECT ST_AsMVT(t, %(layer)s, 4096, 'geom') FROM (
  SELECT fid, props, ST_AsMVTGeom(ST_Transform(geom, 3857), ST_TileEnvelope(%(z)s, %(x)s, %(y)s), 4096, 64, true) AS geom
  FROM citytwin.{table}
  WHERE valid_to IS NULL AND geom && ST_Transform(ST_TileEnvelope(%(z)s, %(x)s, %(y)s, margin => 64.0 / 4096), 4490)
) t WHERE geom IS NOT NULL"""


def fetch_peer(base, jobs, clients):
    """The same tiles from PostGIS, one canonical ST_AsMVT query per tile, `clients` connections."""
    q = queue.Queue()
    for j in jobs:
        q.put(j)
    results = {}
    conns = [pg_connect(base) for _ in range(clients)]

    def worker(conn):
        cur = conn.cursor()
        while True:
            try:
                layer, z, x, y = q.get_nowait()
            except queue.Empty:
                return
            t0 = time.perf_counter()
            cur.execute(PEER_SQL.format(table=f"f_{layer}"), dict(layer=layer, z=z, x=x, y=y))
            b = bytes(cur.fetchone()[0])
            TIMES[("peer", layer, z, x, y)] = time.perf_counter() - t0
            results[(layer, z, x, y)] = b or None
    t = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(c,)) for c in conns]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    s = time.perf_counter() - t
    for c in conns:
        c.close()
    return s, results


def decode_counts(tile_bytes):
    import mapbox_vector_tile
    if not tile_bytes:
        return 0
    return sum(len(l["features"]) for l in mapbox_vector_tile.decode(tile_bytes).values())


def bench_tiles(d: Path, binary: str, base: str):
    layers = tiled_layers(base)
    jobs = tile_jobs(layers)
    parcels = [j for j in jobs if j[0] == LAYER]
    sets = [("all layers", jobs), (LAYER, parcels)]
    log(f"  {len(jobs)} z{ZOOM} tiles over {len(layers)} layers ({len(parcels)} of them {LAYER})")
    best = {}

    def keep(key, s):
        best[key] = min(best.get(key, math.inf), s)
    ours_tiles, peer_tiles, per_layer = {}, {}, {}
    for r in range(ROUNDS):
        for clients in CLIENTS:
            for backend in BACKENDS:
                store = stores(d, base)[backend]
                with Server(binary, store) as server:     # fresh server: cold cache
                    s, res = fetch_ours(server, jobs, clients)
                    keep(("ours", backend, clients, "cold"), s)
                    if clients == 1:
                        per_layer[backend] = {k[1:]: v for k, v in TIMES.items() if k[0] == "ours"}
                    ours_tiles[backend] = res
                    s, _ = fetch_ours(server, jobs, clients)
                    keep(("ours", backend, clients, "warm"), s)
                # The synthetic layer alone, on a fresh server too.
                with Server(binary, store) as server:
                    s, _ = fetch_ours(server, parcels, clients)
                    keep(("ours", backend, clients, "parcels"), s)
            s, peer_tiles = fetch_peer(base, jobs, clients)
            keep(("peer", clients, "all"), s)
            if clients == 1:
                per_layer["peer"] = {k[1:]: v for k, v in TIMES.items() if k[0] == "peer"}
            s, _ = fetch_peer(base, parcels, clients)
            keep(("peer", clients, "parcels"), s)
        log(f"  round {r + 1}/{ROUNDS} done")
    # What each side put in the tiles (outside the timing).
    def stats(res):
        non_empty = [b for b in res.values() if b]
        return len(non_empty), sum(len(b) for b in non_empty)
    ne_peer, bytes_peer = stats(peer_tiles)
    sample = sorted((j for j in parcels if peer_tiles.get(j)), key=lambda j: -len(peer_tiles[j]))[:5]
    feat_peer = sum(decode_counts(peer_tiles[j]) for j in sample)

    load = os.getloadavg()
    print(f"\nDynamic z{ZOOM} vector tiles (MVT, WebMercatorQuad, extent 4096, buffer 64): {len(jobs)} tiles of "
          f"{len(layers)} layers (sample district + {N_PARCELS:,} synthetic polygons `{LAYER}`, {len(parcels)} tiles), "
          f"each tile once; best of {ROUNDS} alternating rounds; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("  CityTwin: fresh `citytwin serve` per cold pass (empty tile cache), GET /collections/{id}/tiles/WebMercatorQuad/"
          "{z}/{y}/{x} over HTTP/1.1 keep-alive, no gzip, admin token; warm = the same tiles again (cache hits)")
    print("  PostGIS: psycopg2, one `ST_AsMVT(… ST_AsMVTGeom(ST_Transform(geom, 3857), ST_TileEnvelope(z,x,y), 4096, 64, true))` "
          "per tile on the same citytwin.f_<layer> tables (current rows, GiST && on the tile box in EPSG:4490), no HTTP")
    print(f"  peer: {ne_peer} non-empty tiles, {bytes_peer / 1e6:.1f} MB; 5 largest {LAYER} tiles hold {feat_peer} features")
    for backend in BACKENDS:
        ne, by = stats(ours_tiles[backend])
        feat = sum(decode_counts(ours_tiles[backend].get(j)) for j in sample)
        print(f"  CityTwin on {backend}: {ne} non-empty tiles, {by / 1e6:.1f} MB; the same 5 tiles hold {feat} features")
    print(f"{'tiles':16} {'clients':>7} {'side':24} {'seconds':>8} {'tiles/s':>8} {'ratio':>7}")
    for label, sel, key_ours, key_peer in [("all layers", jobs, "cold", "all"), (LAYER, parcels, "parcels", "parcels")]:
        for clients in CLIENTS:
            p = best[("peer", clients, key_peer)]
            print(f"{label:16} {clients:>7} {'PostGIS ST_AsMVT':24} {p:>8.2f} {len(sel) / p:>8.1f}")
            for backend in BACKENDS:
                o = best[("ours", backend, clients, key_ours)]
                print(f"{label:16} {clients:>7} {'CityTwin/' + backend + ' cold':24} {o:>8.2f} {len(sel) / o:>8.1f} {p / o:>6.2f}x")
    if 1 in CLIENTS:
        sums = {side: {} for side in per_layer}
        for side, times in per_layer.items():
            for (layer, *_), v in times.items():
                sums[side][layer] = sums[side].get(layer, 0) + v
        top = sorted(sums[BACKENDS[0]], key=lambda l: -sums[BACKENDS[0]][l])[:8]
        print("  where the time goes (last 1-client cold pass, seconds per layer, request to last byte): "
              + "; ".join(f"{l} " + "/".join(f"{sums[k][l]:.2f}" for k in [*BACKENDS, 'peer']) for l in top)
              + f"  ({'/'.join([*BACKENDS, 'PostGIS'])})")
    for backend in BACKENDS:
        for clients in CLIENTS:
            w = best[("ours", backend, clients, "warm")]
            print(f"  warm pass, CityTwin/{backend}, {clients} client(s): {w:.2f} s, {len(jobs) / w:.0f} tiles/s "
                  f"({w / len(jobs) * 1000:.2f} ms per tile: an upper bound on what HTTP adds to each cold tile)")


# ---------------------------------------------------------------------------------------------
# Pages

PYGEOAPI_CONFIG = """
server:
  bind: {{host: 127.0.0.1, port: {port}}}
  url: http://127.0.0.1:{port}
  mimetype: application/json; charset=UTF-8
  encoding: utf-8
  language: en-US
  cors: false
  pretty_print: false
  limits: {{default_items: 100, max_items: 10000}}
  map: {{url: 'https://tile.openstreetmap.org/{{z}}/{{x}}/{{y}}.png', attribution: OSM}}
logging: {{level: ERROR}}
metadata:
  identification: {{title: CityTwin benchmark peer, description: pygeoapi on the same data, keywords: [benchmark],
                    keywords_type: theme, terms_of_service: none, url: 'http://127.0.0.1'}}
  license: {{name: CC-BY 4.0, url: 'https://creativecommons.org/licenses/by/4.0/'}}
  provider: {{name: CityTwin, url: 'http://127.0.0.1'}}
  contact: {{name: CityTwin, email: bench@example.invalid}}
resources:
  {layer}:
    type: collection
    title: Benchmark parcels
    description: {n} synthetic polygons
    keywords: [parcels]
    extents:
      spatial: {{bbox: [{w}, {s}, {e}, {n_}], crs: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84'}}
    providers:
      - type: feature
        name: PostgreSQL
        data: {{host: {host}, port: {pgport}, dbname: {db}, user: {user}, password: {password}, search_path: [peer, public]}}
        id_field: fid
        table: bench_parcels
        geom_field: geom
"""


class Pygeoapi:
    """pygeoapi's Flask app under gunicorn (2 sync workers) with the PostgreSQL provider on
    peer.bench_parcels."""

    def __init__(self, base):
        self.tmp = Path(tempfile.mkdtemp(prefix="citytwin-pygeoapi-"))
        self.port = free_port()
        p = pg_parts(base)
        cfg = self.tmp / "pygeoapi-config.yml"
        cfg.write_text(PYGEOAPI_CONFIG.format(port=self.port, layer=LAYER, n=N_PARCELS, w=WEST, s=SOUTH, e=EAST, n_=NORTH,
                                              host=p["host"], pgport=p["port"], db=DB, user=p["user"], password=p["password"]))
        venv = Path(sys.executable).parent
        env = dict(os.environ, PYGEOAPI_CONFIG=str(cfg), PYGEOAPI_OPENAPI=str(self.tmp / "openapi.yml"))
        run([str(venv / "pygeoapi"), "openapi", "generate", str(cfg), "--output-file", str(self.tmp / "openapi.yml")], env=env)
        self.proc = subprocess.Popen([str(venv / "gunicorn"), "-w", "2", "-b", f"127.0.0.1:{self.port}", "--timeout", "600",
                                      "pygeoapi.flask_app:APP"], env=env, cwd=self.tmp,
                                     stdout=subprocess.DEVNULL, stderr=open(self.tmp / "gunicorn.log", "w"))
        wait_until_answering(self.proc, self.port, "/collections", "pygeoapi (gunicorn)", self.stop,
                             log=self.tmp / "gunicorn.log")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.stop()


def page_through(port, first, headers):
    """Follows `next` links from `first` to the end over one keep-alive connection; returns
    (seconds, pages, features, distinct ids, seconds from request to last byte summed over the
    pages: the wall time without this client's JSON parsing)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    path, pages, ids, n, served = first, 0, set(), 0, 0.0
    t = time.perf_counter()
    while path:
        t0 = time.perf_counter()
        c.request("GET", path, headers=headers)
        r = c.getresponse()
        body = r.read()
        served += time.perf_counter() - t0
        if r.status != 200:
            raise SystemExit(f"GET {path}: HTTP {r.status} {body[:300]!r}")
        doc = json.loads(body)
        pages += 1
        n += len(doc["features"])
        ids.update(str(f.get("id")) for f in doc["features"])
        nxt = [l["href"] for l in doc.get("links", []) if l.get("rel") == "next"]
        path = None
        if nxt and doc["features"]:
            u = urllib.parse.urlparse(nxt[0])
            path = u.path + ("?" + u.query if u.query else "")
    return time.perf_counter() - t, pages, n, len(ids), served


def bench_pages(d: Path, binary: str, base: str):
    first = f"/collections/{LAYER}/items?limit=1000"
    accept = {"Accept": "application/geo+json"}
    best, shape, served_best = {}, {}, {}
    with Pygeoapi(base) as peer:
        for r in range(ROUNDS):
            for backend in BACKENDS:
                with Server(binary, stores(d, base)[backend]) as server:
                    page_through(server.port, f"/collections/{LAYER}/items?limit=10", accept)   # warm-up, untimed
                    s, pages, n, ids, served = page_through(server.port, first, accept)
                    best[backend] = min(best.get(backend, math.inf), s)
                    served_best[backend] = min(served_best.get(backend, math.inf), served)
                    shape[backend] = (pages, n, ids)
            s, pages, n, ids, served = page_through(peer.port, first + "&f=json", accept)
            best["pygeoapi"] = min(best.get("pygeoapi", math.inf), s)
            served_best["pygeoapi"] = min(served_best.get("pygeoapi", math.inf), served)
            shape["pygeoapi"] = (pages, n, ids)
            log(f"  round {r + 1}/{ROUNDS}: " + ", ".join(f"{k} {v:.2f}s" for k, v in best.items()))
    for k, (pages, n, ids) in shape.items():
        if n != N_PARCELS or ids != N_PARCELS:
            log(f"  WARNING: {k} returned {n} features ({ids} distinct ids) in {pages} pages, expected {N_PARCELS}")
    import pygeoapi
    load = os.getloadavg()
    print(f"\n1,000-item pages through {N_PARCELS:,} polygons (`{LAYER}`), following `next` links from "
          f"{first}, one keep-alive client, GeoJSON without gzip; best of {ROUNDS} alternating rounds; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"  pygeoapi {pygeoapi.__version__}: PostgreSQL provider on peer.bench_parcels (the same current rows as a plain "
          f"table: fid primary key, 5 columns, GiST), Flask app under gunicorn -w 2; offset paging")
    print("  CityTwin: `citytwin serve`, keyset paging; on spatialite = the embedded store, on postgis = citytwin_api")
    print("  wall = the whole walk including this client's json.loads of each page (the same Python for both); "
          "served = request to last byte summed over the pages (the servers' share)")
    print(f"{'server':22} {'pages':>6} {'features':>9} {'wall s':>8} {'pages/s':>8} {'ratio':>7} {'served s':>9} {'pages/s':>8} {'ratio':>7}")
    p, ps = best["pygeoapi"], served_best["pygeoapi"]
    n = shape["pygeoapi"][0]
    print(f"{'pygeoapi':22} {n:>6} {shape['pygeoapi'][1]:>9} {p:>8.2f} {n / p:>8.2f} {'':>7} {ps:>9.2f} {n / ps:>8.2f}")
    for backend in BACKENDS:
        o, os_ = best[backend], served_best[backend]
        n = shape[backend][0]
        print(f"{'CityTwin/' + backend:22} {n:>6} {shape[backend][1]:>9} {o:>8.2f} {n / o:>8.2f} {p / o:>6.2f}x "
              f"{os_:>9.2f} {n / os_:>8.2f} {ps / os_:>6.2f}x")


# ---------------------------------------------------------------------------------------------
# wrk

WRK_LUA = """
local paths = {}
for line in io.lines("%s") do paths[#paths + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter * 7919) %% #paths + 1])
end
"""

NGINX_CONF = """{user}
worker_processes {workers};
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
  types {{ }}
  default_type application/vnd.mapbox-vector-tile;
  server {{
    listen 127.0.0.1:{port};
    root {tmp}/www;
    add_header Cache-Control "public, max-age=3600";
  }}
}}
"""


def wrk(port, lua, seconds, threads, connections, path=""):
    out = run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s"] + (["-s", lua] if lua else [])
              + [f"http://127.0.0.1:{port}{path}"])
    rps = float(next(l for l in out.splitlines() if l.startswith("Requests/sec:")).split()[1])
    lat = next((l.split()[1] for l in out.splitlines() if l.strip().startswith("Latency")), "?")
    errors = [l.strip() for l in out.splitlines() if "Non-2xx" in l or "Socket errors" in l]
    return rps, lat, errors


def bench_wrk(d: Path, binary: str, base: str):
    seconds = int(os.environ.get("WRK_SECONDS", "15"))
    threads = int(os.environ.get("WRK_THREADS", "2"))
    connections = int(os.environ.get("WRK_CONNECTIONS", "64"))
    tmp = Path(tempfile.mkdtemp(prefix="citytwin-wrk-"))
    layers = dict(tiled_layers(base))
    jobs = [(LAYER, ZOOM, x, y) for x, y in layers[LAYER]]
    best = {}
    try:
        backend = BACKENDS[0]
        with Server(binary, stores(d, base)[backend]) as server:
            # Warm the cache on the synthetic layer's z14 tiles and keep the bytes for nginx. As
            # anonymous, like wrk's requests: the cache key includes the caller's audience.
            _, tiles = fetch_ours(server, jobs, 1, anonymous=True)
            paths, by_path = [], {}
            for (layer, z, x, y), b in tiles.items():
                if not b:
                    continue
                path = f"/collections/{layer}/tiles/WebMercatorQuad/{z}/{y}/{x}"
                f = tmp / "www" / path.lstrip("/")
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_bytes(b)
                paths.append(path)
                by_path[path] = b
            (tmp / "paths.txt").write_text("\n".join(paths) + "\n")
            lua = tmp / "tiles.lua"
            lua.write_text(WRK_LUA % (tmp / "paths.txt"))
            size = sum(len(b) for b in tiles.values() if b) / max(1, len(paths))
            # The open layer needs no token, so both servers get the very same requests.
            nginx_conf = tmp / "nginx.conf"
            nginx_port = free_port()
            # As root nginx would hand its workers to `nobody`, who cannot read the 0700 temp dir.
            user = f"user {pwd.getpwuid(os.getuid()).pw_name};" if os.getuid() == 0 else ""
            nginx_conf.write_text(NGINX_CONF.format(user=user, workers=os.cpu_count() or 2, tmp=tmp, port=nginx_port))
            nginx = subprocess.Popen(["nginx", "-c", str(nginx_conf), "-p", str(tmp)],
                                     stdout=subprocess.DEVNULL, stderr=open(tmp / "nginx.stderr", "w"))
            try:
                for _ in range(100):
                    try:
                        c = http.client.HTTPConnection("127.0.0.1", nginx_port, timeout=5)
                        c.request("GET", paths[0])
                        r = c.getresponse()
                        if r.read() == by_path[paths[0]]:
                            break
                    except OSError:
                        pass
                    time.sleep(0.1)
                else:
                    raise SystemExit(f"nginx did not serve {paths[0]}: {(tmp / 'nginx.stderr').read_text()[-1000:]}")
                for r in range(ROUNDS):
                    for side, port in [("citytwin", server.port), ("nginx", nginx_port)]:
                        rps, lat, errors = wrk(port, str(lua), seconds, threads, connections)
                        if errors:
                            log(f"  {side}: {errors}")
                        if rps > best.get(side, (0,))[0]:
                            best[side] = (rps, lat)
                    log(f"  round {r + 1}/{ROUNDS}: " + ", ".join(f"{k} {v[0]:,.0f} req/s" for k, v in best.items()))
                # The same server on a static document (/conformance): its HTTP ceiling, so what is
                # left is the tile route's own cost. (Not /health: it scans every layer's extent.)
                ceiling = wrk(server.port, None, seconds, threads, connections, "/conformance")
            finally:
                nginx.terminate()
                nginx.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    nginx_version = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
    load = os.getloadavg()
    print(f"\nCached tiles under wrk: {len(paths)} non-empty z{ZOOM} `{LAYER}` tiles (mean {size / 1024:.1f} KB, no gzip), "
          f"wrk -t{threads} -c{connections} -d{seconds}s cycling through the same URL list; best of {ROUNDS} alternating "
          f"rounds; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; wrk shares the {os.cpu_count()} cores")
    print(f"  CityTwin: `citytwin serve` on {backend}, tile cache warmed on those tiles (memory hits), anonymous requests")
    print(f"  nginx: {nginx_version}, {os.cpu_count()} workers, sendfile, access_log off, the same bytes as static files")
    n = best["nginx"][0]
    print(f"{'server':12} {'req/s':>10} {'mean latency':>13} {'CityTwin/nginx':>15}")
    print(f"{'nginx':12} {n:>10,.0f} {best['nginx'][1]:>13}")
    o = best["citytwin"][0]
    print(f"{'CityTwin':12} {o:>10,.0f} {best['citytwin'][1]:>13} {o / n:>14.2f}x")
    print(f"  the same CityTwin server on GET /conformance (a static document: its HTTP ceiling, one run): "
          f"{ceiling[0]:,.0f} req/s, mean latency {ceiling[1]}")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in {"prepare", "tiles", "pages", "wrk"}:
        raise SystemExit(__doc__)
    cmd, d, binary, base = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    if cmd == "prepare":
        prepare(d, binary, base)
    elif cmd == "tiles":
        bench_tiles(d, binary, base)
    elif cmd == "pages":
        bench_pages(d, binary, base)
    else:
        bench_wrk(d, binary, base)


if __name__ == "__main__":
    main()

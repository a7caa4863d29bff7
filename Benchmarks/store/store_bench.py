#!/usr/bin/env python3
"""`Benchmarks/run.sh store`: CityTwin's store against GDAL's ogr2ogr and plain SQL, in one invocation.

    store_bench.py make-inputs DIR            # deterministic inputs (python3 stdlib only)
    store_bench.py import DIR BIN PGBASE      # bulk import: citytwin import vs ogr2ogr, SpatiaLite and PostGIS
    store_bench.py query DIR BIN PGBASE       # bbox latency on a large point layer: citytwin serve vs sqlite3/psql

BIN is the release citytwin binary, or `build` (default when BIN is `-`): the benchmark then builds
it itself with `swift build -c release --product citytwin --scratch-path SCRATCH` (SCRATCH:
STORE_BENCH_SCRATCH, default .build-store-bench), so it neither waits for nor disturbs the shared
.build; PGBASE a postgresql://user:pass@host:port URL without a
database (the benchmark uses its own databases citytwin_bench and citytwin_points, never the
test database). Sizes: STORE_BENCH_BUILDINGS (200,000), STORE_BENCH_POINTS (1,000,000),
STORE_BENCH_QUERIES (200), BENCH_ROUNDS (3). Each side keeps its best time over alternating
rounds; ratios are peer seconds / CityTwin seconds (> 1: CityTwin is faster).
"""
import http.client
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pg_tools import pg_parts, psql  # noqa: E402

N_BUILDINGS = int(os.environ.get("STORE_BENCH_BUILDINGS", "200000"))
N_POINTS = int(os.environ.get("STORE_BENCH_POINTS", "1000000"))
N_QUERIES = int(os.environ.get("STORE_BENCH_QUERIES", "200"))
POINT_BATCH = 250_000     # features per `citytwin import` when loading the point layer
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
# The point layer's extent (Wuhan - Ezhou - Huangshi, EPSG:4490 degrees).
WEST, SOUTH, EAST, NORTH = 114.0, 30.0, 115.0, 30.8

USES = ["住宅", "商业", "办公", "公共服务", "工业"]


def buildings_file(d: Path) -> Path:
    return d / f"buildings_{N_BUILDINGS}.geojson"


def points_dir(d: Path) -> Path:
    return d / f"hydrants_{N_POINTS}"


def make_inputs(d: Path):
    d.mkdir(parents=True, exist_ok=True)
    out = buildings_file(d)
    if not out.exists():
        rnd = random.Random(2026)
        tmp = out.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write('{"type":"FeatureCollection","features":[\n')
            for i in range(N_BUILDINGS):
                # A footprint of 4-12 vertices: a rotated rectangle with its corners cut, 10-60 m a side.
                cx, cy = rnd.uniform(114.70, 114.95), rnd.uniform(30.30, 30.45)
                w, h = rnd.uniform(10, 60), rnd.uniform(10, 40)
                a = rnd.uniform(0, math.pi)
                k = rnd.choice([4, 8, 12])
                ring = []
                for j in range(k):
                    t = 2 * math.pi * j / k + math.pi / k
                    x, y = w / 2 * math.copysign(min(1, abs(math.cos(t)) * 1.4), math.cos(t)), \
                        h / 2 * math.copysign(min(1, abs(math.sin(t)) * 1.4), math.sin(t))
                    ex, ey = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
                    ring.append([round(cx + ex / 96_000, 7), round(cy + ey / 111_000, 7)])
                ring.append(ring[0])
                floors = rnd.randint(1, 33)
                props = {"name": f"鄂州{i // 40}小区{i % 40 + 1}栋", "use": rnd.choice(USES), "floors": floors,
                         "height_m": round(floors * 3.0 + rnd.uniform(0, 2), 1),
                         "ground_elevation_m": round(rnd.uniform(18, 40), 2),
                         "address_code": f"420704{i:012d}", "footprint_m2": round(w * h * 0.9, 1)}
                f.write(json.dumps({"type": "Feature", "properties": props,
                                    "geometry": {"type": "Polygon", "coordinates": [ring]}},
                                   ensure_ascii=False, separators=(",", ":")))
                f.write(",\n" if i + 1 < N_BUILDINGS else "\n")
            f.write("]}\n")
        tmp.rename(out)
    pts = points_dir(d)
    if not (pts / "done").exists():
        pts.mkdir(parents=True, exist_ok=True)
        rnd = random.Random(4490)
        kinds, states = ["地上式", "地下式"], ["完好", "待维修"]
        for part, start in enumerate(range(0, N_POINTS, POINT_BATCH)):
            with open(pts / f"part-{part:03d}.geojsonl", "w", encoding="utf-8") as f:
                for i in range(start, min(N_POINTS, start + POINT_BATCH)):
                    props = {"main": f"WM{i // 50:06d}", "kind": kinds[i % 2], "outlet_mm": rnd.choice([65, 100, 150]),
                             "status": states[int(i % 13 == 0)], "road": f"道路{i % 997}"}
                    geom = {"type": "Point", "coordinates": [round(rnd.uniform(WEST, EAST), 7), round(rnd.uniform(SOUTH, NORTH), 7)]}
                    f.write(json.dumps({"type": "Feature", "properties": props, "geometry": geom},
                                       ensure_ascii=False, separators=(",", ":")) + "\n")
        (pts / "done").write_text("ok\n")
    rnd = random.Random(31)
    boxes = []
    for _ in range(N_QUERIES):
        s = rnd.uniform(0.003, 0.009)   # 300-900 m: about 10-100 of 1,000,000 points
        x, y = rnd.uniform(WEST, EAST - s), rnd.uniform(SOUTH, NORTH - s)
        boxes.append([round(x, 6), round(y, 6), round(x + s, 6), round(y + s, 6)])
    (d / "bboxes.json").write_text(json.dumps(boxes))


# ---------------------------------------------------------------------------------------------
def pg_url(base, db):
    return f"{base.rstrip('/')}/{db}"


def ensure_database(base, db):
    if not psql(base, "citytwin", f"SELECT 1 FROM pg_database WHERE datname = '{db}'"):
        psql(base, "citytwin", f"CREATE DATABASE {db}")
    psql(base, db, "CREATE EXTENSION IF NOT EXISTS postgis")


def timed(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    s = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return s


def sqlite_scalar(path, sql):
    r = subprocess.run(["sqlite3", str(path), sql], capture_output=True, text=True, check=True)
    return r.stdout.strip()


def remove_sqlite(path: Path):
    for suffix in ["", "-wal", "-shm", ".token-secret"]:
        Path(str(path) + suffix).unlink(missing_ok=True)


def bench_import(d: Path, binary: str, base: str):
    src = buildings_file(d)
    work = d / "import"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    ensure_database(base, "citytwin_bench")
    pg = pg_parts(base)
    pg_dsn = f"PG:host={pg['host']} port={pg['port']} dbname=citytwin_bench user={pg['user']} password={pg['password']}"
    ours_sqlite = work / "citytwin.sqlite"
    ogr_sqlite = work / "ogr.sqlite"
    env = dict(os.environ, PGPASSWORD=pg["password"])
    best = {k: math.inf for k in ["ours_sqlite", "ogr_sqlite", "ours_pg", "ogr_pg"]}
    counts = {}
    for r in range(ROUNDS):
        # (a) SpatiaLite: a fresh file each.
        remove_sqlite(ours_sqlite)
        s = timed([binary, "import", str(src), "--layer", "buildings", "--store", str(ours_sqlite)])
        best["ours_sqlite"] = min(best["ours_sqlite"], s)
        counts["ours_sqlite"] = int(sqlite_scalar(ours_sqlite, "SELECT count(*) FROM f_buildings WHERE valid_to IS NULL"))
        remove_sqlite(ogr_sqlite)
        s = timed(["ogr2ogr", "-f", "SQLite", "-dsco", "SPATIALITE=YES", "-lco", "SPATIAL_INDEX=YES",
                   "--config", "OGR_SQLITE_SYNCHRONOUS", "OFF", "-gt", "65536", "-t_srs", "EPSG:4490",
                   "-nln", "buildings", str(ogr_sqlite), str(src)])
        best["ogr_sqlite"] = min(best["ogr_sqlite"], s)
        counts["ogr_sqlite"] = int(sqlite_scalar(ogr_sqlite, "SELECT count(*) FROM buildings"))
        # (b) PostGIS: a fresh schema each (dropped outside the timing).
        psql(base, "citytwin_bench", "DROP SCHEMA IF EXISTS citytwin CASCADE")
        s = timed([binary, "import", str(src), "--layer", "buildings", "--store", pg_url(base, "citytwin_bench")])
        best["ours_pg"] = min(best["ours_pg"], s)
        counts["ours_pg"] = int(psql(base, "citytwin_bench", "SELECT count(*) FROM citytwin.f_buildings WHERE valid_to IS NULL"))
        psql(base, "citytwin_bench", "DROP SCHEMA IF EXISTS ogr CASCADE; CREATE SCHEMA ogr")
        s = timed(["ogr2ogr", "-f", "PostgreSQL", pg_dsn, str(src), "--config", "PG_USE_COPY", "YES",
                   "-lco", "SCHEMA=ogr", "-lco", "GEOMETRY_NAME=geom", "-lco", "SPATIAL_INDEX=GIST",
                   "-gt", "65536", "-t_srs", "EPSG:4490", "-nln", "buildings"], env=env)
        best["ogr_pg"] = min(best["ogr_pg"], s)
        counts["ogr_pg"] = int(psql(base, "citytwin_bench", "SELECT count(*) FROM ogr.buildings"))
        print(f"  round {r + 1}/{ROUNDS}: " + ", ".join(f"{k} {v:.2f}s" for k, v in best.items()), file=sys.stderr)
    bad = {k: v for k, v in counts.items() if v != N_BUILDINGS}
    if bad:
        raise SystemExit(f"feature counts differ from {N_BUILDINGS}: {bad}")
    floor = pg_server_floor(base, work)
    gdal = subprocess.run(["ogr2ogr", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"\nBulk import of {N_BUILDINGS:,} building polygons ({src.stat().st_size / 1e6:.0f} MB GeoJSON, "
          f"layer `buildings`, CRS84 -> EPSG:4490), best of {ROUNDS} alternating rounds, wall clock per invocation")
    print(f"  CityTwin: `citytwin import` into a fresh store: JSON-schema typing and validation of every feature, PROJ "
          f"transform, versioned rows (valid_from/valid_to, hash), one journal row per feature (its hash-chained audit entry and change event), "
          f"spatial index (SpatiaLite R*Tree / PostGIS GiST), all in ONE transaction; a fresh store: creates the store's system tables and the `buildings` layer (table, indexes, R*Tree) from Layers/")
    print(f"  peer: {gdal}: ogr2ogr -gt 65536 -t_srs EPSG:4490, spatial index on; SQLite: -dsco SPATIALITE=YES, "
          f"OGR_SQLITE_SYNCHRONOUS=OFF; PostgreSQL: PG_USE_COPY=YES (COPY); commits every 65,536 features; "
          f"no validation, no versions, no audit")
    print(f"{'backend':12} {'CityTwin s':>11} {'feat/s':>10} {'ogr2ogr s':>10} {'feat/s':>10} {'ratio':>7}")
    for name, o, p in [("SpatiaLite", "ours_sqlite", "ogr_sqlite"), ("PostGIS", "ours_pg", "ogr_pg")]:
        print(f"{name:12} {best[o]:>11.2f} {N_BUILDINGS / best[o]:>10,.0f} {best[p]:>10.2f} {N_BUILDINGS / best[p]:>10,.0f} "
              f"{best[p] / best[o]:>6.2f}x")
    print(f"  PostGIS server alone: psql replaying the rows CityTwin's import wrote (versions and journal, COPY from files) and "
          f"building the same indexes, with no client work at all, takes {floor:.2f}s (best of {ROUNDS}): no client could beat "
          f"ogr2ogr by more than {best['ogr_pg'] / floor:.2f}x on this server")
    shutil.rmtree(work, ignore_errors=True)
    psql(base, "citytwin_bench", "DROP SCHEMA IF EXISTS citytwin CASCADE; DROP SCHEMA IF EXISTS ogr CASCADE")


def pg_server_floor(base, work: Path):
    """The PostGIS server's own share of CityTwin's import: the rows the last import wrote, replayed
    by psql from files into the emptied layer table (in a transaction that is rolled back) with the
    layer's indexes dropped and rebuilt after, as the import does. Best of ROUNDS, seconds."""
    versions, journal = work / "versions.copy", work / "journal.copy"
    version_columns = "fid, props, geom, valid_from, valid_to, author, department, hash"
    journal_columns = psql(base, "citytwin_bench", "SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) "
                           "FROM information_schema.columns WHERE table_schema = 'citytwin' AND table_name = 'audit_log' "
                           "AND column_name <> 'seq'")
    psql(base, "citytwin_bench", f"\\copy (SELECT {version_columns} FROM citytwin.f_buildings ORDER BY vid) TO '{versions}'")
    psql(base, "citytwin_bench", f"\\copy (SELECT {journal_columns} FROM citytwin.audit_log WHERE layer = 'buildings' "
                                 f"ORDER BY seq) TO '{journal}'")
    indexes = psql(base, "citytwin_bench", "SELECT indexname || '|' || indexdef FROM pg_indexes WHERE schemaname = 'citytwin' "
                                           "AND tablename = 'f_buildings' AND indexname <> 'f_buildings_pkey'").splitlines()
    drops = "; ".join(f"DROP INDEX citytwin.{i.split('|')[0]}" for i in indexes)
    creates = "\n".join(i.split("|", 1)[1] + ";" for i in indexes)
    script = work / "replay.sql"
    script.write_text(f"""BEGIN;
SET LOCAL maintenance_work_mem = '256MB';
TRUNCATE citytwin.f_buildings;
{drops};
\\copy citytwin.f_buildings ({version_columns}) FROM '{versions}'
\\copy citytwin.audit_log ({journal_columns}) FROM '{journal}'
{creates}
ROLLBACK;
""")
    p = pg_parts(base)
    env = dict(os.environ, PGPASSWORD=p["password"], PGOPTIONS="-c client_min_messages=warning")
    best = math.inf
    for _ in range(ROUNDS):
        best = min(best, timed(["psql", "-h", p["host"], "-p", p["port"], "-U", p["user"], "-d", "citytwin_bench",
                                "-v", "ON_ERROR_STOP=1", "-qAt", "-f", str(script)], env=env))
    return best


# ---------------------------------------------------------------------------------------------
def load_points(d: Path, binary: str, base: str):
    """Loads the point layer once per backend through `citytwin import`, one file per batch."""
    parts = sorted(points_dir(d).glob("part-*.geojsonl"))
    store = d / f"points_{N_POINTS}.sqlite"
    record = d / f"points_{N_POINTS}_load.json"
    loads = json.loads(record.read_text()) if record.exists() else {}
    ensure_database(base, "citytwin_points")

    def count_sqlite():
        if not store.exists():
            return 0
        try:
            return int(sqlite_scalar(store, "SELECT count(*) FROM f_hydrants WHERE valid_to IS NULL") or 0)
        except subprocess.CalledProcessError:
            return 0

    def count_pg():
        if not psql(base, "citytwin_points", "SELECT 1 FROM pg_tables WHERE schemaname='citytwin' AND tablename='f_hydrants'"):
            return 0
        return int(psql(base, "citytwin_points", "SELECT count(*) FROM citytwin.f_hydrants WHERE valid_to IS NULL"))

    for name, target, count, reset in [
            ("SpatiaLite", str(store), count_sqlite, lambda: remove_sqlite(store)),
            ("PostGIS", pg_url(base, "citytwin_points"), count_pg,
             lambda: psql(base, "citytwin_points", "DROP SCHEMA IF EXISTS citytwin CASCADE"))]:
        if count() == N_POINTS and name in loads:
            continue
        reset()
        t = time.perf_counter()
        for p in parts:
            timed([binary, "import", str(p), "--layer", "hydrants", "--store", target])
        loads[name] = time.perf_counter() - t
        if count() != N_POINTS:
            raise SystemExit(f"{name}: loaded {count()} points, expected {N_POINTS}")
        if name == "PostGIS":
            psql(base, "citytwin_points", "ANALYZE citytwin.f_hydrants")
        record.write_text(json.dumps(loads))
        print(f"  loaded {N_POINTS:,} points into {name} in {loads[name]:.1f} s", file=sys.stderr)
    return store, loads


def serve(binary, store, port, secret):
    env = dict(os.environ, CITYTWIN_TOKEN_SECRET=secret)
    p = subprocess.Popen([binary, "serve", "--store", store, "--port", str(port)], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    token = subprocess.run([binary, "token", "create", "--role", "admin", "--store", store], env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    for _ in range(300):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/collections")
            if c.getresponse().status == 200:
                return p, token
        except OSError:
            time.sleep(0.1)
        if p.poll() is not None:
            raise SystemExit(f"citytwin serve exited ({p.returncode})")
    p.kill()
    raise SystemExit("citytwin serve did not answer")


def http_latencies(port, token, boxes):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/geo+json"}
    times, counts = [], []
    for i, b in enumerate([boxes[0]] * 5 + boxes):   # 5 warm-up requests, not timed
        t = time.perf_counter()
        c.request("GET", f"/collections/hydrants/items?bbox={','.join(map(str, b))}&limit=100", headers=headers)
        r = c.getresponse()
        body = r.read()
        s = time.perf_counter() - t
        if r.status != 200:
            raise SystemExit(f"HTTP {r.status}: {body[:300]!r}")
        if i >= 5:
            times.append(s)
            counts.append(len(json.loads(body)["features"]))
    return times, counts


def page_sql(b, pg):
    """The statement `FeatureSelect.pageStatement` builds for a bbox page of 100 (literals inlined)."""
    x0, y0, x1, y1 = b
    if pg:
        box = f"ST_MakeEnvelope({x0}, {y0}, {x1}, {y1}, 4490)"
        return (f"SELECT f.fid, (f.props)::text, ST_AsEWKB(f.geom) FROM citytwin.f_hydrants AS f WHERE f.valid_to IS NULL "
                f"AND (f.geom && {box} AND ST_Intersects(f.geom, {box})) ORDER BY f.fid ASC LIMIT 100;")
    return (f"SELECT f.fid, f.props, hex(ST_AsBinary(f.geom)) FROM f_hydrants AS f WHERE f.valid_to IS NULL AND "
            f"(f.vid IN (SELECT pkid FROM \"idx_f_hydrants_geom\" WHERE xmin <= {x1} AND xmax >= {x0} AND ymin <= {y1} "
            f"AND ymax >= {y0}) AND ST_Intersects(f.geom, BuildMbr({x0}, {y0}, {x1}, {y1}, 4490)) = 1) "
            f"ORDER BY f.fid ASC LIMIT 100;")


class SQLiteClient:
    """libsqlite3 through ctypes with mod_spatialite loaded (Python's sqlite3 module cannot load
    extensions): prepares, steps and reads every column of a statement, timed in-process."""
    ROW, DONE = 100, 101

    def __init__(self, path):
        import ctypes
        import ctypes.util
        self.c = ctypes
        lib = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
        lib.sqlite3_column_blob.restype = ctypes.c_void_p
        lib.sqlite3_column_text.restype = ctypes.c_char_p
        lib.sqlite3_prepare_v2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                           ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        for f in ["sqlite3_step", "sqlite3_finalize", "sqlite3_column_count"]:
            getattr(lib, f).argtypes = [ctypes.c_void_p]
        for f in ["sqlite3_column_blob", "sqlite3_column_text", "sqlite3_column_bytes"]:
            getattr(lib, f).argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.lib, self.db = lib, ctypes.c_void_p()
        if lib.sqlite3_open_v2(str(path).encode(), ctypes.byref(self.db), 1, None) != 0:   # read-only
            raise SystemExit(f"cannot open {path}")
        err = ctypes.c_char_p()
        lib.sqlite3_enable_load_extension(self.db, 1)
        if lib.sqlite3_load_extension(self.db, b"mod_spatialite", None, ctypes.byref(err)) != 0:
            raise SystemExit(f"cannot load mod_spatialite: {err.value}")

    def rows(self, sql):
        """Runs `sql` and copies every value out (fid and props as text, the WKB as bytes)."""
        lib, c = self.lib, self.c
        stmt = c.c_void_p()
        if lib.sqlite3_prepare_v2(self.db, sql.encode(), -1, c.byref(stmt), None) != 0:
            raise SystemExit(f"sqlite3_prepare_v2 failed: {sql}")
        out = []
        while (rc := lib.sqlite3_step(stmt)) == self.ROW:
            fid, props = lib.sqlite3_column_text(stmt, 0), lib.sqlite3_column_text(stmt, 1)
            wkb = c.string_at(lib.sqlite3_column_blob(stmt, 2), lib.sqlite3_column_bytes(stmt, 2))
            out.append((fid, props, wkb))
        lib.sqlite3_finalize(stmt)
        if rc != self.DONE:
            raise SystemExit(f"sqlite3_step failed ({rc}): {sql}")
        return out


def sql_latencies(boxes, store, base):
    """The same page statement over plain SQL. SpatiaLite: libsqlite3 in this process (timed
    around prepare, step and reading every column). PostGIS: one psql session, `\\timing` (the
    round trip of each statement, result rows included)."""
    if store is not None:
        client = SQLiteClient(store)
        for b in boxes[:5]:
            client.rows(page_sql(b, False))
        times, counts = [], []
        for b in boxes:
            t = time.perf_counter()
            rows = client.rows(page_sql(b, False))
            times.append(time.perf_counter() - t)
            counts.append(len(rows))
        return times, counts
    p = pg_parts(base)
    script = "".join(page_sql(b, True) + "\n" for b in boxes[:5]) + "\\timing on\nSELECT 'BENCH-START';\n" \
        + "".join(page_sql(b, True) + "\n" for b in boxes)
    out = subprocess.run(["psql", "-h", p["host"], "-p", p["port"], "-U", p["user"], "-d", "citytwin_points", "-qAt",
                          "-v", "ON_ERROR_STOP=1"], input=script, capture_output=True, text=True, check=True,
                         env=dict(os.environ, PGPASSWORD=p["password"])).stdout.splitlines()
    i = out.index("BENCH-START") + 2    # past the marker's own row and time
    times, counts, rows = [], [], 0
    for line in out[i:]:
        if line.startswith("Time: "):
            times.append(float(line.split()[1]) / 1000)
            counts.append(rows)
            rows = 0
        else:
            rows += 1
    if len(times) != len(boxes):
        raise SystemExit(f"psql printed {len(times)} timings for {len(boxes)} statements")
    return times, counts


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


def bench_query(d: Path, binary: str, base: str):
    boxes = json.loads((d / "bboxes.json").read_text())
    store, loads = load_points(d, binary, base)
    secret = "store-bench-secret-0123456789abcdef"
    results = {}
    for name, target in [("SpatiaLite", str(store)), ("PostGIS", pg_url(base, "citytwin_points"))]:
        best_ours, best_peer = None, None
        port = 18000 + random.Random(os.getpid()).randint(0, 999)
        server, token = serve(binary, target, port, secret)
        try:
            for _ in range(ROUNDS):
                t, c_ours = http_latencies(port, token, boxes)
                if best_ours is None or pct(t, 50) < pct(best_ours, 50):
                    best_ours = t
                t, c_peer = sql_latencies(boxes, store if name == "SpatiaLite" else None, base)
                if best_peer is None or pct(t, 50) < pct(best_peer, 50):
                    best_peer = t
        finally:
            server.terminate()
            server.wait()
        mismatched = sum(1 for a, b in zip(c_ours, c_peer) if a != b)
        results[name] = (best_ours, best_peer, c_ours, mismatched)
    print(f"\nbbox query latency, layer `hydrants` with {N_POINTS:,} points over {EAST - WEST:.1f}° x {NORTH - SOUTH:.1f}°, "
          f"{len(boxes)} random 300-900 m boxes, limit 100, best p50 of {ROUNDS} alternating rounds")
    print("  load (citytwin import, " + ", ".join(f"{n} {s:.1f} s = {N_POINTS / s:,.0f} feat/s" for n, s in loads.items())
          + f"; {math.ceil(N_POINTS / POINT_BATCH)} imports of <= {POINT_BATCH:,})")
    print("  CityTwin: GET /collections/hydrants/items?bbox=…&limit=100 on `citytwin serve` (admin bearer token, "
          "keep-alive, no gzip), timed in the client to the last byte of the GeoJSON")
    print("  peer: the same page statement the store builds (R*Tree / GiST candidates, ST_Intersects, current versions, "
          "ORDER BY fid LIMIT 100): SpatiaLite through libsqlite3 + mod_spatialite in the client process, PostGIS "
          "in one psql session (\\timing: round trip incl. rows)")
    print(f"{'backend':12} {'CityTwin p50':>13} {'p95':>8} {'SQL p50':>9} {'p95':>8} {'p50 ratio':>10} {'feat/query':>11}")
    for name, (o, p, c, mismatched) in results.items():
        print(f"{name:12} {pct(o, 50) * 1e3:>10.2f} ms {pct(o, 95) * 1e3:>5.2f} ms {pct(p, 50) * 1e3:>6.2f} ms "
              f"{pct(p, 95) * 1e3:>5.2f} ms {pct(p, 50) / pct(o, 50):>9.2f}x {statistics.mean(c):>11.1f}"
              + (f"  ({mismatched} queries returned a different number of features)" if mismatched else ""))


def release_binary(arg: str) -> str:
    """BIN as given, or (for `build` / `-`) a release build in the benchmark's own scratch path."""
    if arg not in ("build", "-"):
        return arg
    scratch = os.environ.get("STORE_BENCH_SCRATCH", ".build-store-bench")
    r = subprocess.run(["swift", "build", "-c", "release", "--product", "citytwin", "--scratch-path", scratch],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"release build failed:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return str(Path(scratch) / "release" / "citytwin")


if __name__ == "__main__":
    cmd, d = sys.argv[1], Path(sys.argv[2])
    if cmd == "make-inputs":
        make_inputs(d)
    elif cmd == "import":
        bench_import(d, release_binary(sys.argv[3]), sys.argv[4])
    elif cmd == "query":
        bench_query(d, release_binary(sys.argv[3]), sys.argv[4])
    else:
        raise SystemExit(__doc__)

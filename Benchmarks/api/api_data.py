"""The benchmarks' data (`api_bench.py prepare`): the sample district and 100,000 synthetic parcels in
SpatiaLite and PostGIS, and the peer's copy of the parcels."""
import json
import math
import random
import time
from pathlib import Path

from api_common import DB, EAST, HERE, LAYER, N_PARCELS, NORTH, SOUTH, USES, WEST, log, pg_url, psql, run, sqlite_scalar


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

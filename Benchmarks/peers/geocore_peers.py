#!/usr/bin/env python3
"""The peer side of `Benchmarks/run.sh geocore`: pyproj and shapely 2 on the same inputs the Swift
benchmark (Benchmarks/GeoCoreBench) reads, timed the same way (best of N runs, wall clock).

    python geocore_peers.py make-inputs DIR   # writes the shared inputs (deterministic)
    python geocore_peers.py run DIR           # prints one JSON object: {benchmark: seconds}
"""
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyproj
import shapely

N_POINTS = int(os.environ.get("GEOCORE_BENCH_POINTS", 1_000_000))  # transform and prepared-predicate points
N_BUFFER = int(os.environ.get("GEOCORE_BENCH_BUFFERS", 10_000))    # geometries buffered
REPEATS = 5


def make_inputs(out: Path):
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    lon = rng.uniform(113.7, 115.1, N_POINTS)       # Wuhan - Ezhou - Huangshi
    lat = rng.uniform(29.9, 31.0, N_POINTS)
    np.stack([lon, lat], axis=1).astype("<f8").tofile(out / "lonlat.f64")

    # A district boundary with ~2,000 vertices (a wobbly star) and points in its bounding box, in metres.
    n = 2000
    ang = np.linspace(0, 2 * math.pi, n, endpoint=False)
    r = 4000 + 900 * np.sin(7 * ang) + 300 * np.sin(31 * ang) + rng.uniform(-50, 50, n)
    cx, cy = 529_300.0, 3_385_870.0
    ring = np.stack([cx + r * np.cos(ang), cy + r * np.sin(ang)], axis=1)
    ring = np.vstack([ring, ring[:1]])
    (out / "district.wkt").write_text(shapely.to_wkt(shapely.Polygon(ring), rounding_precision=-1))
    px = rng.uniform(cx - 5200, cx + 5200, N_POINTS)
    py = rng.uniform(cy - 5200, cy + 5200, N_POINTS)
    np.stack([px, py], axis=1).astype("<f8").tofile(out / "points.f64")

    # Building-like polygons (8-24 vertices) and pipe-like lines to buffer, as WKT lines.
    lines = []
    for i in range(N_BUFFER):
        x0, y0 = rng.uniform(500_000, 560_000), rng.uniform(3_350_000, 3_400_000)
        if i % 2 == 0:
            k = int(rng.integers(8, 25))
            a = np.sort(rng.uniform(0, 2 * math.pi, k))
            rr = rng.uniform(10, 30, k)
            pts = np.stack([x0 + rr * np.cos(a), y0 + rr * np.sin(a)], axis=1)
            g = shapely.Polygon(pts)
            if not g.is_valid:
                g = g.convex_hull
        else:
            k = int(rng.integers(2, 12))
            pts = np.stack([x0 + np.cumsum(rng.uniform(-40, 40, k)), y0 + np.cumsum(rng.uniform(-40, 40, k))], axis=1)
            g = shapely.LineString(pts)
        lines.append(shapely.to_wkt(g, rounding_precision=-1))
    (out / "buffer.wkt").write_text("\n".join(lines) + "\n")


def best(fn):
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def run(data: Path):
    res = {}
    lonlat = np.fromfile(data / "lonlat.f64", dtype="<f8").reshape(-1, 2)
    t = pyproj.Transformer.from_crs("EPSG:4490", "EPSG:4547", always_xy=True)
    secs, (x, y) = best(lambda: t.transform(lonlat[:, 0], lonlat[:, 1]))
    res["transform_4490_to_4547"] = {"seconds": secs, "items": len(lonlat), "checksum": float(x.sum() + y.sum())}

    district = shapely.from_wkt((data / "district.wkt").read_text())
    pts = np.fromfile(data / "points.f64", dtype="<f8").reshape(-1, 2)
    shapely.prepare(district)
    secs, inside = best(lambda: shapely.contains_xy(district, pts[:, 0], pts[:, 1]))
    res["prepared_contains_xy"] = {"seconds": secs, "items": len(pts), "checksum": int(inside.sum())}
    point_geoms = shapely.points(pts)
    secs, inside2 = best(lambda: shapely.contains(district, point_geoms))
    res["prepared_contains_point_geometries"] = {"seconds": secs, "items": len(pts), "checksum": int(inside2.sum())}

    geoms = shapely.from_wkt((data / "buffer.wkt").read_text().splitlines())
    secs, bufs = best(lambda: shapely.buffer(geoms, 5.0, quad_segs=8))
    res["buffer_5m_quad8"] = {"seconds": secs, "items": len(geoms), "checksum": float(shapely.area(bufs).sum())}
    res["_peers"] = {"pyproj": pyproj.__version__, "proj": pyproj.proj_version_str,
                     "shapely": shapely.__version__, "geos": ".".join(map(str, shapely.geos_version))}
    print(json.dumps(res))


if __name__ == "__main__":
    cmd, d = sys.argv[1], Path(sys.argv[2])
    make_inputs(d) if cmd == "make-inputs" else run(d)

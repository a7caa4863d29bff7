#!/usr/bin/env python3
"""Generates the differential-test fixtures for GeoCore from independent references:
shapely 2 (GEOS, its own bundled build) for predicates, overlay, buffer and validity, and
pyproj (its own bundled PROJ) for coordinate transforms and geodesic measures.

Inputs are random but seeded, laid out in and around Hubei: metric geometries in CGCS2000
Gauss-Krüger CM 114°E (EPSG:4547, where CityTwin does metric work) and lon/lat points for
transforms. The Swift tests (Tests/GeoCoreTests/DifferentialTests.swift) replay every case.

    .venv/bin/python Scripts/reference/make_geocore_fixtures.py \
        > Tests/GeoCoreTests/Fixtures/reference/geocore_reference.json
"""
import json
import math
import random
import sys

import numpy as np
import pyproj
import shapely
from shapely.geometry import LineString, MultiPolygon, Point, Polygon

SEED = 20261121
rng = random.Random(SEED)
PREDICATES = ["intersects", "disjoint", "touches", "crosses", "within", "contains",
              "overlaps", "covers", "covered_by", "equals"]


def wkt(g):
    return shapely.to_wkt(g, rounding_precision=-1, trim=True)


def star(cx, cy, r, n):
    """A star-shaped (hence simple) polygon ring around (cx, cy)."""
    angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))
    pts = []
    for a in angles:
        rr = r * rng.uniform(0.45, 1.0)
        pts.append((round(cx + rr * math.cos(a), 3), round(cy + rr * math.sin(a), 3)))
    return pts


def random_polygon(cx, cy, r):
    """A valid polygon, sometimes with a hole (redrawn until GEOS calls it valid)."""
    while True:
        shell = star(cx, cy, r, rng.randint(5, 24))
        holes = [star(cx, cy, r * 0.2, rng.randint(4, 8))] if rng.random() < 0.3 else []
        p = Polygon(shell, holes)
        if p.is_valid:
            return p


def random_line(cx, cy, r):
    n = rng.randint(2, 12)
    return LineString([(round(cx + rng.uniform(-r, r), 3), round(cy + rng.uniform(-r, r), 3)) for _ in range(n)])


def random_metric_geometry(cx, cy, r):
    k = rng.random()
    if k < 0.55:
        return random_polygon(cx, cy, r)
    if k < 0.8:
        return random_line(cx, cy, r)
    if k < 0.9:
        return Point(round(cx + rng.uniform(-r, r), 3), round(cy + rng.uniform(-r, r), 3))
    return MultiPolygon([random_polygon(cx - r, cy, r * 0.6), random_polygon(cx + r, cy, r * 0.6)])


def gk_centre():
    # Around Wuhan/Ezhou/Huangshi in EPSG:4547 metres.
    return rng.uniform(480_000, 580_000), rng.uniform(3_330_000, 3_420_000)


def predicate_cases(n):
    out = []
    for i in range(n):
        cx, cy = gk_centre()
        r = rng.uniform(50, 800)
        a = random_metric_geometry(cx, cy, r)
        mode = i % 5
        if mode == 0:      # shifted copy: overlaps / intersects
            b = random_metric_geometry(cx + rng.uniform(-r, r), cy + rng.uniform(-r, r), r)
        elif mode == 1:    # far apart: disjoint
            b = random_metric_geometry(cx + 5 * r, cy, r)
        elif mode == 2 and a.geom_type == "Polygon":   # sharing an edge: touches
            x0, y0, x1, y1 = a.bounds
            b = Polygon([(x1, y0), (x1 + r, y0), (x1 + r, y1), (x1, y1)])
            a = shapely.box(x0, y0, x1, y1)
        elif mode == 3:    # a part of it: within / contains / covers
            b = a.buffer(-r * 0.05) if a.geom_type in ("Polygon", "MultiPolygon") else a
            if b.is_empty:
                b = a
        else:
            b = random_line(cx, cy, r * 1.5)
        case = {"a": wkt(a), "b": wkt(b), "relate": a.relate(b)}
        for p in PREDICATES:
            case[p] = bool(getattr(a, p)(b))
        out.append(case)
    return out


def overlay_cases(n):
    out = []
    for _ in range(n):
        cx, cy = gk_centre()
        r = rng.uniform(50, 800)
        a = random_polygon(cx, cy, r)
        b = random_polygon(cx + rng.uniform(-r, r), cy + rng.uniform(-r, r), r)
        out.append({
            "a": wkt(a), "b": wkt(b),
            "intersection_area": a.intersection(b).area,
            "union_area": a.union(b).area,
            "difference_area": a.difference(b).area,
            "sym_difference_area": a.symmetric_difference(b).area,
            "intersection_length": a.boundary.intersection(b).length,
        })
    return out


def buffer_cases(n):
    out = []
    caps = ["round", "flat", "square"]
    joins = ["round", "mitre", "bevel"]
    for i in range(n):
        cx, cy = gk_centre()
        r = rng.uniform(20, 400)
        g = random_metric_geometry(cx, cy, r)
        if g.geom_type == "Point" and i % 2:
            g = random_line(cx, cy, r)
        d = rng.choice([-1, 1]) * rng.uniform(1, r * 0.5) if g.geom_type in ("Polygon", "MultiPolygon") \
            else rng.uniform(1, r * 0.5)
        quad = rng.choice([1, 2, 4, 8, 16])
        cap = caps[i % 3]
        join = joins[(i // 3) % 3]
        single = g.geom_type == "LineString" and i % 4 == 0
        if single:
            # Single-sided buffers are defined for simple lines (a pipe or kerb line); on
            # self-crossing lines GEOS versions legitimately differ, so draw a simple one.
            while not g.is_simple:
                g = random_line(cx, cy, r)
        buf = g.buffer(d, quad_segs=quad, cap_style=cap, join_style=join, mitre_limit=5.0, single_sided=single)
        out.append({"geometry": wkt(g), "distance": d, "quadrant_segments": quad, "cap_style": cap,
                    "join_style": join, "mitre_limit": 5.0, "single_sided": single, "area": buf.area})
    return out


def invalid_polygons():
    cx, cy = gk_centre()
    s = 100.0
    cases = [
        Polygon([(cx, cy), (cx + s, cy + s), (cx + s, cy), (cx, cy + s)]),                # bow-tie
        Polygon([(cx, cy), (cx + s, cy), (cx + s, cy + s), (cx, cy + s)],
                [[(cx + 2 * s, cy), (cx + 3 * s, cy), (cx + 3 * s, cy + s)]]),              # hole outside shell
        Polygon([(cx, cy), (cx + s, cy), (cx + s, cy + s), (cx + s / 2, cy), (cx, cy + s)]),  # self-touching spike
        MultiPolygon([shapely.box(cx, cy, cx + s, cy + s), shapely.box(cx + s / 2, cy, cx + 2 * s, cy + s)]),
        Polygon([(cx, cy), (cx + s, cy), (cx + s, cy + s), (cx, cy + s)],
                [[(cx + 10, cy + 10), (cx + 90, cy + 10), (cx + 90, cy + 90), (cx + 10, cy + 90)],
                 [(cx + 20, cy + 20), (cx + 80, cy + 20), (cx + 80, cy + 80), (cx + 20, cy + 80)]]),  # nested holes
    ]
    for _ in range(25):   # random vertex orders: mostly self-intersecting
        pts = [(round(cx + rng.uniform(0, s), 3), round(cy + rng.uniform(0, s), 3)) for _ in range(rng.randint(4, 9))]
        cases.append(Polygon(pts))
    return cases


def validity_cases():
    out = []
    geoms = invalid_polygons() + [random_polygon(*gk_centre(), 300) for _ in range(10)]
    for g in geoms:
        reason = shapely.is_valid_reason(g)
        fixed = shapely.make_valid(g)
        out.append({"geometry": wkt(g), "valid": bool(g.is_valid),
                    "reason": reason.split("[")[0], "make_valid_area": fixed.area})
    return out


TRANSFORM_TARGETS = ["EPSG:4547", "EPSG:4526", "EPSG:3857", "EPSG:4546", "EPSG:4548", "EPSG:32650"]


def transform_cases(n):
    lon = np.array([rng.uniform(108.4, 116.1) for _ in range(n)])
    lat = np.array([rng.uniform(29.1, 33.2) for _ in range(n)])
    # Landmarks named in the references (Hankou, Ezhou, Huangshi, Zhucheng in Xinzhou).
    lon = np.concatenate([[114.3055, 114.8949, 115.0389, 114.80], lon])
    lat = np.concatenate([[30.5928, 30.3910, 30.1995, 30.84], lat])
    out = []
    for target in TRANSFORM_TARGETS:
        t = pyproj.Transformer.from_crs("EPSG:4490", target, always_xy=True)
        x, y = t.transform(lon, lat)
        out.append({"from": "EPSG:4490", "to": target,
                    "points": [[float(a), float(b)] for a, b in zip(lon, lat)],
                    "expected": [[float(a), float(b)] for a, b in zip(x, y)]})
    return out


def geodesic_cases(n):
    geod = pyproj.Geod(a=6378137.0, rf=298.257222101)   # the CGCS2000 ellipsoid
    out = []
    for i in range(n):
        cx, cy = rng.uniform(108.4, 116.1), rng.uniform(29.1, 33.2)
        r = rng.uniform(0.001, 0.5)
        if i % 2:
            shell = [(cx + r * math.cos(a) * rng.uniform(0.5, 1), cy + r * math.sin(a) * rng.uniform(0.5, 1))
                     for a in sorted(rng.uniform(0, 2 * math.pi) for _ in range(rng.randint(4, 16)))]
            g = Polygon(shell)
            if not g.is_valid:
                continue
        else:
            g = LineString([(cx + rng.uniform(-r, r), cy + rng.uniform(-r, r)) for _ in range(rng.randint(2, 10))])
        # pyproj gives a LineString the area of its closing polygon; a line has no area.
        area = abs(geod.geometry_area_perimeter(g)[0]) if g.geom_type == "Polygon" else 0.0
        out.append({"geometry": wkt(g), "length": geod.geometry_length(g), "area": area})
    return out


def main():
    doc = {
        "generator": "Scripts/reference/make_geocore_fixtures.py",
        "seed": SEED,
        "shapely": shapely.__version__,
        "geos": ".".join(map(str, shapely.geos_version)),
        "pyproj": pyproj.__version__,
        "proj": pyproj.proj_version_str,
        "predicates": predicate_cases(300),
        "overlay": overlay_cases(150),
        "buffer": buffer_cases(150),
        "validity": validity_cases(),
        "transforms": transform_cases(200),
        "geodesic": geodesic_cases(100),
    }
    json.dump(doc, sys.stdout, ensure_ascii=False, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

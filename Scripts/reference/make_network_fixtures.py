#!/usr/bin/env python3
"""Road-network routing fixtures for Tests/NetworkAnalysisTests (issue 6).

Writes Tests/NetworkAnalysisTests/Fixtures/roads-grid.json: a random-ish road network in
metres (CGCS2000 / 3-degree Gauss-Kruger CM 114E, EPSG:4547) and the answers networkx gives on
the SAME network for

* routes between query points snapped to the nearest position on the nearest road piece
  (partial first/last piece, networkx on a graph with virtual nodes at those positions),
  for the driving profile (speed_kmh, one-way honoured) and walking (5 km/h, two-way);
* routes with roads closed by a small rectangle placed on the unclosed route (so they reroute);
* service areas: which graph nodes are reachable within a break, and which are not.

The splitting of lines into pieces (nodes = line ends and vertices shared by two or more line
vertices, exact to the millimetre) and the snapping are implemented here independently of the
Swift code. Run: .venv/bin/python Scripts/reference/make_network_fixtures.py
"""
import json
import math
import os
import random

import networkx as nx
from shapely.geometry import LineString, Polygon, box

SEED = 20240521
WALK_KMH = 5.0
X0, Y0 = 500000.0, 3380000.0
N = 12          # grid nodes per side
SPACING = 150.0

rng = random.Random(SEED)


def make_lines():
    grid = {}
    for i in range(N):
        for j in range(N):
            grid[i, j] = (round(X0 + i * SPACING + rng.uniform(-25, 25), 3),
                          round(Y0 + j * SPACING + rng.uniform(-25, 25), 3))
    lines = []

    def emit(cells, cls, speed, oneway):
        coords = []
        for k, c in enumerate(cells):
            p = grid[c]
            if k > 0 and rng.random() < 0.3:   # a bend that no other line shares
                q = coords[-1]
                mid = ((q[0] + p[0]) / 2 + rng.uniform(-12, 12), (q[1] + p[1]) / 2 + rng.uniform(-12, 12))
                coords.append((round(mid[0], 3), round(mid[1], 3)))
            coords.append(p)
        if oneway and rng.random() < 0.5:
            coords.reverse()
        lines.append({"id": f"R{len(lines) + 1:04d}", "coordinates": [list(c) for c in coords],
                      "speed_kmh": speed, "oneway": oneway, "class": cls})

    for axis in (0, 1):
        for a in range(N):
            arterial = a % 4 == 0
            cls, speed = ("主干路", 50) if arterial else (rng.choice(["次干路", "支路"]), rng.choice([20, 30, 40]))
            b = 0
            while b < N - 1:
                run = rng.randint(2, 6)
                end = min(N - 1, b + run)
                cells = [(a, k) if axis == 0 else (k, a) for k in range(b, end + 1)]
                if arterial or rng.random() > 0.12:   # a few gaps
                    emit(cells, cls, speed, (not arterial) and rng.random() < 0.25)
                b = end
    # An elevated diagonal: crosses streets without shared vertices (no junctions).
    lines.append({"id": "R-elevated", "coordinates": [list(grid[0, 3]), list(grid[8, 11])],
                  "speed_kmh": 80, "oneway": False, "class": "快速路"})
    return lines


def split(lines):
    key = lambda p: (round(p[0] * 1000), round(p[1] * 1000))
    uses = {}
    for ln in lines:
        c = ln["coordinates"]
        for p in c:
            uses[key(p)] = uses.get(key(p), 0) + 1
        uses[key(c[0])] += 1
        uses[key(c[-1])] += 1
    nodes, pieces = {}, []
    for li, ln in enumerate(lines):
        c = ln["coordinates"]
        start = 0
        for j in range(1, len(c)):
            if j == len(c) - 1 or uses[key(c[j])] > 1:
                part = c[start:j + 1]
                a = nodes.setdefault(key(c[start]), (len(nodes), tuple(c[start])))[0]
                b = nodes.setdefault(key(c[j]), (len(nodes), tuple(c[j])))[0]
                pieces.append({"from": a, "to": b, "line": li, "coords": part,
                               "length": LineString(part).length})
                start = j
    positions = [None] * len(nodes)
    for n, p in nodes.values():
        positions[n] = p
    return positions, pieces


def speed(ln, profile):
    return WALK_KMH if profile == "walking" else ln["speed_kmh"]


def two_way(ln, profile):
    return profile == "walking" or not ln["oneway"]


def graph(lines, pieces, profile, closed=frozenset(), points=()):
    """MultiDiGraph in seconds; `points` = [(name, piece, offset)] become virtual nodes."""
    g = nx.MultiDiGraph()
    on_piece = {}
    for name, p, off in points:
        on_piece.setdefault(p, []).append((off, name))
    for i, pc in enumerate(pieces):
        if i in closed:
            continue
        ln = lines[pc["line"]]
        full = pc["length"] / (speed(ln, profile) / 3.6)
        chain = [(0.0, pc["from"])] + sorted(on_piece.get(i, [])) + [(pc["length"], pc["to"])]
        for (o1, n1), (o2, n2) in zip(chain, chain[1:]):
            w = full * (o2 - o1) / pc["length"] if pc["length"] > 0 else 0.0
            g.add_edge(n1, n2, key=i, weight=w)
            if two_way(ln, profile):
                g.add_edge(n2, n1, key=i, weight=w)
    return g


def snap(pieces, pt, closed=frozenset()):
    from shapely.geometry import Point
    q = Point(pt)
    ds = sorted((LineString(pc["coords"]).distance(q), i) for i, pc in enumerate(pieces) if i not in closed)
    (d0, i0), (d1, _) = ds[0], ds[1]
    return i0, LineString(pieces[i0]["coords"]).project(q), d1 - d0


def query_point(pieces):
    while True:
        i = rng.randrange(len(pieces))
        ls = LineString(pieces[i]["coords"])
        if ls.length < 20:
            continue
        t = rng.uniform(0.1, 0.9) * ls.length
        p = ls.interpolate(t)
        # perpendicular offset from the local direction
        a, b = ls.interpolate(max(0, t - 1)), ls.interpolate(min(ls.length, t + 1))
        dx, dy = b.x - a.x, b.y - a.y
        n = math.hypot(dx, dy)
        side = rng.uniform(-6, 6)
        pt = (round(p.x - dy / n * side, 3), round(p.y + dx / n * side, 3))
        j, off, margin = snap(pieces, pt)
        if margin > 0.5:
            return pt


def cost(lines, pieces, profile, a, b, closed=frozenset()):
    pa, oa, _ = snap(pieces, a, closed)
    pb, ob, _ = snap(pieces, b, closed)
    if pa == pb and abs(oa - ob) < 1e-9:
        return 0.0, None
    g = graph(lines, pieces, profile, closed, [("O", pa, oa), ("D", pb, ob)])
    try:
        s, path = nx.single_source_dijkstra(g, "O", "D", weight="weight")
        return s, path
    except nx.NetworkXNoPath:
        return None, None


def main():
    lines = make_lines()
    nodes, pieces = split(lines)
    out = {"crs": "EPSG:4547", "note": "generated by Scripts/reference/make_network_fixtures.py (networkx "
           + nx.__version__ + ")", "lines": lines, "nodeCount": len(nodes), "pieceCount": len(pieces),
           "routes": [], "closures": [], "isochrones": []}
    for k in range(160):
        profile = "walking" if k % 4 == 3 else "driving"
        a, b = query_point(pieces), query_point(pieces)
        s, _ = cost(lines, pieces, profile, a, b)
        out["routes"].append({"from": list(a), "to": list(b), "profile": profile, "seconds": s})
    made = 0
    while made < 12:
        a, b = query_point(pieces), query_point(pieces)
        s, path = cost(lines, pieces, "driving", a, b)
        if s is None or path is None or len(path) < 5:
            continue
        mid = nodes[path[len(path) // 2]] if isinstance(path[len(path) // 2], int) else None
        if mid is None:
            continue
        area = box(mid[0] - 15, mid[1] - 15, mid[0] + 15, mid[1] + 15)
        closed = frozenset(i for i, pc in enumerate(pieces) if LineString(pc["coords"]).intersects(area))
        if snap(pieces, a)[0] in closed or snap(pieces, b)[0] in closed:
            continue
        if snap(pieces, a, closed)[2] <= 0.5 or snap(pieces, b, closed)[2] <= 0.5:
            continue
        s2, _ = cost(lines, pieces, "driving", a, b, closed)
        out["closures"].append({"from": list(a), "to": list(b), "area": [list(p) for p in area.exterior.coords],
                                "closedPieces": len(closed), "openSeconds": s, "seconds": s2})
        made += 1
    for k in range(10):
        profile = "walking" if k % 2 else "driving"
        limit = rng.choice([300.0, 600.0]) if profile == "walking" else rng.choice([30.0, 60.0, 90.0])
        a = query_point(pieces)
        pa, oa, _ = snap(pieces, a)
        g = graph(lines, pieces, profile, frozenset(), [("O", pa, oa)])
        dist = nx.single_source_dijkstra_path_length(g, "O", weight="weight")
        reach, unreach = [], []
        for n, p in enumerate(nodes):
            d = dist.get(n, math.inf)
            if abs(d - limit) < 1e-6:
                continue
            (reach if d <= limit else unreach).append(list(p))
        out["isochrones"].append({"at": list(a), "profile": profile, "seconds": limit,
                                  "reachable": reach, "unreachable": unreach})
    path = os.path.join(os.path.dirname(__file__), "../../Tests/NetworkAnalysisTests/Fixtures/roads-grid.json")
    with open(path, "w") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
    print(f"{len(lines)} lines, {len(nodes)} nodes, {len(pieces)} pieces, "
          f"{sum(r['seconds'] is None for r in out['routes'])} unreachable routes")


if __name__ == "__main__":
    main()

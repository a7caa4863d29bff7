#!/usr/bin/env python3
"""Road-access fixtures for Tests/NetworkAnalysisTests (issue 22).

Writes Tests/NetworkAnalysisTests/Fixtures/road-access-grid.json: a grid of streets in metres
(one line per block side, random speeds, a quarter of them one-way) with shelters at block
centres (100 m from four streets; some moved 2 cm, a tie, or 30 cm, not a tie) and incidents on
junctions (many where a one-way street starts), on streets and off them, and the travel times
networkx gives from every incident to every shelter, driving (one-way honoured) and walking
(5 km/h, two-way), under the rules the issue asks for:

* a point meets every street whose distance is within 5 cm of the nearest one;
* a search starts from all of the origin's positions and the best arrival at any of the
  target's positions wins;
* a position on a junction is the junction node itself (every street leaving it may be taken).

Everything (distances, projection, splitting streets at virtual nodes) is computed here
independently of the Swift code. Run: .venv/bin/python Scripts/reference/make_road_access_fixtures.py
"""
import json
import math
import os
import random

import networkx as nx

SEED = 20261122
WALK_KMH = 5.0
TIE_METRES = 0.05
X0, Y0 = 500000.0, 3380000.0
N = 6           # junctions per side
SPACING = 200.0

rng = random.Random(SEED)


def make_lines():
    lines = []
    for i in range(N):
        for j in range(N):
            a = (X0 + i * SPACING, Y0 + j * SPACING)
            for di, dj in ((1, 0), (0, 1)):
                if i + di >= N or j + dj >= N:
                    continue
                b = (X0 + (i + di) * SPACING, Y0 + (j + dj) * SPACING)
                oneway = rng.random() < 0.25
                coords = [a, b] if rng.random() < 0.5 else [b, a]
                lines.append({"id": f"R{len(lines):03d}", "coordinates": [list(c) for c in coords],
                              "speed_kmh": rng.choice([30, 40, 50]), "oneway": oneway})
    return lines


def project(p, a, b):
    """Distance from p to segment ab and the offset (metres from a) of the nearest point."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (length * length)
    t = min(max(t, 0.0), 1.0)
    q = (a[0] + t * dx, a[1] + t * dy)
    return math.hypot(p[0] - q[0], p[1] - q[1]), t * length


def accesses(point, lines):
    """(line index, offset) of every street within TIE_METRES of the nearest one."""
    found = [(project(point, l["coordinates"][0], l["coordinates"][1]), k) for k, l in enumerate(lines)]
    nearest = min(d for (d, _), _ in found)
    return [(k, off) for (d, off), k in found if d <= nearest + TIE_METRES]


def graph(lines, points, walking):
    """A directed graph with the junctions and a virtual node for every access position."""
    cuts = {}
    for name, positions in points.items():
        for k, off in positions:
            cuts.setdefault(k, []).append((off, name))
    g = nx.DiGraph()
    for k, l in enumerate(lines):
        a, b = tuple(l["coordinates"][0]), tuple(l["coordinates"][1])
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        speed = (WALK_KMH if walking else l["speed_kmh"]) / 3.6
        stops = [(0.0, a)] + sorted((off, ("v", k, off)) for off, _ in cuts.get(k, [])) + [(length, b)]
        for (o1, n1), (o2, n2) in zip(stops, stops[1:]):
            cost = (o2 - o1) / speed
            for u, v in ([(n1, n2)] if l["oneway"] and not walking else [(n1, n2), (n2, n1)]):
                if g.has_edge(u, v):
                    cost = min(cost, g[u][v]["weight"])
                g.add_edge(u, v, weight=cost)
    return g


def node_of(lines, k, off):
    """The graph node of a position: the junction at either end, else the virtual node."""
    a, b = tuple(lines[k]["coordinates"][0]), tuple(lines[k]["coordinates"][1])
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if off <= 1e-3:
        return a
    if length - off <= 1e-3:
        return b
    return ("v", k, off)


def main():
    lines = make_lines()
    shelters = []
    for i in range(N - 1):
        for j in range(N - 1):
            if rng.random() < 0.6:
                x, y = X0 + (i + 0.5) * SPACING, Y0 + (j + 0.5) * SPACING
                move = rng.choice([0.0, 0.0, 0.02, 0.3])
                shelters.append({"id": f"SH{len(shelters):02d}", "position": [x + move, y]})
    incidents = []
    starts = {tuple(l["coordinates"][0]) for l in lines if l["oneway"]}
    for (x, y) in sorted(starts)[:10]:
        incidents.append({"id": f"J{len(incidents):02d}", "position": [x, y]})
    for _ in range(6):
        l = rng.choice(lines)
        (ax, ay), (bx, by) = l["coordinates"]
        t = rng.uniform(0.1, 0.9)
        incidents.append({"id": f"S{len(incidents):02d}", "position": [ax + t * (bx - ax), ay + t * (by - ay)]})
    for _ in range(4):
        incidents.append({"id": f"P{len(incidents):02d}",
                          "position": [X0 + rng.uniform(0, (N - 1) * SPACING), Y0 + rng.uniform(0, (N - 1) * SPACING)]})

    points = {}
    for s in shelters + incidents:
        points[s["id"]] = accesses(tuple(s["position"]), lines)
    answers = {}
    for profile, walking in (("driving", False), ("walking", True)):
        g = graph(lines, points, walking)
        table = {}
        for inc in incidents:
            sources = {node_of(lines, k, off) for k, off in points[inc["id"]]}
            dist = nx.multi_source_dijkstra_path_length(g, sources, weight="weight")
            row = {}
            for s in shelters:
                best = min((dist.get(node_of(lines, k, off), math.inf) for k, off in points[s["id"]]), default=math.inf)
                row[s["id"]] = None if math.isinf(best) else round(best, 9)
            table[inc["id"]] = row
        answers[profile] = table
    out = {
        "description": "Grid streets in metres (EPSG:4547-like); travel seconds from incidents to shelters by networkx with "
                       "tied road positions (5 cm) as alternative ends and junction positions as the junction node. "
                       "Generated by Scripts/reference/make_road_access_fixtures.py.",
        "tieMetres": TIE_METRES,
        "lines": lines,
        "shelters": shelters,
        "incidents": incidents,
        "ties": {k: len(v) for k, v in points.items()},
        "seconds": answers,
    }
    path = os.path.join(os.path.dirname(__file__), "../../Tests/NetworkAnalysisTests/Fixtures/road-access-grid.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {os.path.normpath(path)}: {len(lines)} streets, {len(shelters)} shelters, {len(incidents)} incidents")


if __name__ == "__main__":
    main()

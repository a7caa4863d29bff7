#!/usr/bin/env python3
"""Turn-restriction routing fixtures for Tests/NetworkAnalysisTests (issue 6).

Writes Tests/NetworkAnalysisTests/Fixtures/turn-restrictions-grid.json: a jittered grid of
streets in metres (EPSG:4547), every block side its own road (so each road is one piece), some
one-way, with random turn restrictions (no_* and only_*, U-turn bans included) whose kind is
the geometric class of the turn, and the driving travel times networkx gives between points on
the roads.

The reference is computed independently of the Swift node splitting, on the edge-based (line)
graph: one networkx node per directed arc (the state "has just driven along this arc"), an
edge a -> b for each permitted turn at a junction weighted by b's travel time, a source joined
to the two arcs of the origin's road (partial cost to their heads) and a target reached from
every arc that may turn into the target's road (partial cost from that road's end). Run:
.venv/bin/python Scripts/reference/make_turn_restriction_fixtures.py
"""
import json
import math
import os
import random

import networkx as nx

SEED = 20261122
X0, Y0 = 500000.0, 3380000.0
N = 8            # junctions per side
SPACING = 120.0
RESTRICTIONS = 70
QUERIES = 60

rng = random.Random(SEED)


def turn_class(d1, d2):
    """Same classes as the Swift `Turn`: left = counter-clockwise > 45 deg, U-turn > 150 deg."""
    cross = d1[0] * d2[1] - d1[1] * d2[0]
    dot = d1[0] * d2[0] + d1[1] * d2[1]
    deg = math.degrees(math.atan2(cross, dot))
    if abs(deg) > 150:
        return "u_turn"
    if deg > 45:
        return "left_turn"
    if deg < -45:
        return "right_turn"
    return "straight_on"


def main():
    pos = {}
    for i in range(N):
        for j in range(N):
            pos[i, j] = (round(X0 + i * SPACING + rng.uniform(-10, 10), 3),
                         round(Y0 + j * SPACING + rng.uniform(-10, 10), 3))
    roads = []   # id, a, b (junction keys), speed, oneway
    for i in range(N):
        for j in range(N):
            for di, dj in ((1, 0), (0, 1)):
                k = (i + di, j + dj)
                if k not in pos:
                    continue
                a, b = (i, j), k
                oneway = rng.random() < 0.2
                if oneway and rng.random() < 0.5:
                    a, b = b, a
                roads.append({"id": f"S{len(roads) + 1:03d}", "a": a, "b": b,
                              "speed_kmh": rng.choice([20, 30, 40, 50]), "oneway": oneway})

    # Directed arcs: (road index, forward?) with tail, head, seconds.
    arcs = []
    for r, road in enumerate(roads):
        pa, pb = pos[road["a"]], pos[road["b"]]
        length = math.hypot(pb[0] - pa[0], pb[1] - pa[1])
        secs = length / (road["speed_kmh"] / 3.6)
        road["length"] = length
        arcs.append({"road": r, "fwd": True, "tail": road["a"], "head": road["b"], "cost": secs})
        if not road["oneway"]:
            arcs.append({"road": r, "fwd": False, "tail": road["b"], "head": road["a"], "cost": secs})
    leaving, entering = {}, {}
    for k, a in enumerate(arcs):
        leaving.setdefault(a["tail"], []).append(k)
        entering.setdefault(a["head"], []).append(k)

    def direction(k):
        a = arcs[k]
        pt, ph = pos[a["tail"]], pos[a["head"]]
        return (ph[0] - pt[0], ph[1] - pt[1])

    def is_reverse(a, b):
        return arcs[a]["road"] == arcs[b]["road"] and arcs[a]["fwd"] != arcs[b]["fwd"]

    restrictions = []
    forbidden = set()
    junctions = sorted(pos)
    while len(restrictions) < RESTRICTIONS:
        v = rng.choice(junctions)
        if not entering.get(v) or not leaving.get(v):
            continue
        a = rng.choice(entering[v])
        b = rng.choice(leaving[v])
        cls = turn_class(direction(a), direction(b))
        if is_reverse(a, b) != (cls == "u_turn"):
            continue
        only = cls != "u_turn" and rng.random() < 0.3
        kind = ("only_" if only else "no_") + cls
        if only:
            newly = {(a, c) for c in leaving[v] if c != b}
        else:
            newly = {(a, b)}
        forbidden |= newly
        restrictions.append({"id": f"T{len(restrictions) + 1:03d}", "from": roads[arcs[a]["road"]]["id"],
                             "to": roads[arcs[b]["road"]]["id"], "via": list(pos[v]), "kind": kind})

    g = nx.DiGraph()
    for v in junctions:
        for a in entering.get(v, []):
            for b in leaving.get(v, []):
                if (a, b) not in forbidden:
                    g.add_edge(a, b, weight=arcs[b]["cost"])

    def point_on(r, f):
        pa, pb = pos[roads[r]["a"]], pos[roads[r]["b"]]
        return [pa[0] + f * (pb[0] - pa[0]), pa[1] + f * (pb[1] - pa[1])]

    queries = []
    while len(queries) < QUERIES:
        ro, rt = rng.randrange(len(roads)), rng.randrange(len(roads))
        if ro == rt:
            continue
        fo, ft = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        h = g.copy()
        for k, a in enumerate(arcs):
            if a["road"] == ro:
                part = a["cost"] * ((1 - fo) if a["fwd"] else fo)
                h.add_edge("O", k, weight=part)
        for k, a in enumerate(arcs):
            if a["road"] != rt:
                continue
            part = a["cost"] * (ft if a["fwd"] else (1 - ft))
            for p in entering.get(a["tail"], []):
                if (p, k) not in forbidden:
                    h.add_edge(p, "D", weight=part)
        try:
            secs = nx.dijkstra_path_length(h, "O", "D", weight="weight")
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            secs = None
        queries.append({"from": point_on(ro, fo), "to": point_on(rt, ft), "seconds": secs})

    lines = [{"id": r["id"], "coordinates": [list(pos[r["a"]]), list(pos[r["b"]])],
              "speed_kmh": r["speed_kmh"], "oneway": r["oneway"]} for r in roads]
    out = {"crs": "EPSG:4547",
           "note": f"generated by Scripts/reference/make_turn_restriction_fixtures.py (networkx {nx.__version__})",
           "lines": lines, "restrictions": restrictions, "routes": queries}
    path = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "NetworkAnalysisTests", "Fixtures",
                        "turn-restrictions-grid.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
    reached = sum(q["seconds"] is not None for q in queries)
    print(f"{len(lines)} roads, {len(restrictions)} restrictions, {reached}/{len(queries)} routes reachable")


if __name__ == "__main__":
    main()

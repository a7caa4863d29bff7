"""Reference traces and valve isolations from networkx for Tests/NetworkAnalysisTests/Utility*Tests.swift.

Writes Tests/NetworkAnalysisTests/Fixtures/utility_drainage.json and utility_water.json: seeded random
networks, random trace starts and random bursts (with random failed valves), and networkx's answers.
Water model: every main is two half-bodies (M#0 from side, M#1 to side); a valve next to a node cuts the
node–half edge, a mid-main valve the half–half edge. Isolation: BFS from the burst main over edges not
guarded by an operable valve (networkx.node_connected_component on the graph without guarded edges);
the guarded edges leaving the segment give the valves; then cut-off = vertices outside
networkx.node_connected_component(source) once those valves and the segment are removed.
Run: .venv/bin/python Scripts/reference/make_utility_fixtures.py
"""
import json, random, pathlib
import networkx as nx

OUT = pathlib.Path(__file__).resolve().parents[2] / "Tests/NetworkAnalysisTests/Fixtures"
rng = random.Random(4242)

def drainage_case(i):
    n = rng.randint(8, 40)
    nodes = [f"MH{i}-{k}" for k in range(n)]
    # A forest of tree-like sewers draining to outfalls, plus a few extra links (still acyclic: low → high index).
    pipes = []
    for k in range(1, n):
        pipes.append((f"P{i}-{k}", nodes[k], nodes[rng.randrange(0, k)]))
    for e in range(rng.randint(0, n // 4)):
        a, b = sorted(rng.sample(range(n), 2))
        pipes.append((f"X{i}-{e}", nodes[b], nodes[a]))
    g = nx.MultiDiGraph()
    g.add_nodes_from(nodes)
    for pid, a, b in pipes: g.add_edge(a, b, key=pid)
    queries = []
    for _ in range(4):
        start = rng.choice(nodes)
        for direction in ("up", "down"):
            reach = (nx.ancestors if direction == "up" else nx.descendants)(g, start) | {start}
            if direction == "down":
                links = [pid for pid, a, b in pipes if a in reach]
            else:
                links = [pid for pid, a, b in pipes if b in reach]
            queries.append({"start": start, "direction": direction, "nodes": sorted(reach), "links": sorted(links)})
    return {"nodes": nodes, "pipes": [{"id": p, "from": a, "to": b} for p, a, b in pipes], "queries": queries}

def water_case(i):
    side = rng.randint(3, 6)
    nodes = [f"N{i}-{r}-{c}" for r in range(side) for c in range(side)]
    mains = []
    for r in range(side):
        for c in range(side):
            if c + 1 < side and rng.random() < 0.9: mains.append((f"M{i}-{len(mains)}", f"N{i}-{r}-{c}", f"N{i}-{r}-{c+1}"))
            if r + 1 < side and rng.random() < 0.9: mains.append((f"M{i}-{len(mains)}", f"N{i}-{r}-{c}", f"N{i}-{r+1}-{c}"))
    sources = rng.sample(nodes, rng.randint(1, 2))
    valves = []
    for mid, a, b in mains:
        for node in (a, b):
            if rng.random() < 0.4: valves.append({"id": f"V{i}-{len(valves)}", "main": mid, "node": node})
        if rng.random() < 0.05: valves.append({"id": f"V{i}-{len(valves)}", "main": mid, "node": None})
    connections = []
    for mid, a, b in mains:
        for _ in range(rng.randint(0, 2)):
            connections.append({"id": f"C{i}-{len(connections)}", "main": mid, "node": None,
                                "address": f"A{len(connections)}", "critical": rng.random() < 0.1})
    for node in rng.sample(nodes, side):
        connections.append({"id": f"C{i}-{len(connections)}", "main": None, "node": node, "address": None, "critical": False})

    def graph(closed, removed=()):
        g = nx.Graph()
        g.add_nodes_from(nodes)
        guard = {}
        for v in valves:
            m = next(x for x in mains if x[0] == v["main"])
            if v["node"] is None: e = (m[0] + "#0", m[0] + "#1")
            elif v["node"] == m[1]: e = (m[1], m[0] + "#0")
            else: e = (m[0] + "#1", m[2])
            guard.setdefault(frozenset(e), []).append(v["id"])
        for mid, a, b in mains:
            for e in ((a, mid + "#0"), (mid + "#0", mid + "#1"), (mid + "#1", b)):
                gs = guard.get(frozenset(e), [])
                if any(x in closed for x in gs): continue
                g.add_edge(*e, valves=gs)
        g.remove_nodes_from(removed)
        return g, guard

    bursts = []
    for _ in range(5):
        burst = rng.choice(mains)[0]
        failed = set(v["id"] for v in valves if rng.random() < 0.15)
        full, guard = graph(closed=())
        # Segment: edges whose valves are all failed (or none) are passable.
        seg = nx.Graph()
        seg.add_nodes_from(full.nodes)
        for a, b, d in full.edges(data=True):
            if all(v in failed for v in d["valves"]): seg.add_edge(a, b)
        segment = nx.node_connected_component(seg, burst + "#0") | nx.node_connected_component(seg, burst + "#1")
        close = set()
        for a, b, d in full.edges(data=True):
            if (a in segment) != (b in segment):
                operable = sorted(v for v in d["valves"] if v not in failed)
                if operable: close.add(operable[0])
        g2, _ = graph(closed=close, removed=segment)
        fed = set()
        for s in sources:
            if s in g2: fed |= nx.node_connected_component(g2, s)
        mains_out = sorted(mid for mid, a, b in mains if mid + "#0" not in fed or mid + "#1" not in fed)
        nodes_out = sorted(x for x in nodes if x not in fed)
        conn_out = [c for c in connections if (c["main"] in mains_out) if c["main"]] + \
                   [c for c in connections if c["node"] is not None and c["node"] not in fed]
        bursts.append({
            "main": burst, "failed": sorted(failed), "valves": sorted(close),
            "segment": sorted(mid for mid, a, b in mains if mid + "#0" in segment or mid + "#1" in segment),
            "mainsCutOff": mains_out, "nodesCutOff": nodes_out,
            "connectionsCutOff": sorted(c["id"] for c in conn_out),
            "critical": sorted(c["id"] for c in conn_out if c["critical"]),
            "addresses": sorted(set(c["address"] for c in conn_out if c["address"])),
        })
    return {"nodes": nodes, "mains": [{"id": m, "from": a, "to": b} for m, a, b in mains], "sources": sources,
            "valves": valves, "connections": connections, "bursts": bursts}

OUT.mkdir(parents=True, exist_ok=True)
(OUT / "utility_drainage.json").write_text(json.dumps([drainage_case(i) for i in range(30)], ensure_ascii=False, indent=0))
(OUT / "utility_water.json").write_text(json.dumps([water_case(i) for i in range(30)], ensure_ascii=False, indent=0))
print("wrote", OUT / "utility_drainage.json", OUT / "utility_water.json")

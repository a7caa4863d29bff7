"""`api_bench.py tiles`: dynamic z14 MVT, `citytwin serve` against PostGIS ST_AsMVT per tile."""
import http.client
import math
import os
import queue
import threading
import time
from pathlib import Path

from api_common import BACKENDS, CLIENTS, DB, LAYER, N_PARCELS, ROUNDS, ZOOM, log, pg_connect, psql, Server, stores


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
    # API_BENCH_TILES (default: every tile): at most that many tiles of the other layers and as many
    # of the parcels, evenly spread over each list (a smoke run).
    most = int(os.environ.get("API_BENCH_TILES", "0"))
    if most > 0:
        def spread(js):
            return js[::max(1, len(js) // most)][:most]
        jobs = spread([j for j in jobs if j[0] != LAYER]) + spread([j for j in jobs if j[0] == LAYER])
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

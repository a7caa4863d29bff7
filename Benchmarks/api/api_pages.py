"""`api_bench.py pages`: 1,000-item pages through 100,000 features, `citytwin serve` against pygeoapi."""
import http.client
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from api_common import (
    BACKENDS, DB, EAST, LAYER, N_PARCELS, NORTH, ROUNDS, SOUTH, WEST, free_port, log, pg_parts, run, Server,
    stores, terminate, wait_until_answering,
)


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
        terminate(self.proc)
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

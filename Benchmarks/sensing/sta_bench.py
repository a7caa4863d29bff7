"""SensorThings ingest and read on `citytwin serve`, SpatiaLite and PostGIS side by side.

  python3 Benchmarks/sensing/sta_bench.py BINARY PGBASE WORKDIR

BINARY is a release `citytwin`; PGBASE a postgresql://user:pass@host:port URL without a database
(the benchmark uses its own database, citytwin_sta, created as needed). Sizes come from the
environment: STA_BENCH_OBSERVATIONS (1,000,000; the issue's figure is 10,000,000),
STA_BENCH_DATASTREAMS (100), STA_BENCH_BATCH (10,000 rows per CreateObservations request),
STA_BENCH_QUERIES (200).

What is measured, per backend, on a fresh sample district served by `citytwin serve`:
- ingest: observations per second through POST /sta/v1.1/CreateObservations (Data Array), one
  client connection, batches of STA_BENCH_BATCH rows of one Datastream each, readings one minute
  apart, every request acknowledged (201) before the next: the wall time of all requests;
- last-day read: GET Datastreams(id)/Observations with `$filter=phenomenonTime ge <last day>`,
  `$orderby=phenomenonTime`, `$top=10000`, `$resultFormat=dataArray` for a random Datastream
  (1,440 readings each): p50 and p95 latency of STA_BENCH_QUERIES requests.
FROST-Server (Java, with its own PostgreSQL schema) is the published peer; it is not installed here,
so no FROST column is printed.
"""

import datetime as dt
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pg_tools import psql  # noqa: E402

N = int(os.environ.get("STA_BENCH_OBSERVATIONS", 1_000_000))
D = int(os.environ.get("STA_BENCH_DATASTREAMS", 100))
B = int(os.environ.get("STA_BENCH_BATCH", 10_000))
Q = int(os.environ.get("STA_BENCH_QUERIES", 200))
END = dt.datetime(2026, 6, 30, tzinfo=dt.timezone.utc)


def fresh_pg(base, db="citytwin_sta"):
    if psql(base, "citytwin", f"SELECT 1 FROM pg_database WHERE datname = '{db}'"):
        psql(base, "citytwin", f"DROP DATABASE {db}")
    psql(base, "citytwin", f"CREATE DATABASE {db}")
    psql(base, db, "CREATE EXTENSION IF NOT EXISTS postgis")
    return f"{base.rstrip('/')}/{db}"


def free_port(variable="STA_BENCH_PORT"):
    if os.environ.get(variable):  # a port of one's own on a shared machine
        return int(os.environ[variable])
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def serve(binary, store, workdir, options=(), port_variable="STA_BENCH_PORT", log_name="serve"):
    """`citytwin serve` on STORE with OPTIONS, a token of an admin, once /health answers."""
    port = free_port(port_variable)
    log = open(workdir / f"{log_name}-{port}.log", "w")
    # A PostGIS store keeps no secret file: both processes get the same secret.
    env = dict(os.environ, CITYTWIN_TOKEN_SECRET=os.urandom(32).hex())
    p = subprocess.Popen([binary, "serve", "--store", store, "--port", str(port), "--log-level", "warning", *options],
                         stdout=log, stderr=subprocess.STDOUT, env=env)
    token = subprocess.run([binary, "token", "create", "--role", "admin", "--subject", "sta-bench", "--store", store],
                           capture_output=True, text=True, check=True, env=env).stdout.strip()
    for _ in range(600):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/health")
            if c.getresponse().status == 200:
                return p, port, token
        except OSError:
            time.sleep(0.1)
        if p.poll() is not None:
            raise SystemExit(f"citytwin serve exited ({p.returncode}); see {log.name}")
    p.kill()
    raise SystemExit("citytwin serve did not answer")


def request(c, method, path, token, body=None):
    headers = {"Authorization": f"Bearer {token}"}
    data = None
    if body is not None:
        data = json.dumps(body, separators=(",", ":")).encode()
        headers["Content-Type"] = "application/json"
    c.request(method, path, body=data, headers=headers)
    r = c.getresponse()
    text = r.read()
    if r.status >= 300:
        raise SystemExit(f"{method} {path}: {r.status} {text[:300]!r}")
    return r, text


def datastreams(c, token):
    ids = []
    for i in range(D):
        thing = {"name": f"bench gauge {i}", "description": "benchmark",
                 "Locations": [{"name": f"site {i}", "description": "benchmark site", "encodingType": "application/geo+json",
                                "location": {"type": "Point", "coordinates": [114.80 + i * 1e-4, 30.84]}}],
                 "Datastreams": [{"name": "level", "description": "stage", "unitOfMeasurement": {"name": "metre", "symbol": "m"},
                                  "observationType": "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_Measurement",
                                  "Sensor": {"name": "radar", "description": "radar", "encodingType": "text/html", "metadata": "-"},
                                  "ObservedProperty": {"name": "level", "definition": "urn:level", "description": "stage"}}]}
        r, _ = request(c, "POST", "/sta/v1.1/Things", token, thing)
        tid = r.getheader("Location").rsplit("(", 1)[1].rstrip(")")
        _, text = request(c, "GET", f"/sta/v1.1/Things({tid})/Datastreams?$select=id", token)
        ids.append(json.loads(text)["value"][0]["@iot.id"])
    return ids


def stamp(minutes_before_end):
    return (END - dt.timedelta(minutes=minutes_before_end)).strftime("%Y-%m-%dT%H:%M:%SZ")


def ingest(c, token, ids):
    per = N // len(ids)
    # Every Datastream gets the same readings (one a minute up to END): each row's JSON is made once and
    # the bodies are joined from it (at 10 M rows, encoding row by row took minutes).
    row_json = [json.dumps([stamp(per - 1 - k), round(20 + (k % 1440) / 1440, 3)], separators=(",", ":"))
                for k in range(per)]
    bodies = []  # encoded before the clock starts
    for ds in ids:
        for start in range(0, per, B):
            end = min(per, start + B)
            head = json.dumps({"Datastream": {"@iot.id": ds}, "components": ["phenomenonTime", "result"],
                               "dataArray@iot.count": end - start}, separators=(",", ":"))[:-1]
            bodies.append(f'[{head},"dataArray":[{",".join(row_json[start:end])}]}}]'.encode())
    del row_json
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    # The server closes a connection idle past its --idle-timeout: encoding a large run takes longer,
    # so start the timed run on a fresh connection (opened by one untimed request).
    c.close()
    request(c, "GET", "/health", token)
    t = time.perf_counter()
    for body in bodies:
        c.request("POST", "/sta/v1.1/CreateObservations", body=body, headers=headers)
        r = c.getresponse()
        r.read()
        if r.status != 201:
            raise SystemExit(f"CreateObservations: {r.status}")
    seconds = time.perf_counter() - t
    return per * len(ids), seconds


def last_day(c, token, ids):
    since = stamp(24 * 60 - 1)
    rnd = random.Random(7)
    times = []
    rows = None
    for _ in range(Q):
        ds = rnd.choice(ids)
        path = (f"/sta/v1.1/Datastreams({ds})/Observations?%24filter=" + urllib.parse.quote(f"phenomenonTime ge {since}")
                + "&%24orderby=phenomenonTime&%24top=10000&%24resultFormat=dataArray&%24select=phenomenonTime,result")
        t = time.perf_counter()
        _, text = request(c, "GET", path, token)
        times.append(time.perf_counter() - t)
        rows = json.loads(text)["value"][0]["dataArray@iot.count"]
    times.sort()
    return times[len(times) // 2] * 1000, times[int(len(times) * 0.95)] * 1000, rows


def run(binary, store, workdir, label):
    server, port, token = serve(binary, store, workdir)
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        ids = datastreams(c, token)
        count, seconds = ingest(c, token, ids)
        p50, p95, rows = last_day(c, token, ids)
        return {"backend": label, "observations": count, "ingest_s": seconds, "obs_per_s": count / seconds,
                "read_p50_ms": p50, "read_p95_ms": p95, "rows": rows}
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    binary, base, workdir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    workdir.mkdir(parents=True, exist_ok=True)
    results = []
    sqlite = workdir / "sta.sqlite"
    for suffix in ["", "-wal", "-shm", ".token-secret"]:
        Path(str(sqlite) + suffix).unlink(missing_ok=True)
    layers = Path(__file__).resolve().parents[2] / "Layers"
    for store, label in [(str(sqlite), "SpatiaLite"), (fresh_pg(base), "PostGIS")]:
        subprocess.run([binary, "district", "build", "--store", store, "--layers", str(layers)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        results.append(run(binary, store, workdir, label))
    print(f"SensorThings on citytwin serve: {N:,} observations in {D} Datastreams, {B:,}-row CreateObservations batches, "
          f"{Q} last-day reads")
    print(f"{'backend':12} {'ingest obs/s':>13} {'ingest s':>9} {'last-day p50 ms':>16} {'p95 ms':>8} {'rows':>6}")
    for r in results:
        print(f"{r['backend']:12} {r['obs_per_s']:>13,.0f} {r['ingest_s']:>9.1f} {r['read_p50_ms']:>16.2f} {r['read_p95_ms']:>8.2f} {r['rows']:>6}")
    print("Issue 18 targets: ingest >= 50,000 obs/s (SpatiaLite), >= 30,000 (PostGIS); last-day read <= 5 ms p50 among 10 M.")


if __name__ == "__main__":
    main()

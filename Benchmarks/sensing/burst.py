"""A burst of observations on `citytwin serve`: every one acknowledged (201) or refused (429/503 with
Retry-After), none lost once acknowledged, none stored twice (issue 18 §6).

  python3 Benchmarks/sensing/burst.py BINARY WORKDIR [PGBASE]

BINARY is a `citytwin` (release for figures); the store is a fresh SpatiaLite sample district in
WORKDIR, or with PGBASE (a postgresql://user:pass@host:port URL without a database) a fresh
database citytwin_burst.
Sizes from the environment: BURST_OBSERVATIONS (1,000,000), BURST_DATASTREAMS (100), BURST_BATCH
(1,000 rows per CreateObservations request), BURST_CLIENTS (32 connections sending at once),
BURST_QUEUE (serve's --sensing-write-queue, 8), BURST_TOKEN_RATE / BURST_TOKEN_BURST (serve's
--token-rate 50 / --token-burst 500: a quota, which serve leaves off by default), BURST_PORT (a port of one's own).

Every client sends its share of the batches as fast as it can, all from ONE gateway token, so
the rate limit and the write queue refuse part of the burst; a refused batch is sent again after
its Retry-After, an acknowledged one never. Printed: the wall time until every observation was
acknowledged, acknowledged observations per second, the answers by status, and the check: the
store holds exactly the acknowledged observations, each once (`$count` per Datastream, and every
acknowledged @iot.id distinct); then a second pass re-sends 1% of the acknowledged batches and
checks they answer with the same ids and add nothing.
"""

import collections
import datetime as dt
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sta_bench  # noqa: E402  (one way to start the server and make a PostGIS database)

N = int(os.environ.get("BURST_OBSERVATIONS", 1_000_000))
D = int(os.environ.get("BURST_DATASTREAMS", 100))
B = int(os.environ.get("BURST_BATCH", 1_000))
C = int(os.environ.get("BURST_CLIENTS", 32))
QUEUE = os.environ.get("BURST_QUEUE", "8")
RATE = os.environ.get("BURST_TOKEN_RATE", "50")
RATE_BURST = os.environ.get("BURST_TOKEN_BURST", "500")
START = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)


def serve(binary, store, workdir):
    return sta_bench.serve(binary, store, workdir, ("--sensing-write-queue", QUEUE, "--token-rate", RATE, "--token-burst", RATE_BURST),
                           port_variable="BURST_PORT", log_name="burst-serve")


def call(c, method, path, token, body=None):
    headers = {"Authorization": f"Bearer {token}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    c.request(method, path, body=body, headers=headers)
    r = c.getresponse()
    return r.status, r.getheader("Retry-After"), r.read()


def patient(c, method, path, token, body=None):
    """`call`, sent again after Retry-After while refused (setup and checks are not the burst)."""
    while True:
        status, wait, text = call(c, method, path, token, body)
        if status not in (429, 503):
            return status, text
        time.sleep(float(wait or 1))


def setup(port, token):
    """D Things with one Datastream each (their creation is not part of the burst)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    ids = []
    for i in range(D):
        thing = {"name": f"burst gauge {i}", "description": "burst",
                 "Datastreams": [{"name": "level", "description": "stage", "unitOfMeasurement": {"name": "metre", "symbol": "m"},
                                  "observationType": "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_Measurement",
                                  "Sensor": {"name": "radar", "description": "radar", "encodingType": "text/html", "metadata": "-"},
                                  "ObservedProperty": {"name": "level", "definition": "urn:level", "description": "stage"}}]}
        status, text = patient(c, "POST", "/sta/v1.1/Things", token, json.dumps(thing).encode())
        if status != 201:
            raise SystemExit(f"POST Things: {status} {text[:300]!r}")
        tid = json.loads(text)["@iot.id"]
        _, text = patient(c, "GET", f"/sta/v1.1/Things({tid})/Datastreams?$select=id", token)
        ids.append(json.loads(text)["value"][0]["@iot.id"])
    return ids


def batches(ids):
    per = N // len(ids)
    out = []
    for ds in ids:
        for start in range(0, per, B):
            rows = [[(START + dt.timedelta(seconds=k)).strftime("%Y-%m-%dT%H:%M:%SZ"), round(20 + (k % 3600) / 3600, 4)]
                    for k in range(start, min(per, start + B))]
            out.append((ds, len(rows), json.dumps([{"Datastream": {"@iot.id": ds}, "components": ["phenomenonTime", "result"],
                                                   "dataArray@iot.count": len(rows), "dataArray": rows}],
                                                 separators=(",", ":")).encode()))
    return out


def burst(port, token, work):
    """Sends every batch until acknowledged; the answers by status, the acknowledged ids per batch."""
    statuses = collections.Counter()
    missing_retry_after = [0]
    acked = [None] * len(work)
    lock = threading.Lock()
    local = threading.local()

    def send(i):
        if not hasattr(local, "c"):
            local.c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        _, _, body = work[i]
        while True:
            try:
                status, wait, text = call(local.c, "POST", "/sta/v1.1/CreateObservations", token, body)
            except (OSError, http.client.HTTPException):
                local.c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                with lock:
                    statuses["connection error"] += 1
                continue
            with lock:
                statuses[status] += 1
            if status == 201:
                acked[i] = [int(link.rsplit("(", 1)[1].rstrip(")")) for link in json.loads(text)]
                return
            if status in (429, 503):
                if wait is None:
                    with lock:
                        missing_retry_after[0] += 1
                time.sleep(float(wait or 1))
                continue
            raise SystemExit(f"CreateObservations answered {status}: {text[:300]!r}")

    t = time.perf_counter()
    with ThreadPoolExecutor(max_workers=C) as pool:
        list(pool.map(send, range(len(work))))
    return time.perf_counter() - t, statuses, missing_retry_after[0], acked


def check(port, token, ids, work, acked):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    expected = collections.Counter()
    for (ds, n, _), got in zip(work, acked):
        assert got is not None and len(got) == n, "a batch without its ids"
        expected[ds] += n
    stored = 0
    for ds in ids:
        _, text = patient(c, "GET", f"/sta/v1.1/Datastreams({ds})/Observations?$count=true&$top=0", token)
        count = json.loads(text)["@iot.count"]
        if count != expected[ds]:
            raise SystemExit(f"Datastream {ds}: {count} stored, {expected[ds]} acknowledged")
        stored += count
    all_ids = [i for got in acked for i in got]
    if len(set(all_ids)) != len(all_ids):
        raise SystemExit("an @iot.id acknowledged twice")
    # Re-send 1% of the acknowledged batches: same ids, nothing added.
    for i in range(0, len(work), 100):
        status, text = patient(c, "POST", "/sta/v1.1/CreateObservations", token, work[i][2])
        again = [int(link.rsplit("(", 1)[1].rstrip(")")) for link in json.loads(text)]
        if status != 201 or again != acked[i]:
            raise SystemExit(f"re-sent batch {i}: {status}, ids {'same' if again == acked[i] else 'different'}")
    total = 0
    for ds in ids:
        _, text = patient(c, "GET", f"/sta/v1.1/Datastreams({ds})/Observations?$count=true&$top=0", token)
        total += json.loads(text)["@iot.count"]
    if total != stored:
        raise SystemExit(f"the re-sent batches added {total - stored} observations")
    return stored


def main():
    binary, workdir = sys.argv[1], Path(sys.argv[2])
    workdir.mkdir(parents=True, exist_ok=True)
    if len(sys.argv) > 3:
        store, label = sta_bench.fresh_pg(sys.argv[3], "citytwin_burst"), "PostGIS"
    else:
        sqlite = workdir / "burst.sqlite"
        for suffix in ["", "-wal", "-shm", ".token-secret"]:
            Path(str(sqlite) + suffix).unlink(missing_ok=True)
        store, label = str(sqlite), "SpatiaLite"
    layers = Path(__file__).resolve().parents[2] / "Layers"
    subprocess.run([binary, "district", "build", "--store", store, "--layers", str(layers)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server, port, token = serve(binary, store, workdir)
    try:
        ids = setup(port, token)
        work = batches(ids)  # encoded before the clock starts
        seconds, statuses, no_retry_after, acked = burst(port, token, work)
        stored = check(port, token, ids, work, acked)
    finally:
        server.terminate()
        server.wait(timeout=60)
    answers = ", ".join(f"{k}: {v:,}" for k, v in sorted(statuses.items(), key=lambda kv: str(kv[0])))
    print(f"burst on {label}: {N:,} observations in {len(work):,} CreateObservations batches of {B:,}, {C} clients, one token "
          f"(--token-rate {RATE} --token-burst {RATE_BURST} --sensing-write-queue {QUEUE})")
    print(f"all acknowledged in {seconds:.1f} s: {stored / seconds:,.0f} acknowledged obs/s; answers {answers}; "
          f"refusals without Retry-After: {no_retry_after}")
    print(f"check: {stored:,} stored = {sum(len(a) for a in acked):,} acknowledged, every @iot.id distinct; "
          f"re-sent 1% of the batches: same ids, nothing added")


if __name__ == "__main__":
    main()

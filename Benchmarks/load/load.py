"""Load runs of issue 21's "done when" (Benchmarks/load/run.sh; not CI).

    load.py BIN BACKEND SECONDS CONNECTIONS OUT_DIR      BACKEND: spatialite | postgis | restart | idle | cluster

spatialite, postgis: `citytwin serve` on a fresh store of 200 shelters under wrk (CONNECTIONS
connections, 2 threads, mixed.lua: item pages, bbox pages, tiles, single features, one write in
WRITE_EVERY requests) plus 2 writers here that keep every id the server acknowledged (201), a
prober reading a page every 50 ms and a sampler reading wrk's URLs back to back on one more
connection. wrk's latency mixes reads and writes: the summary's read_latency_ms (the sampler's)
and write_latency_ms (the writers') hold them apart. Promise: no 5xx, no socket error, every acknowledged write
present afterwards (each writer's id read back; the layer holds exactly the base plus every 201),
RSS growth < 20 % (from the end of a warm-up to the end of the run). The growth over the run's
second half is reported beside it (rss_kib.second_half_growth_percent): memory that fills up to a
bound shows early and then stays, a leak keeps growing in the second half too.
restart: postgis with PostgreSQL restarted twice mid-run (pg_ctl restart -m fast at 1/3 of the run,
-m immediate at 2/3). Promise: as above, except 503 answers while PostgreSQL is down or starting
(and the seconds right after), and the prober's first 200 within 5 s of the database accepting
connections again (`pg_ctl -w` returning).
cluster (issue 57 §4): postgis, but the deployment of Scripts/cluster.sh (PostGIS, CITYTWIN_CLUSTER_SERVERS
`serve`s, 1 or 2 (default 2), and its two workers, behind Debian's nginx) under the same load through nginx;
RSS is the servers' sum. Writes load-cluster-N.json.
idle: 1,000 idle connections open, then /health 50 times: p50 and max must be < 100 ms.

Writes OUT_DIR/load-BACKEND.json and prints it; exit 1 when a promise broke.
Environment: CITYTWIN_LOAD_PORT (8098) for the server, CITYTWIN_LOAD_PG_PORT (55440) for its
PostgreSQL, WRITE_EVERY (20) for wrk's share of writes, WRK_THREADS (2).
"""
import http.client, json, os, random, shutil, socket, subprocess, sys, tempfile, threading, time

binary, backend, seconds, connections, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
port = int(os.environ.get("CITYTWIN_LOAD_PORT", "8098"))
pg_port = int(os.environ.get("CITYTWIN_LOAD_PG_PORT", "55440"))
write_every = int(os.environ.get("WRITE_EVERY", "20"))
wrk_threads = int(os.environ.get("WRK_THREADS", "2"))
work = tempfile.mkdtemp(prefix="citytwin-load-")
os.chmod(work, 0o755)  # PostgreSQL (run as postgres when root) keeps its data directory inside
os.makedirs(out, exist_ok=True)
env = dict(os.environ, CITYTWIN_TOKEN_SECRET="load-bench-secret-0123456789abcdef0123456789")
pg_env = dict(env, CITYTWIN_PG_DIR=os.path.join(work, "pg"), CITYTWIN_PG_PORT=str(pg_port))
server = None
BASE = 200
cluster_servers = int(os.environ.get("CITYTWIN_CLUSTER_SERVERS", "2"))
cluster_env = dict(env, CITYTWIN_BIN=binary, CITYTWIN_CLUSTER_DIR=os.path.join(work, "cluster"), CITYTWIN_CLUSTER_PORT=str(port),
                   CITYTWIN_PG_PORT=str(pg_port), CITYTWIN_CLUSTER_SERVERS=str(cluster_servers),
                   CITYTWIN_CLUSTER_SERVE_ARGS="--address-rate 0 --token-rate 0")
name = f"cluster-{cluster_servers}" if backend == "cluster" else backend


def cleanup():
    if backend == "cluster":
        subprocess.run([f"{repo}/Scripts/cluster.sh", "stop"], env=cluster_env, capture_output=True)
    if server and server.poll() is None:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
    if backend in ("postgis", "restart"):
        subprocess.run([f"{repo}/Scripts/postgis.sh", "stop", "immediate"], env=pg_env, capture_output=True)
    shutil.rmtree(work, ignore_errors=True)


def fail(message):
    print(f"load: {message}", file=sys.stderr)
    cleanup()
    sys.exit(1)


def call(method, path, body=None, headers=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def server_pids():
    """The pids of the servers under load: the one `serve`, or the cluster's."""
    if backend != "cluster":
        return [server.pid]
    return [int(open(os.path.join(work, "cluster", "pids", f"serve-{s}")).read()) for s in "ab"[:cluster_servers]]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def feature(fid, rnd):
    return json.dumps({"type": "Feature", "id": fid,
                       "geometry": {"type": "Point", "coordinates": [114.78 + rnd.random() * 0.05, 30.82 + rnd.random() * 0.05]},
                       "properties": {"name": f"压测 {fid}", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1000,
                                      "per_capita_m2": 1.5, "capacity": 600, "service_radius_m": 500,
                                      "contact_phone": "027-00000000"}}, ensure_ascii=False)


# --- the store and the server ---
if backend == "cluster":
    # PostgreSQL first, with durable commits as for postgis (the servers' sessions then start with them);
    # Scripts/cluster.sh start finds it running in its run directory.
    os.makedirs(os.path.join(work, "cluster"), exist_ok=True)
    r = subprocess.run([f"{repo}/Scripts/postgis.sh", "start"], env=dict(pg_env, CITYTWIN_PG_DIR=os.path.join(work, "cluster", "pg")),
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"Scripts/postgis.sh start: {r.stderr}")
    store = r.stdout.strip().splitlines()[-1]
    if subprocess.run(["psql", "-X", "-q", "-d", store, "-c", "ALTER DATABASE citytwin SET synchronous_commit = on"]).returncode != 0:
        fail("psql could not set synchronous_commit on the cluster's database")
    r = subprocess.run([f"{repo}/Scripts/cluster.sh", "start"], env=cluster_env, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"Scripts/cluster.sh start: {r.stdout} {r.stderr}")
elif backend in ("postgis", "restart"):
    r = subprocess.run([f"{repo}/Scripts/postgis.sh", "start"], env=pg_env, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"Scripts/postgis.sh start: {r.stderr}")
    store = r.stdout.strip().splitlines()[-1]
    # Scripts/postgis.sh runs PostgreSQL for tests, with commits acknowledged before their WAL is
    # written: an immediate restart (a crash) would lose the last ones. Durable commits here.
    subprocess.run(["psql", "-X", "-q", "-d", store, "-c", "ALTER DATABASE citytwin SET synchronous_commit = on"], check=True)
else:
    store = os.path.join(work, "city.sqlite")
rnd = random.Random(7)
with open(os.path.join(work, "shelters.geojson"), "w") as f:
    f.write('{"type": "FeatureCollection", "features": [' + ",".join(feature(f"base-{i}", rnd) for i in range(BASE)) + "]}")
r = subprocess.run([binary, "import", os.path.join(work, "shelters.geojson"), "--layer", "shelters", "--store", store,
                    "--layers", f"{repo}/Layers"], env=env, capture_output=True, text=True)
if r.returncode != 0:
    fail(f"import: {r.stdout} {r.stderr}")
log = open(os.path.join(work, "server.log"), "w")
server = None if backend == "cluster" else subprocess.Popen([binary, "serve", "--store", store, "--layers", f"{repo}/Layers", "--port", str(port),
                           "--log-level", "warning", "--address-rate", "0", "--token-rate", "0"],
                          env=env, stdout=log, stderr=subprocess.STDOUT)
for _ in range(300):
    try:
        if call("GET", "/health", timeout=2)[0] == 200:
            break
    except OSError:
        pass
    if server and server.poll() is not None:
        fail("serve exited: " + open(os.path.join(work, "server.log")).read())
    time.sleep(0.2)
token = subprocess.run([binary, "token", "create", "--department", "应急管理局", "--role", "editor", "--store", store],
                       env=env, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]

# --- 1,000 idle connections ---
if backend == "idle":
    idle = []
    for _ in range(1000):
        s = socket.create_connection(("127.0.0.1", port))
        idle.append(s)
    time.sleep(0.5)
    times = []
    for _ in range(50):
        t0 = time.monotonic()
        status, _ = call("GET", "/health", timeout=10)
        times.append((time.monotonic() - t0) * 1000)
        if status != 200:
            fail(f"/health answered {status} with 1,000 idle connections")
        time.sleep(0.02)
    for s in idle:
        s.close()
    times.sort()
    summary = {"backend": "spatialite", "idle_connections": 1000, "health_p50_ms": round(times[len(times) // 2], 2),
               "health_max_ms": round(times[-1], 2)}
    summary["passed"] = summary["health_max_ms"] < 100
    json.dump(summary, open(os.path.join(out, "load-idle.json"), "w"), indent=1)
    print(json.dumps(summary))
    cleanup()
    sys.exit(0 if summary["passed"] else 1)

# --- the URLs wrk cycles through ---
paths = []
for i in range(40):
    lon, lat = 114.78 + rnd.random() * 0.04, 30.82 + rnd.random() * 0.04
    paths.append(f"/collections/shelters/items?limit=50&bbox={lon:.4f},{lat:.4f},{lon + 0.01:.4f},{lat + 0.01:.4f}")
paths += [f"/collections/shelters/items/base-{i}" for i in range(0, BASE, 10)]
paths += [f"/collections/shelters/tiles/WebMercatorQuad/15/{26830 + r}/{13425 + c}" for r in range(6) for c in range(6)]
paths += ["/collections/shelters/items?limit=100", "/collections"]
with open(os.path.join(work, "paths.txt"), "w") as f:
    f.write("\n".join(paths) + "\n")
wrk = ["wrk", f"-t{wrk_threads}", f"-c{connections}", "--timeout", "10s", "-s", os.path.join(repo, "Benchmarks/load/mixed.lua"),
       f"http://127.0.0.1:{port}", "--", token, str(write_every), os.path.join(work, "paths.txt")]
# Warm-up (caches, pool, allocator), then the RSS the growth is measured from.
subprocess.run(wrk[:1] + ["-d5s"] + wrk[1:], capture_output=True, text=True, check=True)
rss_start = sum(rss_kib(pid) for pid in server_pids())


def feature_count():
    status, body = call("GET", "/collections/shelters/items?limit=1")
    return json.loads(body).get("numberMatched") if status == 200 else None


before = feature_count()

# --- the run: wrk, two writers here, a prober, and PostgreSQL restarts ---
lock = threading.Lock()
acknowledged, writer_statuses, writer_errors = [], {}, []
probes = []   # (monotonic, status or None, ms)
write_ms, read_ms = [], []   # the writers' POSTs, the sampler's GETs (wrk's latency mixes reads and writes)
stop = time.monotonic() + seconds


def writer(n):
    wr = random.Random(n)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    k = 0
    while time.monotonic() < stop:
        k += 1
        fid = f"writer-{n}-{k}"
        try:
            t0 = time.monotonic()
            conn.request("POST", "/collections/shelters/items", feature(fid, wr).encode(),
                         {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
            r = conn.getresponse()
            r.read()
            ms = (time.monotonic() - t0) * 1000
            with lock:
                write_ms.append(ms)
                writer_statuses[r.status] = writer_statuses.get(r.status, 0) + 1
                if r.status == 201:
                    acknowledged.append(fid)
        except (OSError, http.client.HTTPException) as e:
            with lock:
                writer_errors.append(f"{fid}: {e!r}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        time.sleep(0.02)


def prober():
    while time.monotonic() < stop:
        t0 = time.monotonic()
        try:
            status, _ = call("GET", "/collections/shelters/items?limit=5", timeout=15)
        except OSError:
            status = None
        with lock:
            probes.append((t0, status, (time.monotonic() - t0) * 1000))
        time.sleep(0.05)


def sampler():
    """Reads alone, timed: wrk's URL list in wrk's order on one keep-alive connection, back to back
    (one more connection beside wrk's), so that reads' latency is known apart from the writes'."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    n = 0
    while time.monotonic() < stop:
        n += 1
        path = paths[(n * 7919) % len(paths)]
        t0 = time.monotonic()
        try:
            conn.request("GET", path)
            r = conn.getresponse()
            r.read()
            if r.status == 200:
                with lock:
                    read_ms.append((time.monotonic() - t0) * 1000)
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)


def percentiles(values):
    v = sorted(values)
    if not v:
        return None
    at = lambda q: round(v[min(len(v) - 1, int(q * len(v)))], 1)
    return {"n": len(v), "p50": at(0.5), "p99": at(0.99), "max": round(v[-1], 1)}


restarts = []   # (mode, wall-clock start, monotonic start, monotonic accepting)


def restarter():
    for fraction, mode in ((1 / 3, "fast"), (2 / 3, "immediate")):
        time.sleep(max(0, stop - seconds + seconds * fraction - time.monotonic()))
        wall, t0 = time.time(), time.monotonic()
        subprocess.run([f"{repo}/Scripts/postgis.sh", "restart", mode], env=pg_env, capture_output=True)
        restarts.append((mode, wall, t0, time.monotonic()))


rss_middle = []


def rss_at_middle():
    time.sleep(max(0, stop - seconds / 2 - time.monotonic()))
    rss_middle.append(sum(rss_kib(pid) for pid in server_pids()))


helpers = [threading.Thread(target=writer, args=(i,)) for i in range(2)] + [threading.Thread(target=prober), threading.Thread(target=sampler),
                                                                            threading.Thread(target=rss_at_middle)]
if backend == "restart":
    helpers.append(threading.Thread(target=restarter))
for t in helpers:
    t.start()
run = subprocess.run(wrk[:1] + [f"-d{seconds}s"] + wrk[1:], capture_output=True, text=True)
for t in helpers:
    t.join()
rss_end = sum(rss_kib(pid) for pid in server_pids())
try:
    result = json.loads([line for line in run.stdout.splitlines() if line.startswith("{")][-1])
except (IndexError, ValueError):
    fail(f"wrk printed no summary: {run.stdout} {run.stderr}")

# --- read back ---
lost = [fid for fid in acknowledged if call("GET", f"/collections/shelters/items/{fid}")[0] != 200]
matched = feature_count()
expected = before + result["created"] + len(acknowledged)

summary = {"backend": name, "seconds": seconds, "connections": connections, "wrk": result,
           "writers": {"acknowledged": len(acknowledged), "statuses": writer_statuses, "socket_errors": writer_errors[:10]},
           "read_latency_ms": percentiles(read_ms), "write_latency_ms": percentiles(write_ms),
           "features": {"expected_at_least": expected, "found": matched}, "lost_acknowledged_writes": lost[:20],
           "rss_kib": {"start": rss_start, "middle": rss_middle[0], "end": rss_end,
                       "growth_percent": round((rss_end - rss_start) * 100 / rss_start, 1),
                       "second_half_growth_percent": round((rss_end - rss_middle[0]) * 100 / rss_middle[0], 1)}}
problems = []
socket_errors = sum(result["socket_errors"].values()) + len(writer_errors)
if result["client_errors"]:
    problems.append(f"{result['client_errors']} 4xx answers")
if result["server_errors"] or any(s >= 500 and s != 503 for s in writer_statuses):
    problems.append("5xx other than 503")
if socket_errors:
    problems.append(f"{socket_errors} socket errors")
# wrk drops the requests in flight when its time is up (at the end of the warm-up and of the run):
# the server still applies those writes, unacknowledged, so the layer may hold up to one more per
# connection (and writer) than was acknowledged, never fewer.
if lost or matched is None or matched < expected:
    problems.append(f"acknowledged writes lost: {len(lost)} read back missing; {matched} features for at least {expected}")
elif matched > expected + 2 * (connections + 2):
    problems.append(f"{matched} features: more than the {expected} acknowledged and the writes in flight at the cut-offs")
if summary["rss_kib"]["growth_percent"] >= 20:
    problems.append("RSS grew 20 % or more")
if backend != "restart":
    if result["unavailable"] or writer_statuses.get(503):
        problems.append("503 without an outage")
else:
    windows = []
    for mode, wall, t0, up in restarts:
        after = [p for p in probes if p[0] >= up and p[1] == 200]
        recovery = (after[0][0] - up) if after else None
        outage = [p for p in probes if t0 <= p[0] < up + (recovery or 0)]
        slowest = max((p[2] for p in probes if t0 - 1 <= p[0] <= up + 5), default=0)
        windows.append({"mode": mode, "database_down_s": round(up - t0, 2),
                        "recovery_after_accepting_s": None if recovery is None else round(recovery, 3),
                        "probe_statuses_during": sorted({str(p[1]) for p in outage}), "slowest_probe_ms": round(slowest, 1)})
        if recovery is None or recovery > 5:
            problems.append(f"{mode} restart: no 200 within 5 s of PostgreSQL accepting connections")
        if slowest > 10_000:
            problems.append(f"{mode} restart: a request took {slowest:.0f} ms")
    summary["restarts"] = windows
    # Every 503 of wrk came while a restart was going on (second resolution: within 1 s before and 6 s after).
    spans = [(int(wall) - 1, int(wall + (up - t0)) + 6) for _, wall, t0, up in restarts]
    stray = [s for s in result["unavailable_at"] if not any(a <= s <= b for a, b in spans)]
    summary["wrk_503_outside_outages"] = len(stray)
    if stray:
        problems.append(f"{len(stray)} 503s outside the outages")
    if any(p[1] is None or p[1] not in (200, 503) for p in probes):
        problems.append("a probe got neither 200 nor 503: " + str(sorted({str(p[1]) for p in probes})))
summary["problems"] = problems
summary["passed"] = not problems
json.dump(summary, open(os.path.join(out, f"load-{name}.json"), "w"), indent=1, ensure_ascii=False)
print(json.dumps(summary, ensure_ascii=False))
cleanup()
sys.exit(0 if summary["passed"] else 1)

"""Shared by the API benchmarks (`api_bench.py`): configuration from the environment, PostgreSQL and
SpatiaLite helpers, and `citytwin serve` run as a server under test."""
import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path as _Path

sys.path.insert(0, str(_Path(__file__).resolve().parent.parent))
from pg_tools import pg_parts, psql  # noqa: E402,F401  (one psql for the benchmarks; the api modules import it from here)
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
N_PARCELS = int(os.environ.get("API_BENCH_PARCELS", "100000"))
LAYER = "bench_parcels"
DB = "citytwin_api"
ZOOM = 14
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
BACKENDS = [b for b in os.environ.get("API_BENCH_BACKENDS", "postgis,spatialite").split(",") if b]
CLIENTS = [int(c) for c in os.environ.get("API_BENCH_CLIENTS", "1,2").split(",") if c]
SECRET = "api-bench-secret-0123456789abcdef0123"
# The synthetic layer covers the sample district (邾城, 114.80°E 30.84°N, 5 km × 5 km) and around it.
WEST, SOUTH, EAST, NORTH = 114.70, 30.76, 114.90, 30.92
USES = ["住宅", "商业", "办公", "公共服务", "工业"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# PostgreSQL and the store

def pg_url(base, db=DB):
    return f"{base.rstrip('/')}/{db}"


def pg_connect(base):
    import psycopg2
    p = pg_parts(base)
    return psycopg2.connect(host=p["host"], port=p["port"], user=p["user"], password=p["password"], dbname=DB)


def sqlite_scalar(path, sql):
    r = subprocess.run(["sqlite3", str(path), sql], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"failed ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stdout[-1500:]}\n{r.stderr[-2000:]}")
    return r.stdout


def stores(d: Path, base: str):
    """backend name -> --store argument."""
    return {"spatialite": str(d / "api.sqlite"), "postgis": pg_url(base)}


def terminate(proc):
    """Stops a server under test: SIGTERM, then SIGKILL if it has not exited within 10 s."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_answering(proc, port, path, name, stop, log=None):
    """Polls http://127.0.0.1:PORT/PATH until it answers 200 (up to about a minute); exits if the
    server process ends first (with the tail of its log) or never answers."""
    for _ in range(600):
        if proc.poll() is not None:
            tail = f": {Path(log).read_text()[-2000:]}" if log else ""
            raise SystemExit(f"{name} exited ({proc.returncode}){tail}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", path)
            if c.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.1)
    stop()
    raise SystemExit(f"{name} did not answer {path}")


class Server:
    """A fresh `citytwin serve` on a free loopback port (cold tile cache), with an admin token."""

    def __init__(self, binary, store):
        self.port = free_port()
        env = dict(os.environ, CITYTWIN_TOKEN_SECRET=SECRET)
        self.token = run([binary, "token", "create", "--role", "admin", "--store", store], env=env).strip()
        # --log-level warning: no per-request log line, as the peers run (nginx access_log off,
        # gunicorn without an access log).
        # No per-caller limits (the peers have none): wrk's 64 connections on one address, and the
        # tile clients on one token, would otherwise be refused with 429 (issue 57).
        self.proc = subprocess.Popen([binary, "serve", "--store", store, "--port", str(self.port), "--log-level", "warning",
                                      "--address-rate", "0", "--token-rate", "0", "--address-concurrency", "0", "--token-concurrency", "0"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_answering(self.proc, self.port, "/health", "citytwin serve", self.stop)

    def headers(self):
        return {"Authorization": f"Bearer {self.token}"}

    def get_json(self, path):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        c.request("GET", path, headers=self.headers())
        r = c.getresponse()
        body = r.read()
        if r.status != 200:
            raise SystemExit(f"GET {path}: HTTP {r.status} {body[:300]!r}")
        return json.loads(body)

    def stop(self):
        terminate(self.proc)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.stop()

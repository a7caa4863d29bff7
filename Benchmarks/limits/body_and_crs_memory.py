"""Measures a `citytwin serve` process's VmRSS under (a) 3,000 distinct EPSG codes in crs= and (b) 32
anonymous 15 MiB uploads held open from one address (issue 78 §10, §17); the figures are in
docs/operations.md ("Request bodies in memory", "Memory of serve and worker").

usage: .venv/bin/python Benchmarks/limits/body_and_crs_memory.py BINARY STORE [crs|bodies|both]
       (STORE: a sample district, `citytwin district build --store STORE`; PROJ's proj.db read from
        /usr/share/proj or $PROJ_DATA)
"""
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time

import requests

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BIN, STORE = sys.argv[1], sys.argv[2]
WHAT = sys.argv[3] if len(sys.argv) > 3 else "both"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return -1


def start():
    port = free_port()
    env = dict(os.environ, CITYTWIN_TOKEN_SECRET="measure-secret-0123456789abcdef0123456789")
    log = open(os.path.join(os.path.dirname(os.path.abspath(STORE)), f"serve-{port}.log"), "w")
    p = subprocess.Popen([BIN, "serve", "--store", STORE, "--host", "127.0.0.1", "--port", str(port),
                          "--layers", os.path.join(REPO, "Layers"), "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if requests.get(base + "/health", timeout=2).status_code == 200:
                break
        except OSError:
            pass
        time.sleep(0.5)
    time.sleep(20)  # the start-up work (address index, parking view, road graph) done
    return p, port, base


def crs(p, base):
    db = sqlite3.connect(os.path.join(os.environ.get("PROJ_DATA", "/usr/share/proj"), "proj.db"))
    codes = [int(r[0]) for r in db.execute(
        "SELECT code FROM projected_crs WHERE auth_name='EPSG' AND deprecated=0 ORDER BY CAST(code AS INTEGER)") if str(r[0]).isdigit()]
    s = requests.Session()
    for _ in range(20):
        s.get(base + "/collections/shelters/items?limit=1&crs=EPSG:4547")
    print(f"crs: idle (after warm-up) {rss_mib(p.pid):.0f} MiB", flush=True)
    statuses = {}
    t0 = time.time()
    for i, code in enumerate(codes[:3000], 1):
        r = s.get(f"{base}/collections/shelters/items?limit=1&crs=EPSG:{code}")
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        if i in (300, 1000, 2000, 3000):
            print(f"crs: after {i} distinct codes {rss_mib(p.pid):.0f} MiB ({time.time() - t0:.0f} s; statuses {statuses})", flush=True)


def bodies(p, port):
    size = 15 << 20
    head = (f"POST /processes/features-in-area/execution HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {size}\r\n\r\n").encode()
    chunk = b" " * (1 << 20)
    print(f"bodies: before {rss_mib(p.pid):.0f} MiB", flush=True)
    socks, answers = [], {}

    def send(i):
        s = socket.create_connection(("127.0.0.1", port))
        s.settimeout(15)
        socks.append(s)
        try:
            s.sendall(head)
            sent = 0
            while sent < size - 1:  # all but the last byte: the server holds what it read, waiting for the rest
                n = min(len(chunk), size - 1 - sent)
                s.sendall(chunk[:n])
                sent += n
        except OSError:
            pass
        try:
            s.settimeout(0.5)
            answers[i] = s.recv(200).split(b"\r\n")[0].decode(errors="replace")
        except OSError:
            answers[i] = "(no answer: body held)"

    threads = [threading.Thread(target=send, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(3)
    peak = rss_mib(p.pid)
    summary = {}
    for a in answers.values():
        summary[a] = summary.get(a, 0) + 1
    print(f"bodies: 32 x 15 MiB held from one address: {peak:.0f} MiB; answers {summary}", flush=True)
    for s in socks:
        s.close()
    time.sleep(5)
    print(f"bodies: after they close {rss_mib(p.pid):.0f} MiB", flush=True)


p, port, base = start()
try:
    print(f"binary {BIN}: started, {rss_mib(p.pid):.0f} MiB", flush=True)
    if WHAT in ("bodies", "both"):
        bodies(p, port)
    if WHAT in ("crs", "both"):
        crs(p, base)
finally:
    p.terminate()
    p.wait(30)

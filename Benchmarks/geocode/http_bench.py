"""Single-address geocoding over HTTP: latency of `GET /geocode?q=` on a running CityTwin server
against the district's standard addresses, and the same requests against a reference service.

Usage: http_bench.py STORE.sqlite CITYTWIN_URL TOKEN [N]

The queries are N (default 2,000) standard addresses of the store (doors, buildings, units and
rooms in use, seeded), half of them without the 湖北省武汉市 prefix, so a substring lookup can find
them too. Each side answers every query once over one keep-alive HTTP/1.1 connection, sequentially,
after 200 warm-up requests; the client times each request (send to last byte). The reference is
the plainest service that could answer: Python's http.server with a sqlite3 `LIKE '%q%'` lookup
over the same full addresses (an in-memory table; no fuzzy matching, no levels, no scores).
Printed: p50/p90/mean latency of each, how many answers named the expected address, and the
ratio of the p50s (reference / CityTwin: > 1 means CityTwin is faster). Target: CityTwin p50 <= 2 ms.
"""
import http.client
import json
import random
import sqlite3
import statistics
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

store, base, token = sys.argv[1], sys.argv[2], sys.argv[3]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
rng = random.Random(2026)

db = sqlite3.connect(store)
rows = [(fid, json.loads(p)) for fid, p in db.execute("SELECT fid, props FROM f_addresses WHERE valid_to IS NULL")]
db.close()
records = [(fid, r["full_address"]) for fid, r in rows
           if r.get("level") in ("户室", "单元", "楼栋", "门牌") and r.get("status") == "在用"]
picked = [records[rng.randrange(len(records))] for _ in range(n)]
queries = [(code, text.replace("湖北省武汉市", "", 1) if i % 2 else text) for i, (code, text) in enumerate(picked)]

# The reference service: the same addresses in an in-memory sqlite table, LIKE '%q%', first row.
reference = sqlite3.connect(":memory:", check_same_thread=False)
reference.execute("CREATE TABLE addresses (code TEXT PRIMARY KEY, full_address TEXT)")
reference.executemany("INSERT INTO addresses VALUES (?, ?)", [(fid, r["full_address"]) for fid, r in rows])
lock = threading.Lock()


class Reference(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("q", [""])[0]
        with lock:
            row = reference.execute("SELECT code, full_address FROM addresses WHERE full_address LIKE ? ORDER BY length(full_address) LIMIT 1",
                                    ("%" + q + "%",)).fetchone()
        body = json.dumps({"address_code": row[0], "matched_address": row[1]} if row else {"detail": "no match"},
                          ensure_ascii=False).encode()
        self.send_response(200 if row else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def run(host, port, headers, label):
    conn = http.client.HTTPConnection(host, port, timeout=30)

    def ask(text):
        conn.request("GET", "/geocode?q=" + urllib.parse.quote(text), headers=headers)
        r = conn.getresponse()
        body = r.read()
        return r.status, body

    for code, text in queries[:200]:
        status, body = ask(text)
        if status not in (200, 404):
            raise SystemExit(f"{label}: GET /geocode answered {status}: {body[:300]!r}")
    times, found = [], 0
    for code, text in queries:
        t = time.perf_counter()
        status, body = ask(text)
        times.append(time.perf_counter() - t)
        if status == 200 and json.loads(body).get("address_code") == code:
            found += 1
    conn.close()
    times.sort()
    return {"p50": times[len(times) // 2] * 1000, "p90": times[int(len(times) * 0.9)] * 1000,
            "mean": statistics.fmean(times) * 1000, "found": found}


url = urllib.parse.urlsplit(base)
ours = run(url.hostname, url.port, {"Authorization": f"Bearer {token}"}, "CityTwin")
server = ThreadingHTTPServer(("127.0.0.1", 0), Reference)
threading.Thread(target=server.serve_forever, daemon=True).start()
peer = run("127.0.0.1", server.server_address[1], {}, "reference")
server.shutdown()

print(f"single-address geocode over HTTP, {n} standard addresses of the district ({len(records)} candidates), one keep-alive connection:")
print(f"{'service':46} {'p50 ms':>8} {'p90 ms':>8} {'mean ms':>8} {'found':>7}")
print(f"{'CityTwin GET /geocode (fuzzy, levels, scores)':46} {ours['p50']:8.3f} {ours['p90']:8.3f} {ours['mean']:8.3f} {ours['found']:7}")
print(f"{'reference: http.server + sqlite LIKE':46} {peer['p50']:8.3f} {peer['p90']:8.3f} {peer['mean']:8.3f} {peer['found']:7}")
print(f"ratio of p50s (reference / CityTwin): {peer['p50'] / ours['p50']:.1f}x; target CityTwin p50 <= 2 ms: "
      + ("met" if ours["p50"] <= 2 else "NOT met"))

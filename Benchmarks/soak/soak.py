"""Soak: mixed read/write load on a running `citytwin serve` for DURATION seconds (issue 21 §5).

    soak.py BASE_URL SERVER_PID TOKEN DURATION OUT_DIR [READERS] [WRITERS]

Readers fetch item pages, tiles and /health; writers create shelters with the token and keep the
ids the server acknowledged (201). Every second the server's RSS, open file descriptors and the
latencies of that second are sampled. At the end every acknowledged shelter is read back.
Writes OUT_DIR/soak.csv (one row per second), OUT_DIR/soak.svg (RSS, fds and p99 over time) and
OUT_DIR/soak.json (the summary); prints the summary. Exit 1 when a promise broke: a 5xx, a socket
error, a lost acknowledged write, or RSS growth of 20 % or more after the first tenth of the run.
Python standard library only.
"""
import http.client, json, os, random, sys, threading, time, urllib.parse

base, pid, token, duration, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]
readers = int(sys.argv[6]) if len(sys.argv) > 6 else 16
writers = int(sys.argv[7]) if len(sys.argv) > 7 else 2
host = urllib.parse.urlparse(base)
os.makedirs(out, exist_ok=True)

lock = threading.Lock()
latencies = []          # (second, ms) of every request
statuses = {}           # status -> count
socket_errors = []
server_errors = []      # "METHOD path: status body" of each 5xx (the first 20)
acknowledged = []       # ids the server answered 201 for
start = time.monotonic()
stop = time.monotonic() + duration

# The district around 邾城: z15 tiles and bounding boxes the readers pick from.
TILES = [(15, 13425 + r, 26830 + c) for r in range(6) for c in range(6)]


def request(conn, method, path, body=None, headers=None):
    t0 = time.monotonic()
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    ms = (time.monotonic() - t0) * 1000
    with lock:
        latencies.append((int(t0 - start), ms))
        statuses[r.status] = statuses.get(r.status, 0) + 1
        if r.status >= 500 and len(server_errors) < 20:
            server_errors.append(f"{method} {path}: {r.status} {data[:300].decode('utf-8', 'replace')}")
    return r.status, data


def reader(seed):
    rnd = random.Random(seed)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    while time.monotonic() < stop:
        kind = rnd.random()
        if kind < 0.5:
            lon, lat = 114.78 + rnd.random() * 0.05, 30.82 + rnd.random() * 0.05
            path = f"/collections/shelters/items?limit=50&bbox={lon},{lat},{lon + 0.01},{lat + 0.01}"
        elif kind < 0.95:
            z, row, col = rnd.choice(TILES)
            path = f"/collections/shelters/tiles/WebMercatorQuad/{z}/{row}/{col}"
        else:
            path = "/health"
        try:
            request(conn, "GET", path)
        except (OSError, http.client.HTTPException) as e:
            with lock:
                socket_errors.append(f"GET {path}: {e!r}")
            conn.close()
            conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)


def writer(seed):
    rnd = random.Random(seed)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    n = 0
    while time.monotonic() < stop:
        n += 1
        fid = f"soak-{seed}-{n}"
        feature = {"type": "Feature", "id": fid,
                   "geometry": {"type": "Point", "coordinates": [114.78 + rnd.random() * 0.05, 30.82 + rnd.random() * 0.05]},
                   "properties": {"name": f"浸泡测试 {n}", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1000,
                                  "per_capita_m2": 1.5, "capacity": 600, "service_radius_m": 500, "contact_phone": "027-00000000"}}
        try:
            status, _ = request(conn, "POST", "/collections/shelters/items", json.dumps(feature),
                                {"Content-Type": "application/geo+json", "Authorization": f"Bearer {token}"})
            if status == 201:
                with lock:
                    acknowledged.append(fid)
        except (OSError, http.client.HTTPException) as e:
            with lock:
                socket_errors.append(f"POST {fid}: {e!r}")
            conn.close()
            conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
        time.sleep(0.05)


def sample():
    """RSS (KiB) and open fds of the server."""
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


threads = [threading.Thread(target=reader, args=(i,)) for i in range(readers)] + \
          [threading.Thread(target=writer, args=(1000 + i,)) for i in range(writers)]
for t in threads:
    t.start()
samples = []
while time.monotonic() < stop:
    time.sleep(1)
    rss, fds = sample()
    samples.append((int(time.monotonic() - start), rss, fds))
for t in threads:
    t.join()


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


rows = []
for second, rss, fds in samples:
    ms = [m for s, m in latencies if s == second - 1]
    rows.append((second, rss, fds, len(ms), percentile(ms, 0.5), percentile(ms, 0.99)))
with open(os.path.join(out, "soak.csv"), "w") as f:
    f.write("second,rss_kib,fds,requests,p50_ms,p99_ms\n")
    for r in rows:
        f.write(",".join(str(round(v, 2)) for v in r) + "\n")

# Read back every acknowledged write.
lost = []
conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
for fid in acknowledged:
    conn.request("GET", f"/collections/shelters/items/{fid}")
    r = conn.getresponse()
    r.read()
    if r.status != 200:
        lost.append(fid)

warm = [r[1] for r in rows[max(1, len(rows) // 10):]] or [r[1] for r in rows]
rss_growth = (warm[-1] - warm[0]) / warm[0] * 100 if warm and warm[0] else 0.0
all_ms = [m for _, m in latencies]
summary = {
    "duration_s": duration, "readers": readers, "writers": writers, "requests": len(all_ms),
    "requests_per_s": round(len(all_ms) / duration, 1),
    "p50_ms": round(percentile(all_ms, 0.5), 2), "p99_ms": round(percentile(all_ms, 0.99), 2),
    "statuses": {str(k): v for k, v in sorted(statuses.items())},
    "5xx": sum(v for k, v in statuses.items() if k >= 500), "socket_errors": len(socket_errors),
    "acknowledged_writes": len(acknowledged), "lost_writes": len(lost),
    "rss_kib_first": warm[0] if warm else 0, "rss_kib_last": warm[-1] if warm else 0, "rss_growth_percent": round(rss_growth, 1),
    "fds_first": rows[0][2] if rows else 0, "fds_last": rows[-1][2] if rows else 0,
}
with open(os.path.join(out, "soak.json"), "w") as f:
    json.dump(summary, f, indent=2)


def svg_plot():
    """RSS, fds and p99 against time, each scaled to its own maximum (labelled)."""
    width, height, pad = 800, 300, 40
    series = [("RSS KiB", 1, "#1f77b4"), ("fds", 2, "#2ca02c"), ("p99 ms", 5, "#d62728")]
    t_max = max((r[0] for r in rows), default=1) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{pad}" y="20">citytwin serve soak: {readers} readers, {writers} writers, {duration:.0f} s</text>']
    for i, (name, col, colour) in enumerate(series):
        top = max((r[col] for r in rows), default=1) or 1
        points = " ".join(f"{pad + r[0] / t_max * (width - 2 * pad):.1f},{height - pad - r[col] / top * (height - 2 * pad):.1f}" for r in rows)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>')
        parts.append(f'<text x="{width - 250}" y="{40 + 16 * i}" fill="{colour}">{name} (max {top:,.1f})</text>')
    parts.append(f'<text x="{width / 2 - 20}" y="{height - 10}">seconds</text></svg>')
    with open(os.path.join(out, "soak.svg"), "w") as f:
        f.write("\n".join(parts))


svg_plot()
print(json.dumps(summary, indent=2, ensure_ascii=False))
for e in socket_errors[:5]:
    print("socket error:", e, file=sys.stderr)
for e in server_errors:
    print("server error:", e, file=sys.stderr)
broken = summary["5xx"] or summary["socket_errors"] or summary["lost_writes"] or rss_growth >= 20
sys.exit(1 if broken else 0)

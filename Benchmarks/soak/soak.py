"""Soak: mixed read/write load on a running `citytwin serve` for DURATION seconds (issue 21 §5).

    soak.py BASE_URL SERVER_PID TOKEN DURATION OUT_DIR [READERS] [WRITERS] [RATE]

Readers fetch item pages, tiles and /health; writers create shelters with the token and keep the
ids the server acknowledged (201). Without RATE (or RATE 0) the load is closed-loop: each reader
sends its next request as soon as the last one answered, each writer pauses 50 ms between writes.
With RATE (requests per second in total) the load is open-loop and paced: every reader and writer
thread sends on its own fixed schedule of RATE / (READERS + WRITERS) requests per second (so writes
are WRITERS / (READERS + WRITERS) of the requests), whatever the answers' speed; a request that
could not leave on time (its connection still busy) leaves at once and its latency is also counted
from its scheduled time (`p99_from_schedule_ms`, no coordinated omission).
Every second the server's RSS, open file descriptors (all, and the store's connection pool: the
descriptors open on the store file, one per pooled SQLite connection) and the latencies of that
second are sampled. At the end every acknowledged shelter is read back.
Writes OUT_DIR/soak.csv (one row per second), OUT_DIR/soak.svg (RSS, fds, pool and p99 over time) and
OUT_DIR/soak.json (the summary); prints the summary. Exit 1 when a promise broke: a 5xx, a socket
error, a lost acknowledged write, or RSS growth of 20 % or more after the first tenth of the run.
Python standard library only.
"""
import http.client, json, os, random, sys, threading, time, urllib.parse

base, pid, token, duration, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]
readers = int(sys.argv[6]) if len(sys.argv) > 6 else 16
writers = int(sys.argv[7]) if len(sys.argv) > 7 else 2
rate = float(sys.argv[8]) if len(sys.argv) > 8 and sys.argv[8] else 0.0
# Paced: each thread's interval between scheduled sends (seconds); 0 = closed-loop.
interval = (readers + writers) / rate if rate > 0 else 0.0
host = urllib.parse.urlparse(base)
os.makedirs(out, exist_ok=True)

lock = threading.Lock()
latencies = []          # (second, ms) of every request
scheduled_ms = []       # paced: ms from each request's scheduled send to its answer
late = [0]              # paced: requests that left more than one interval after their schedule
statuses = {}           # status -> count
socket_errors = []
server_errors = []      # "METHOD path: status body" of each 5xx (the first 20)
acknowledged = []       # ids the server answered 201 for
start = time.monotonic()
stop = time.monotonic() + duration

# The district around 邾城: z15 tiles and bounding boxes the readers pick from.
TILES = [(15, 13425 + r, 26830 + c) for r in range(6) for c in range(6)]


class Pacer:
    """A thread's send schedule: closed-loop (no waiting) or every `interval` seconds from a phase."""

    def __init__(self, index, count):
        self.next = start + (interval * index / count if interval else 0.0)

    def wait(self):
        """Sleeps until the next scheduled send; returns that scheduled time (None when closed-loop)."""
        if not interval:
            return None
        due = self.next
        self.next += interval
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        elif now - due > interval:
            with lock:
                late[0] += 1
        return due


def request(conn, method, path, body=None, headers=None, due=None):
    t0 = time.monotonic()
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    t1 = time.monotonic()
    ms = (t1 - t0) * 1000
    with lock:
        latencies.append((int(t0 - start), ms))
        if due is not None:
            scheduled_ms.append((t1 - due) * 1000)
        statuses[r.status] = statuses.get(r.status, 0) + 1
        if r.status >= 500 and len(server_errors) < 20:
            server_errors.append(f"{method} {path}: {r.status} {data[:300].decode('utf-8', 'replace')}")
    return r.status, data


def reader(seed):
    rnd = random.Random(seed)
    pacer = Pacer(seed, readers + writers)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    while time.monotonic() < stop:
        due = pacer.wait()
        if time.monotonic() >= stop:
            break
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
            request(conn, "GET", path, due=due)
        except (OSError, http.client.HTTPException) as e:
            with lock:
                socket_errors.append(f"GET {path}: {e!r}")
            conn.close()
            conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)


def writer(seed):
    rnd = random.Random(seed)
    pacer = Pacer(readers + seed - 1000, readers + writers)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    n = 0
    while time.monotonic() < stop:
        due = pacer.wait()
        if time.monotonic() >= stop:
            break
        n += 1
        fid = f"soak-{seed}-{n}"
        feature = {"type": "Feature", "id": fid,
                   "geometry": {"type": "Point", "coordinates": [114.78 + rnd.random() * 0.05, 30.82 + rnd.random() * 0.05]},
                   "properties": {"name": f"浸泡测试 {n}", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1000,
                                  "per_capita_m2": 1.5, "capacity": 600, "service_radius_m": 500, "contact_phone": "027-00000000"}}
        try:
            status, _ = request(conn, "POST", "/collections/shelters/items", json.dumps(feature),
                                {"Content-Type": "application/geo+json", "Authorization": f"Bearer {token}"}, due=due)
            if status == 201:
                with lock:
                    acknowledged.append(fid)
        except (OSError, http.client.HTTPException) as e:
            with lock:
                socket_errors.append(f"POST {fid}: {e!r}")
            conn.close()
            conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
        if not interval:
            time.sleep(0.05)


def sample():
    """RSS (KiB), open fds and the fds open on the store file (its pooled SQLite connections) of the server."""
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    fds = pool = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        fds += 1
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").endswith(".sqlite"):
                pool += 1
        except OSError:
            pass  # closed between the listing and the look
    return rss, fds, pool


threads = [threading.Thread(target=reader, args=(i,)) for i in range(readers)] + \
          [threading.Thread(target=writer, args=(1000 + i,)) for i in range(writers)]
for t in threads:
    t.start()
samples = []
while time.monotonic() < stop:
    time.sleep(1)
    rss, fds, pool = sample()
    samples.append((int(time.monotonic() - start), rss, fds, pool))
for t in threads:
    t.join()


def percentile(values, p):
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


by_second = {}
for s, m in latencies:
    by_second.setdefault(s, []).append(m)
rows = []
for second, rss, fds, pool in samples:
    ms = by_second.get(second - 1, [])
    rows.append((second, rss, fds, len(ms), percentile(ms, 0.5), percentile(ms, 0.99), pool))
with open(os.path.join(out, "soak.csv"), "w") as f:
    f.write("second,rss_kib,fds,requests,p50_ms,p99_ms,pool\n")
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
    "duration_s": duration, "readers": readers, "writers": writers, "target_rate_per_s": rate or None,
    "requests": len(all_ms),
    "requests_per_s": round(len(all_ms) / duration, 1),
    "p50_ms": round(percentile(all_ms, 0.5), 2), "p99_ms": round(percentile(all_ms, 0.99), 2),
    "statuses": {str(k): v for k, v in sorted(statuses.items())},
    "5xx": sum(v for k, v in statuses.items() if k >= 500), "socket_errors": len(socket_errors),
    "acknowledged_writes": len(acknowledged), "lost_writes": len(lost),
    "rss_kib_first": warm[0] if warm else 0, "rss_kib_last": warm[-1] if warm else 0, "rss_growth_percent": round(rss_growth, 1),
    "fds_first": rows[0][2] if rows else 0, "fds_last": rows[-1][2] if rows else 0,
    "fds_max": max((r[2] for r in rows), default=0),
    "pool_first": rows[0][6] if rows else 0, "pool_last": rows[-1][6] if rows else 0,
    "pool_max": max((r[6] for r in rows), default=0),
    "p99_ms_worst_second": round(max((r[5] for r in rows), default=0.0), 2),
}
if interval:
    summary["p99_from_schedule_ms"] = round(percentile(scheduled_ms, 0.99), 2)
    summary["late_sends"] = late[0]
with open(os.path.join(out, "soak.json"), "w") as f:
    json.dump(summary, f, indent=2)


def svg_plot():
    """RSS, fds and p99 against time, each scaled to its own maximum (labelled)."""
    width, height, pad = 800, 300, 40
    series = [("RSS KiB", 1, "#1f77b4"), ("fds", 2, "#2ca02c"), ("pool (store fds)", 6, "#9467bd"), ("p99 ms", 5, "#d62728")]
    t_max = max((r[0] for r in rows), default=1) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{pad}" y="20">citytwin serve soak: {readers} readers, {writers} writers, '
             f'{f"paced at {rate:g} req/s, " if rate else ""}{duration:.0f} s</text>']
    for i, (name, col, colour) in enumerate(series):
        top = max((r[col] for r in rows), default=1) or 1
        points = " ".join(f"{pad + r[0] / t_max * (width - 2 * pad):.1f},{height - pad - r[col] / top * (height - 2 * pad):.1f}" for r in rows)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>')
        parts.append(f'<text x="{width - 250}" y="{40 + 16 * i}" fill="{colour}">{name} (max {top:,.1f})</text>')
    parts.append(f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>')
    parts.append(f'<text x="{pad}" y="{height - pad + 14}">0</text>')
    parts.append(f'<text x="{width - pad - 30}" y="{height - pad + 14}">{t_max:,}</text>')
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

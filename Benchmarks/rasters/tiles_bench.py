"""Times uncached depth map tiles (PNG) of one flood run over HTTP; see run.sh."""
import http.client
import json
import math
import random
import sys
import time
from urllib.parse import urlparse

base, token, layer, n, config = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
u = urlparse(base)
conn = http.client.HTTPConnection(u.hostname, u.port)
headers = {"Authorization": f"Bearer {token}"}


def get(path):
    conn.request("GET", path, headers=headers)
    r = conn.getresponse()
    return r.status, r.read()


status, body = get(f"/collections/{layer}/timesteps")
assert status == 200, (status, body[:300])
steps = json.loads(body)["steps"]
# The district's extent from the depth layer.
status, body = get(f"/collections/{layer}")
bbox = json.loads(body)["extent"]["spatial"]["bbox"][0]
west, south, east, north = bbox[:4]


def tile(lon, lat, z):
    x = int((lon + 180) / 360 * 2**z)
    y = int((1 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2 * 2**z)
    return x, y


candidates = []
for z in (15, 16, 17):
    x0, y0 = tile(west, north, z)
    x1, y1 = tile(east, south, z)
    for x in range(x0, x1 + 1):
        for y in range(y0, y1 + 1):
            for s in steps:
                candidates.append((z, y, x, s["datetime"]))
random.seed(19)
random.shuffle(candidates)
# Warm the connection and the steps' grids (read once per step, as a serving process keeps them).
for s in steps:
    get(f"/collections/{layer}/map/tiles/WebMercatorQuad/15/{tile(west, north, 15)[1]}/{tile(west, north, 15)[0]}?datetime={s['datetime']}")
times, counts, drawn = [], {}, []
for z, y, x, dt in candidates[:n]:
    t0 = time.perf_counter()
    status, body = get(f"/collections/{layer}/map/tiles/WebMercatorQuad/{z}/{y}/{x}?datetime={dt}")
    times.append((time.perf_counter() - t0) * 1000)
    counts[status] = counts.get(status, 0) + 1
    if status == 200:
        drawn.append(times[-1])
    assert status in (200, 204), (status, body[:300])
times.sort()
drawn.sort()
p50, p90 = times[len(times) // 2], times[int(len(times) * 0.9)]
if drawn:
    print(f"PNG tiles only: {len(drawn)} requests, p50 {drawn[len(drawn) // 2]:.2f} ms, p90 {drawn[int(len(drawn) * 0.9)]:.2f} ms")
print(f"depth map tiles ({config} build): {len(times)} uncached requests over {len(steps)} steps, z15-17 "
      f"({counts.get(200, 0)} PNG, {counts.get(204, 0)} empty): p50 {p50:.2f} ms, p90 {p90:.2f} ms, max {times[-1]:.2f} ms; "
      f"target p50 <= 20 ms: {'met' if p50 <= 20 else 'NOT met'}")

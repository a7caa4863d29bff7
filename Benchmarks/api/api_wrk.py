"""`api_bench.py wrk`: cached tiles under wrk, `citytwin serve` against nginx on the same tile files."""
import http.client
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from api_common import BACKENDS, LAYER, ROUNDS, ZOOM, free_port, log, run, Server, stores
from api_tiles import fetch_ours, tiled_layers


WRK_LUA = """
local paths = {}
for line in io.lines("%s") do paths[#paths + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter * 7919) %% #paths + 1])
end
"""

NGINX_CONF = """{user}
worker_processes {workers};
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
  types {{ }}
  default_type application/vnd.mapbox-vector-tile;
  server {{
    listen 127.0.0.1:{port};
    root {tmp}/www;
    add_header Cache-Control "public, max-age=3600";
  }}
}}
"""


def wrk(port, lua, seconds, threads, connections, path=""):
    out = run(["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s"] + (["-s", lua] if lua else [])
              + [f"http://127.0.0.1:{port}{path}"])
    rps = float(next(l for l in out.splitlines() if l.startswith("Requests/sec:")).split()[1])
    lat = next((l.split()[1] for l in out.splitlines() if l.strip().startswith("Latency")), "?")
    errors = [l.strip() for l in out.splitlines() if "Non-2xx" in l or "Socket errors" in l]
    return rps, lat, errors


def bench_wrk(d: Path, binary: str, base: str):
    seconds = int(os.environ.get("WRK_SECONDS", "15"))
    threads = int(os.environ.get("WRK_THREADS", "2"))
    connections = int(os.environ.get("WRK_CONNECTIONS", "64"))
    tmp = Path(tempfile.mkdtemp(prefix="citytwin-wrk-"))
    layers = dict(tiled_layers(base))
    jobs = [(LAYER, ZOOM, x, y) for x, y in layers[LAYER]]
    best = {}
    try:
        backend = BACKENDS[0]
        with Server(binary, stores(d, base)[backend]) as server:
            # Warm the cache on the synthetic layer's z14 tiles and keep the bytes for nginx. As
            # anonymous, like wrk's requests: the cache key includes the caller's audience.
            _, tiles = fetch_ours(server, jobs, 1, anonymous=True)
            paths, by_path = [], {}
            for (layer, z, x, y), b in tiles.items():
                if not b:
                    continue
                path = f"/collections/{layer}/tiles/WebMercatorQuad/{z}/{y}/{x}"
                f = tmp / "www" / path.lstrip("/")
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_bytes(b)
                paths.append(path)
                by_path[path] = b
            (tmp / "paths.txt").write_text("\n".join(paths) + "\n")
            lua = tmp / "tiles.lua"
            lua.write_text(WRK_LUA % (tmp / "paths.txt"))
            size = sum(len(b) for b in tiles.values() if b) / max(1, len(paths))
            # The open layer needs no token, so both servers get the very same requests.
            nginx_conf = tmp / "nginx.conf"
            nginx_port = free_port()
            # As root nginx would hand its workers to `nobody`, who cannot read the 0700 temp dir.
            user = f"user {pwd.getpwuid(os.getuid()).pw_name};" if os.getuid() == 0 else ""
            nginx_conf.write_text(NGINX_CONF.format(user=user, workers=os.cpu_count() or 2, tmp=tmp, port=nginx_port))
            nginx = subprocess.Popen(["nginx", "-c", str(nginx_conf), "-p", str(tmp)],
                                     stdout=subprocess.DEVNULL, stderr=open(tmp / "nginx.stderr", "w"))
            try:
                for _ in range(100):
                    try:
                        c = http.client.HTTPConnection("127.0.0.1", nginx_port, timeout=5)
                        c.request("GET", paths[0])
                        r = c.getresponse()
                        if r.read() == by_path[paths[0]]:
                            break
                    except OSError:
                        pass
                    time.sleep(0.1)
                else:
                    raise SystemExit(f"nginx did not serve {paths[0]}: {(tmp / 'nginx.stderr').read_text()[-1000:]}")
                for r in range(ROUNDS):
                    for side, port in [("citytwin", server.port), ("nginx", nginx_port)]:
                        rps, lat, errors = wrk(port, str(lua), seconds, threads, connections)
                        if errors:
                            log(f"  {side}: {errors}")
                        if rps > best.get(side, (0,))[0]:
                            best[side] = (rps, lat)
                    log(f"  round {r + 1}/{ROUNDS}: " + ", ".join(f"{k} {v[0]:,.0f} req/s" for k, v in best.items()))
                # The same server on a static document (/conformance): its HTTP ceiling, so what is
                # left is the tile route's own cost. (Not /health: it scans every layer's extent.)
                ceiling = wrk(server.port, None, seconds, threads, connections, "/conformance")
            finally:
                nginx.terminate()
                nginx.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    nginx_version = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip()
    load = os.getloadavg()
    print(f"\nCached tiles under wrk: {len(paths)} non-empty z{ZOOM} `{LAYER}` tiles (mean {size / 1024:.1f} KB, no gzip), "
          f"wrk -t{threads} -c{connections} -d{seconds}s cycling through the same URL list; best of {ROUNDS} alternating "
          f"rounds; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; wrk shares the {os.cpu_count()} cores")
    print(f"  CityTwin: `citytwin serve` on {backend}, tile cache warmed on those tiles (memory hits), anonymous requests")
    print(f"  nginx: {nginx_version}, {os.cpu_count()} workers, sendfile, access_log off, the same bytes as static files")
    n = best["nginx"][0]
    print(f"{'server':12} {'req/s':>10} {'mean latency':>13} {'CityTwin/nginx':>15}")
    print(f"{'nginx':12} {n:>10,.0f} {best['nginx'][1]:>13}")
    o = best["citytwin"][0]
    print(f"{'CityTwin':12} {o:>10,.0f} {best['citytwin'][1]:>13} {o / n:>14.2f}x")
    print(f"  the same CityTwin server on GET /conformance (a static document: its HTTP ceiling, one run): "
          f"{ceiling[0]:,.0f} req/s, mean latency {ceiling[1]}")

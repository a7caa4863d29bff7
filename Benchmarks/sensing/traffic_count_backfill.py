"""A month of one intersection's detector counts sent at once through the SensorThings API (issue 16, the
live traffic counts): a sample-district store served by `citytwin serve`, four video/coil detectors
registered on SI-010 by the platform (12 Datastreams with properties.traffic_count), then 30 days of
15-minute counts (34,560 readings, 11,520 traffic_counts rows) in one CreateObservations as 公安局.
Prints the request's time (the SensorThings write and the rows recorded, both before the answer) and
checks every row is there.

    python3 Benchmarks/sensing/traffic_count_backfill.py <citytwin> <work dir>
"""
from __future__ import annotations

import base64
import datetime as dt
import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

DAYS = 30
INTERSECTION = "SI-010"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    binary, work = sys.argv[1], Path(sys.argv[2])
    work.mkdir(parents=True, exist_ok=True)
    store = work / "district.sqlite"
    if store.exists():
        store.unlink()
    subprocess.run([binary, "district", "build", "--store", str(store)], check=True, capture_output=True)

    def token(department: str) -> str:
        return subprocess.run([binary, "token", "create", "--department", department, "--role", "editor", "--store", str(store)],
                              check=True, capture_output=True, text=True).stdout.strip()

    platform, police = token("城市管理执法委员会"), token("公安局")
    port = free_port()
    server = subprocess.Popen([binary, "serve", "--store", str(store), "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)

        def send(method: str, path: str, body, who: str, timeout: float = 600):
            request = urllib.request.Request(f"{base}{path}", data=None if body is None else json.dumps(body).encode(), method=method)
            request.add_header("Content-Type", "application/json")
            request.add_header("Authorization", "Basic " + base64.b64encode(f"gateway:{who}".encode()).decode())
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return answer.status, answer.headers, answer.read()

        streams = {}
        for approach in "NSEW":
            thing = {"name": f"{INTERSECTION} {approach} detector", "description": "coil detector", "Datastreams": [
                {"name": f"{INTERSECTION} {approach} {movement}", "description": "vehicles per 15 minutes",
                 "observationType": "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_CountObservation",
                 "unitOfMeasurement": {"name": "vehicle", "symbol": "veh", "definition": "https://example.org/vehicle"},
                 "properties": {"traffic_count": {"intersection": INTERSECTION, "approach": approach, "movement": movement, "detector": "coil"}},
                 "Sensor": {"name": "coil", "description": "loop detector", "encodingType": "text/html", "metadata": "https://example.org/coil"},
                 "ObservedProperty": {"name": "vehicle count", "definition": "https://example.org/count", "description": "vehicles counted"}}
                for movement in ("left", "through", "right")]}
            _, headers, _ = send("POST", "/sta/v1.1/Things", thing, platform)
            thing_id = headers["Location"].rsplit("(", 1)[1].rstrip(")")
            _, _, listed = send("GET", f"/sta/v1.1/Things({thing_id})/Datastreams", None, platform)
            for d in json.loads(listed)["value"]:
                streams[(approach, d["properties"]["traffic_count"]["movement"])] = d["@iot.id"]
        start = dt.datetime(2026, 10, 1, tzinfo=dt.timezone(dt.timedelta(hours=8)))
        body = []
        for (approach, movement), datastream in sorted(streams.items()):
            rows = []
            for k in range(DAYS * 96):
                t = start + dt.timedelta(minutes=15 * k)
                rows.append([f"{t.isoformat()}/{(t + dt.timedelta(minutes=15)).isoformat()}", 10 + (k * 7 + len(movement)) % 23])
            body.append({"Datastream": {"@iot.id": datastream}, "components": ["phenomenonTime", "result"], "dataArray": rows})
        readings = sum(len(e["dataArray"]) for e in body)
        began = time.perf_counter()
        status, _, _ = send("POST", "/sta/v1.1/CreateObservations", body, police)
        seconds = time.perf_counter() - began
        url = (f"{base}/collections/traffic_counts/items?f=json&limit=1&filter=intersection%3D%27{INTERSECTION}%27"
               f"&datetime=2026-09-30T16:00:00Z/2026-10-31T15:59:59Z")
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {police}"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            rows = json.loads(answer.read())["numberMatched"]
        print(json.dumps({"status": status, "readings": readings, "rows": rows, "expected_rows": DAYS * 96 * 4,
                          "seconds": round(seconds, 2), "readings_per_s": round(readings / seconds)}))
        assert status == 201 and rows == DAYS * 96 * 4, (status, rows)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()

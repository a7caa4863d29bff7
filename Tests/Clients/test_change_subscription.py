"""The change subscription end to end: a second process (change_follower.py) follows
/collections/shelters/changes as an anonymous service while 10,000 random edits (inserts,
updates, deletes) go through the API, with the server stopped and started again in the middle;
the follower reconnects with Last-Event-ID and must hold exactly the features /items answers,
with the contact phone masked as the public sees it (shelters masks it for everyone but its owner).

The test runs its own server on a copy of the client tests' store (SQLite's online backup), so it
can restart it without disturbing the other tests; CITYTWIN_CHANGE_STORE names another store with the
sample district instead (a postgresql:// URL: the same test on PostGIS)."""

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from conftest import walk_items
from store_copy import copy_store

LAYER = "shelters"
OWNER = "应急管理局"
EDITS = int(os.environ.get("CITYTWIN_CHANGE_EDITS", "10000"))
WRITERS = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`citytwin serve` on a store, stopped with SIGTERM and started again on the same port."""

    def __init__(self, store: Path | str, log: Path):
        self.store, self.log, self.port = store, log, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [os.environ["CITYTWIN_CLIENT_BIN"], "serve", "--store", str(self.store), "--host", "127.0.0.1",
             "--port", str(self.port), "--shutdown-grace", "1",
             "--log-level", "warning"],
            stdout=self.log.open("a"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"citytwin serve exited: {self.log.read_text()[-2000:]}"
            try:
                if requests.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise AssertionError("the server never answered /health")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)
        self.process = None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    work = tmp_path_factory.mktemp("changes")
    if os.environ.get("CITYTWIN_CHANGE_STORE"):
        # Another store with the sample district, e.g. PostGIS (postgresql://…, with CITYTWIN_TOKEN_SECRET set).
        store = os.environ["CITYTWIN_CHANGE_STORE"]
    else:
        # Consistent while the other server has the store open, with its audit key (it is written to).
        store = copy_store(os.environ["CITYTWIN_CLIENT_STORE"], work / "district.sqlite")
    running = Server(store, work / "server.log")
    running.start()
    yield running
    running.stop()


def token(store: Path | str, department: str | None, role: str) -> str:
    args = [os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--role", role, "--subject", "change-test", "--store", str(store)]
    if department:
        args += ["--department", department]
    made = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def newest_change(url: str) -> int:
    """The feed's newest sequence, from the first (`position`) event of a fresh subscription."""
    with requests.get(f"{url}/collections/{LAYER}/changes", stream=True, timeout=(5, 30)) as r:
        assert r.status_code == 200, r.text
        assert r.headers["Content-Type"].startswith("text/event-stream")
        for line in r.iter_lines(chunk_size=None):
            if line.startswith(b"id: "):
                return int(line[4:])
    raise AssertionError("the stream ended before its position event")


def test_bad_resume_points_are_problems(server):
    for params, headers, name in [({"since": "yesterday"}, {}, "since"), ({"since": "-1"}, {}, "since"),
                                  ({}, {"Last-Event-ID": "x1"}, "Last-Event-ID"),
                                  ({"since": str(10**15)}, {}, "since")]:
        r = requests.get(f"{server.url}/collections/{LAYER}/changes", params=params, headers=headers, timeout=30)
        assert r.status_code == 400, r.text
        assert r.headers["Content-Type"].startswith("application/problem+json")
        assert name in r.json()["detail"] or r.json().get("parameter") == name, r.text
    assert requests.get(f"{server.url}/collections/no_such_layer/changes", timeout=30).status_code == 404


def read_events(url: str, headers: dict, until: int) -> list[tuple[str, dict]]:
    """(event, data) of a stream read until it has passed sequence `until`."""
    events, event, event_id = [], None, None
    with requests.get(url, headers={"Accept": "text/event-stream", **headers}, stream=True, timeout=(5, 30)) as r:
        assert r.status_code == 200, r.text
        assert "no-store" in r.headers["Cache-Control"] and "private" in r.headers["Cache-Control"]
        for line in r.iter_lines(chunk_size=None):
            line = line.decode()
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("id: "):
                event_id = int(line[4:])
            elif line.startswith("data: "):
                events.append((event, json.loads(line[6:])))
            elif line == "" and event_id is not None and event_id >= until:
                return events
    raise AssertionError("the stream ended early")


def test_each_caller_gets_only_what_it_may_read(server):
    """A change to a layer shared with departments only (rescue_teams) never reaches an anonymous
    subscriber of /changes; the owner reads the shelter's phone in clear, others masked."""
    owner = {"Authorization": f"Bearer {token(server.store, OWNER, 'editor')}"}
    police = {"Authorization": f"Bearer {token(server.store, '公安局', 'editor')}"}
    start = newest_change(server.url)
    for layer in ("rescue_teams", LAYER):
        items = requests.get(f"{server.url}/collections/{layer}/items", params={"limit": 1, "f": "json"}, headers=owner, timeout=30).json()
        feature = items["features"][0]
        feature["properties"]["name"] = feature["properties"]["name"] + " (changed)"
        put = requests.put(f"{server.url}/collections/{layer}/items/{feature['id']}", json=feature, headers=owner, timeout=30)
        assert put.status_code == 200, put.text
    end = newest_change(server.url)
    seen = {}
    for who, headers in (("anonymous", {}), ("police", police), ("owner", owner)):
        seen[who] = read_events(f"{server.url}/changes?since={start}", headers, end)
    assert [d["collection"] for e, d in seen["anonymous"] if e == "update"] == [LAYER]
    assert sorted(d["collection"] for e, d in seen["police"] if e == "update") == ["rescue_teams", LAYER]
    phone = {who: next(d["feature"]["properties"]["contact_phone"] for e, d in events if e == "update" and d["collection"] == LAYER)
             for who, events in seen.items()}
    assert "*" in phone["anonymous"] and "*" in phone["police"] and "*" not in phone["owner"], phone


def test_follower_holds_exactly_the_store_after_random_edits_and_a_restart(server, tmp_path):
    editor = token(server.store, OWNER, "editor")
    rng = random.Random(19)
    template = walk_items(requests.Session(), server.url, LAYER, 1000)[0]
    assert template, "the district has no shelters"
    owned = {str(f["id"]) for f in template}
    base = dict(template[0]["properties"])
    (lon0, lat0) = template[0]["geometry"]["coordinates"][:2]

    follower = subprocess.Popen([sys.executable, str(Path(__file__).with_name("change_follower.py")), server.url, LAYER],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)  # the follower subscribes and loads its snapshot while the edits begin

        # Each writer owns a slice of the ids, so no two writers race on one feature.
        slices = [set() for _ in range(WRITERS)]
        for i, fid in enumerate(sorted(owned)):
            slices[i % WRITERS].add(fid)
        made = [0] * WRITERS  # inserts per writer: new ids chg-<writer>-<n>
        plan = [[] for _ in range(WRITERS)]
        for n in range(EDITS):
            plan[n % WRITERS].append(rng.random())

        def feature(fid: str, r: random.Random) -> dict:
            props = dict(base)
            props["name"] = f"变更测试 {fid} {r.randrange(10**6)}"
            props["capacity"] = r.randrange(50, 5000)
            props["contact_phone"] = f"138{r.randrange(10**8):08d}"
            return {"type": "Feature", "id": fid,
                    "geometry": {"type": "Point", "coordinates": [round(lon0 + r.uniform(-0.02, 0.02), 7),
                                                                  round(lat0 + r.uniform(-0.02, 0.02), 7)]},
                    "properties": props}

        def writer(w: int, draws: list[float]) -> list[str]:
            http = requests.Session()
            http.headers["Authorization"] = f"Bearer {editor}"
            r = random.Random(1000 + w + 7 * made[w])
            mine, failures = slices[w], []
            for d in draws:
                items = f"{server.url}/collections/{LAYER}/items"
                for attempt in range(50):  # the server may be restarting
                    try:
                        if d < 0.35 or len(mine) < 5:
                            made[w] += 1
                            fid = f"chg-{w}-{made[w]}"
                            resp = http.post(items, json=feature(fid, r), headers={"Content-Type": "application/geo+json"}, timeout=30)
                            ok = resp.status_code == 201
                            if ok: mine.add(fid)
                        elif d < 0.75:
                            fid = r.choice(sorted(mine))
                            resp = http.put(f"{items}/{fid}", json=feature(fid, r), headers={"Content-Type": "application/geo+json"}, timeout=30)
                            ok = resp.status_code == 200
                        else:
                            fid = r.choice(sorted(mine))
                            resp = http.delete(f"{items}/{fid}", timeout=30)
                            ok = resp.status_code == 204
                            if ok: mine.discard(fid)
                        if not ok:
                            failures.append(f"{resp.request.method} {fid}: {resp.status_code} {resp.text[:200]}")
                        break
                    except requests.ConnectionError:
                        time.sleep(0.2)
                else:
                    failures.append("the server did not come back")
            return failures

        half = [p[: len(p) // 2] for p in plan]
        rest = [p[len(p) // 2:] for p in plan]
        started = time.monotonic()
        with ThreadPoolExecutor(WRITERS) as pool:
            failures = sum(pool.map(writer, range(WRITERS), half), [])
        server.stop()  # the follower's stream ends; it retries until the server is back
        server.start()
        with ThreadPoolExecutor(WRITERS) as pool:
            failures += sum(pool.map(writer, range(WRITERS), rest), [])
        elapsed = time.monotonic() - started
        assert not failures, failures[:10]

        target = newest_change(server.url)
        out, err = follower.communicate(f"{target}\n", timeout=180)
        assert follower.returncode == 0, f"the follower did not reach {target}: {out[-500:]} {err[-2000:]}"
        copy = json.loads(out)
    finally:
        if follower.poll() is None:
            follower.kill()

    store_now = {str(f["id"]): f for f in walk_items(requests.Session(), server.url, LAYER, 1000)[0]}
    assert copy["reconnects"] >= 1, "the restart never made the follower reconnect"
    assert copy["events"] >= EDITS, f"only {copy['events']} events for {EDITS} edits"
    assert set(copy["features"]) == set(store_now), (
        f"missing {sorted(set(store_now) - set(copy['features']))[:5]}, extra {sorted(set(copy['features']) - set(store_now))[:5]}")
    for fid, f in store_now.items():
        mine = copy["features"][fid]
        assert mine["geometry"] == f["geometry"] and mine["properties"] == f["properties"], fid
        # The public sees the phone masked; so does the anonymous follower.
        phone = f["properties"].get("contact_phone")
        assert phone is None or "*" in phone, phone
    print(f"change subscription: {EDITS} edits in {elapsed:.1f} s, {copy['events']} events, "
          f"{copy['reconnects']} reconnect(s), {len(store_now)} features held")

"""A service that keeps a copy of one CityTwin collection in step without polling: it follows the
change subscription (Server-Sent Events at /collections/{id}/changes) and applies each insert,
update and delete to its copy. Plain `requests`, no SSE library: the wire format is a few lines.

How it starts with nothing: it subscribes without `since`, reads the first `position` event (the
newest change when the stream started), loads the collection's items page by page, then applies
the events after that position (an event for a feature already in the snapshot just rewrites it,
so the overlap is harmless). When the connection drops (the server restarts, the network fails),
it reconnects with `Last-Event-ID` after the stream's `retry` delay and carries on from the last
event it applied, without loading the items again.

As a program (Tests/Clients/test_change_subscription.py runs it as a second process):
    python change_follower.py BASE_URL COLLECTION [--token TOKEN]
It follows until a line on standard input names a sequence number, waits until it has applied
the feed up to it, prints its copy as one JSON line {"sequence", "features", "events",
"reconnects"} and exits.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time

import requests


class ChangeFollower:
    def __init__(self, base_url: str, collection: str, token: str | None = None, since: int | None = None):
        self.base_url = base_url.rstrip("/")
        self.collection = collection
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"
        self.features: dict[str, dict] = {}
        # The last sequence applied (an event's id or a position): where a reconnect resumes.
        self.last_id: int | None = since
        self.events = 0
        self.reconnects = 0
        self.retry_seconds = 2.0
        self.error: str | None = None
        self.caught_up = threading.Condition()
        self.stopping = threading.Event()

    # -- the copy ---------------------------------------------------------------------------

    def load_snapshot(self) -> None:
        """Every current item of the collection, following `next` links."""
        url = f"{self.base_url}/collections/{self.collection}/items"
        params = {"limit": 1000, "f": "json"}
        while url:
            r = self.session.get(url, params=params, timeout=60)
            r.raise_for_status()
            page = r.json()
            for f in page["features"]:
                self.features[str(f["id"])] = f
            url = next((l["href"] for l in page.get("links", []) if l.get("rel") == "next"), None)
            params = None

    def apply(self, kind: str, data: dict) -> None:
        fid = str(data["id"])
        if kind == "delete" or data.get("feature") is None:
            # A delete, or a change to a feature deleted since (its delete event follows).
            self.features.pop(fid, None)
        else:
            self.features[fid] = data["feature"]
        self.events += 1

    # -- the stream -------------------------------------------------------------------------

    def run(self) -> None:
        """Follows until `stop()`: reads the stream, reconnects when it ends or fails."""
        while not self.stopping.is_set():
            try:
                self.follow_once()
            except (requests.RequestException, OSError) as error:
                self.error = str(error)
            if self.stopping.is_set():
                return
            self.reconnects += 1
            time.sleep(self.retry_seconds)

    def follow_once(self) -> None:
        headers = {"Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = str(self.last_id)
        url = f"{self.base_url}/collections/{self.collection}/changes"
        with self.session.get(url, headers=headers, stream=True, timeout=(5, 60)) as r:
            if r.status_code != 200:
                raise requests.HTTPError(f"{r.status_code} {r.text[:300]}", response=r)
            for event, event_id, data in self.messages(r):
                if self.stopping.is_set():
                    return
                if event == "position":
                    if self.last_id is None:
                        # A fresh follower: the items now, then the events after this position.
                        self.load_snapshot()
                elif event in ("insert", "update", "delete"):
                    self.apply(event, json.loads(data))
                if event_id is not None:
                    with self.caught_up:
                        self.last_id = event_id
                        self.caught_up.notify_all()

    def messages(self, response):
        """(event, id, data) per Server-Sent Events message (blank-line terminated)."""
        buffer = b""
        event, event_id, data = "message", None, []
        for chunk in response.iter_content(chunk_size=None):
            buffer += chunk
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                line = raw.rstrip(b"\r").decode("utf-8")
                if line == "":
                    if data or event_id is not None:
                        yield event, event_id, "\n".join(data)
                    event, event_id, data = "message", None, []
                elif line.startswith(":"):
                    continue  # a comment: the heartbeat
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "event":
                        event = value
                    elif name == "data":
                        data.append(value)
                    elif name == "id":
                        event_id = int(value)
                    elif name == "retry" and value.isdigit():
                        self.retry_seconds = int(value) / 1000.0

    def wait_for(self, sequence: int, timeout: float) -> bool:
        """Whether the copy reached `sequence` within `timeout` seconds."""
        with self.caught_up:
            return self.caught_up.wait_for(lambda: self.last_id is not None and self.last_id >= sequence, timeout)

    def stop(self) -> None:
        self.stopping.set()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base_url")
    parser.add_argument("collection")
    parser.add_argument("--token")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for the named sequence")
    args = parser.parse_args()
    follower = ChangeFollower(args.base_url, args.collection, args.token)
    threading.Thread(target=follower.run, daemon=True).start()
    line = sys.stdin.readline().strip()
    if not line:
        return 0
    reached = follower.wait_for(int(line), args.timeout)
    follower.stop()
    print(json.dumps({"sequence": follower.last_id, "reached": reached, "features": follower.features,
                      "events": follower.events, "reconnects": follower.reconnects, "last_error": follower.error},
                     ensure_ascii=False))
    return 0 if reached else 1


if __name__ == "__main__":
    sys.exit(main())

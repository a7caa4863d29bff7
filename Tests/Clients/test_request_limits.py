"""The server's default limits against the two kinds of client they must tell apart (issue 58 §12),
over real sockets to `citytwin serve` as Scripts/client_tests.sh starts it (no limit option given):
a client sending request after request as fast as it is answered, as a conformance suite or GDAL
does, is never refused; a flood of requests in parallel from one address is held off with 429,
`Retry-After` and a problem+json body, and the server answers normally once it is over."""

import threading
from concurrent.futures import ThreadPoolExecutor

import requests

SEQUENTIAL = 1_500   # a conformance suite got 429 on its 266th request under the old defaults
FLOOD_THREADS = 160  # far above the 32 requests one address may have in progress
FLOOD_ROUNDS = 4


def test_a_sequential_client_is_never_refused(base_url):
    session = requests.Session()
    paths = ["/", "/conformance", "/collections", "/collections/roads", "/collections/roads/items?limit=1",
             "/collections/roads/queryables"]
    statuses = {}
    for i in range(SEQUENTIAL):
        r = session.get(base_url + paths[i % len(paths)], headers={"Accept": "application/json"}, timeout=60)
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
    assert statuses == {200: SEQUENTIAL}, statuses


def test_a_flood_of_parallel_requests_gets_429_with_retry_after(base_url):
    start = threading.Barrier(FLOOD_THREADS)
    url = f"{base_url}/collections/roads/items"

    def flood(_):
        session = requests.Session()
        start.wait(timeout=60)
        answers = []
        for _ in range(FLOOD_ROUNDS):
            r = session.get(url, params={"limit": 1000, "f": "json"}, timeout=120)
            answers.append((r.status_code, r.headers.get("Retry-After"), r.headers.get("Content-Type"),
                            r.json().get("type") if r.status_code == 429 else None))
        return answers

    with ThreadPoolExecutor(FLOOD_THREADS) as pool:
        answers = [a for thread in pool.map(flood, range(FLOOD_THREADS)) for a in thread]
    refused = [a for a in answers if a[0] == 429]
    assert refused, f"{len(answers)} requests from {FLOOD_THREADS} threads at once, none refused"
    assert {a[0] for a in answers} <= {200, 429}, {a[0] for a in answers}
    assert all(a[1] is not None and int(a[1]) >= 1 for a in refused), "a refusal says when to come back"
    assert all(a[2] == "application/problem+json" and a[3] == "https://citytwin.dev/problems/rate-limited" for a in refused)
    assert any(a[0] == 200 for a in answers), "the flood's first requests are served"
    # Over: the same address is served again.
    assert requests.get(url, params={"limit": 1, "f": "json"}, timeout=60).status_code == 200

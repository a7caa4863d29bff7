"""Shared fixtures for the client tests: a running `citytwin serve` (started by
Scripts/client_tests.sh, which exports CITYTWIN_CLIENT_BASE_URL) and plain-HTTP helpers that
walk the API the way the standard describes, as the oracle the real clients are compared with."""

import math
import os

import pytest
import requests


REQUIRED_ENVIRONMENT = ("CITYTWIN_CLIENT_BASE_URL", "CITYTWIN_CLIENT_BIN", "CITYTWIN_CLIENT_STORE")


def pytest_configure(config):
    config.addinivalue_line("markers", "writes: changes the store; runs after every read-only test")
    missing = [name for name in REQUIRED_ENVIRONMENT if not os.environ.get(name)]
    if missing:
        raise pytest.UsageError(
            f"{', '.join(missing)} not set: run Scripts/client_tests.sh, which builds the district into "
            "a temporary store, starts `citytwin serve` on it and points these tests at it.")


def pytest_collection_modifyitems(session, config, items):
    # Tests that write (schemathesis as admin) go last, so the read-only tests see the built district.
    items.sort(key=lambda item: item.get_closest_marker("writes") is not None)


@pytest.fixture(scope="session")
def base_url() -> str:
    return os.environ["CITYTWIN_CLIENT_BASE_URL"].rstrip("/")


@pytest.fixture(scope="session")
def http() -> requests.Session:
    session = requests.Session()
    session.headers["Accept"] = "application/json"
    return session


@pytest.fixture(scope="session")
def collections(base_url, http) -> list[dict]:
    """The collections an anonymous caller may see, as /collections lists them."""
    response = http.get(f"{base_url}/collections", params={"f": "json"}, timeout=30)
    response.raise_for_status()
    found = response.json()["collections"]
    assert found, "the anonymous caller sees no collection at all"
    return found


def is_spatial(http, base_url: str, collection_id: str) -> bool:
    """Whether a collection's features have a geometry: its queryables name a primary geometry
    (tables such as parking_occupancy or traffic_counts have none)."""
    response = http.get(f"{base_url}/collections/{collection_id}/queryables", timeout=30)
    response.raise_for_status()
    return any(p.get("x-ogc-role") == "primary-geometry" for p in response.json().get("properties", {}).values())


def link(document: dict, rel: str) -> str | None:
    """The href of the JSON (or GeoJSON) link with relation `rel`, if any."""
    for candidate in document.get("links", []):
        if candidate.get("rel") == rel and candidate.get("type", "application/geo+json") in (
                "application/geo+json", "application/json"):
            return candidate["href"]
    return None


def walk_items(http: requests.Session, base_url: str, collection_id: str, limit: int):
    """Every feature of a collection, following `next` links page by page.
    Returns (features, numberMatched of the first page or None, number of pages)."""
    url = f"{base_url}/collections/{collection_id}/items"
    params = {"limit": limit, "f": "json"}
    features, matched, pages = [], None, 0
    while url:
        response = http.get(url, params=params, timeout=60)
        assert response.status_code == 200, f"{url}: {response.status_code} {response.text[:300]}"
        page = response.json()
        if pages == 0:
            matched = page.get("numberMatched")
        pages += 1
        returned = page.get("numberReturned")
        if returned is not None:
            assert returned == len(page["features"]), f"{url}: numberReturned {returned} != {len(page['features'])}"
        features.extend(page["features"])
        url, params = link(page, "next"), None
        assert pages < 10_000, f"{collection_id}: paging does not end"
    return features, matched, pages


def web_mercator_tile(lon: float, lat: float, zoom: int) -> tuple[int, int]:
    """(column, row) of the WebMercatorQuad tile at `zoom` holding lon/lat (degrees)."""
    n = 2 ** zoom
    column = int((lon + 180.0) / 360.0 * n)
    lat_rad = math.radians(lat)
    row = int((1.0 - math.asinh(math.tan(lat_rad)) / math.pi) / 2.0 * n)
    return column, row


def district_centre(collections: list[dict]) -> tuple[float, float]:
    """Centre (lon, lat degrees) of the union of the collections' CRS84 extents."""
    boxes = [c["extent"]["spatial"]["bbox"][0] for c in collections if c.get("extent", {}).get("spatial")]
    assert boxes, "no collection advertises a spatial extent"
    west = min(b[0] for b in boxes); south = min(b[1] for b in boxes)
    east = max(b[2] for b in boxes); north = max(b[3] for b in boxes)
    return (west + east) / 2.0, (south + north) / 2.0


def every_feature(base_url: str, bearer: str, layer: str) -> list[dict]:
    """Every feature of a collection as the bearer of `bearer` may read it, following `next` links."""
    out, url, params = [], f"{base_url}/collections/{layer}/items", {"limit": 5000, "f": "json"}
    while url:
        r = requests.get(url, params=params, headers={"Authorization": f"Bearer {bearer}"}, timeout=60)
        assert r.status_code == 200, r.text[:300]
        page = r.json()
        out += page["features"]
        url = next((l["href"] for l in page.get("links", []) if l["rel"] == "next"), None)
        params = None
    return out

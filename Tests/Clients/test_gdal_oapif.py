"""GDAL's OAPIF driver (ogrinfo / ogr2ogr) against the live server with its default settings and the
server's default limits (issue 58 §12): it lists every collection the anonymous caller may see, reads
each one completely through paging at GDAL's own page size, and copies the largest layer (addresses,
with a department token) in full."""

import json
import os
import re
import subprocess
from urllib.parse import parse_qs, urlparse

import pytest
import requests

from conftest import walk_items


def run(*args: str, debug: bool = False, token: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if debug:
        env["CPL_DEBUG"] = "ON"
    if token:
        env["GDAL_HTTP_HEADERS"] = f"Authorization: Bearer {token}"
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}"
    return done


def items_fetched(stderr: str, collection_id: str) -> list[str]:
    """The items URLs GDAL's debug log says it fetched for a collection, in order."""
    return re.findall(r"Fetch\((\S*/collections/" + re.escape(collection_id) + r"/items\S*)\)", stderr)


def page_size(urls: list[str]) -> int:
    """The limit GDAL asked for (its PAGE_SIZE default), or the server's default page of 100."""
    limits = {int(v) for u in urls for v in parse_qs(urlparse(u).query).get("limit", [])}
    assert len(limits) <= 1, f"GDAL asked for several page sizes: {limits}"
    return limits.pop() if limits else 100


def test_ogrinfo_lists_every_collection(base_url, collections):
    listing = run("ogrinfo", "-ro", "-so", f"OAPIF:{base_url}").stdout
    listed = re.findall(r"^\d+: (\S+)", listing, flags=re.MULTILINE)
    assert sorted(listed) == sorted(c["id"] for c in collections), listing


def test_ogrinfo_summary_reads_every_layer(base_url, collections):
    summary = run("ogrinfo", "-ro", "-al", "-so", f"OAPIF:{base_url}").stdout
    names = re.findall(r"^Layer name: (\S+)", summary, flags=re.MULTILINE)
    assert sorted(names) == sorted(c["id"] for c in collections)


def pytest_generate_tests(metafunc):
    # One test per collection: the ids come from the server at collection time.
    if "collection_id" in metafunc.fixturenames:
        import requests
        url = os.environ["CITYTWIN_CLIENT_BASE_URL"].rstrip("/") + "/collections?f=json"
        found = [c["id"] for c in requests.get(url, timeout=30).json()["collections"]]
        metafunc.parametrize("collection_id", found)


def test_ogr2ogr_reads_the_whole_collection_through_paging(base_url, http, collection_id, tmp_path):
    out = tmp_path / f"{collection_id}.geojson"
    # GDAL's defaults (no PAGE_SIZE): its small pages make a long run of requests, which the server's
    # default limits must let through.
    done = run("ogr2ogr", "-f", "GeoJSON", str(out), f"OAPIF:{base_url}", collection_id, debug=True)
    fetched = items_fetched(done.stderr, collection_id)
    read_by_gdal = json.loads(out.read_text())["features"]
    assert fetched, f"{collection_id}: GDAL's debug log shows no items request:\n{done.stderr[-1500:]}"
    limit = page_size(fetched)

    walked, matched, pages = walk_items(http, base_url, collection_id, limit)
    assert walked, f"{collection_id}: the collection is empty, nothing to page through"
    assert len(read_by_gdal) == len(walked), f"{collection_id}: GDAL read {len(read_by_gdal)}, next links gave {len(walked)}"
    if matched is not None:
        assert matched == len(walked), f"{collection_id}: numberMatched {matched} but {len(walked)} features"
    ids = [f.get("id") for f in walked]
    assert len(set(ids)) == len(ids), f"{collection_id}: a feature came twice while paging"
    gdal_ids = sorted(str(f["properties"].get("id", f.get("id"))) for f in read_by_gdal)
    assert gdal_ids == sorted(str(i) for i in ids), f"{collection_id}: GDAL read other features than paging did"
    if len(walked) > limit:
        assert pages > 1, f"{collection_id}: {len(walked)} features came in one page of limit {limit}"
        # GDAL itself followed the next links (it may fetch the first page twice to learn the schema).
        assert len(set(fetched)) == pages, f"{collection_id}: GDAL fetched {sorted(set(fetched))[:5]}…, paging has {pages} pages"


@pytest.fixture(scope="module")
def department_token() -> str:
    """A viewer token of 应急管理局: the standard addresses are shared with departments only."""
    made = subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--department", "应急管理局", "--role", "viewer",
                           "--subject", "GDAL", "--store", os.environ["CITYTWIN_CLIENT_STORE"]],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def test_ogr2ogr_copies_the_largest_layer_with_its_defaults(base_url, department_token, tmp_path):
    """`ogr2ogr … OAPIF:… addresses` as a department's GIS user runs it: GDAL's default page size, the
    server's default limits, a token. Every address arrives (it stopped with 429 after ~50 pages a second)."""
    first = requests.get(f"{base_url}/collections/addresses/items", params={"limit": 1, "f": "json"},
                         headers={"Authorization": f"Bearer {department_token}"}, timeout=60)
    assert first.status_code == 200, first.text[:300]
    expected = first.json()["numberMatched"]
    assert expected > 10_000, f"addresses is the district's largest layer; it has {expected}"

    out = tmp_path / "addresses.gpkg"
    done = run("ogr2ogr", "-f", "GPKG", str(out), f"OAPIF:{base_url}", "addresses", debug=True, token=department_token)
    assert "429" not in done.stderr, done.stderr[-1500:]
    fetched = items_fetched(done.stderr, "addresses")
    copied = run("ogrinfo", "-ro", "-so", str(out), "addresses").stdout
    count = int(re.search(r"^Feature Count: (\d+)", copied, flags=re.MULTILINE).group(1))
    assert count == expected, f"GDAL copied {count} of {expected} addresses in {len(fetched)} requests"
    assert len(set(fetched)) >= expected // page_size(fetched), f"{len(fetched)} requests for {expected} features"

"""GDAL's OAPIF driver (ogrinfo / ogr2ogr) against the live server: it lists every collection the
anonymous caller may see and reads each one completely through paging."""

import json
import os
import re
import subprocess

import pytest

from conftest import walk_items

PAGE_SIZE = 100  # small enough that the larger layers (roads, intersections, land use) need several pages


def run(*args: str, debug: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, CPL_DEBUG="ON") if debug else None
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}"
    return done


def test_ogrinfo_lists_every_collection(base_url, collections):
    listing = run("ogrinfo", "-ro", "-so", f"OAPIF:{base_url}").stdout
    listed = re.findall(r"^\d+: (\S+)", listing, flags=re.MULTILINE)
    assert sorted(listed) == sorted(c["id"] for c in collections), listing


def test_ogrinfo_summary_reads_every_layer(base_url, collections):
    summary = run("ogrinfo", "-ro", "-al", "-so", "-oo", f"PAGE_SIZE={PAGE_SIZE}", f"OAPIF:{base_url}").stdout
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
    done = run("ogr2ogr", "-f", "GeoJSON", str(out), f"OAPIF:{base_url}", collection_id,
               "-oo", f"PAGE_SIZE={PAGE_SIZE}", debug=True)
    fetched = re.findall(r"Fetch\((\S*/collections/" + re.escape(collection_id) + r"/items\S*)\)", done.stderr)
    read_by_gdal = json.loads(out.read_text())["features"]
    assert fetched, f"{collection_id}: GDAL's debug log shows no items request:\n{done.stderr[-1500:]}"

    walked, matched, pages = walk_items(http, base_url, collection_id, PAGE_SIZE)
    assert walked, f"{collection_id}: the collection is empty, nothing to page through"
    assert len(read_by_gdal) == len(walked), f"{collection_id}: GDAL read {len(read_by_gdal)}, next links gave {len(walked)}"
    if matched is not None:
        assert matched == len(walked), f"{collection_id}: numberMatched {matched} but {len(walked)} features"
    ids = [f.get("id") for f in walked]
    assert len(set(ids)) == len(ids), f"{collection_id}: a feature came twice while paging"
    gdal_ids = sorted(str(f["properties"].get("id", f.get("id"))) for f in read_by_gdal)
    assert gdal_ids == sorted(str(i) for i in ids), f"{collection_id}: GDAL read other features than paging did"
    if len(walked) > PAGE_SIZE:
        assert pages > 1, f"{collection_id}: {len(walked)} features came in one page of limit {PAGE_SIZE}"
        # GDAL itself followed the next links (it may fetch the first page twice to learn the schema).
        assert len(set(fetched)) == pages, f"{collection_id}: GDAL fetched {sorted(set(fetched))}, paging has {pages} pages"

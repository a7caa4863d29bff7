"""QGIS 3.22 (Debian python3-qgis) on the live server: its OAPIF provider opens every collection
and reads each completely through paging, and its vector-tile layer renders our MVT tiles.
QGIS runs in Debian's own Python (Tests/Clients/qgis_client.py), not in the venv."""

import json
import os
import subprocess

from conftest import is_spatial, walk_items

SYSTEM_PYTHON = "/usr/bin/python3"
CLIENT = os.path.join(os.path.dirname(__file__), "qgis_client.py")
DISTRICT_CENTRE = (114.80, 30.84)
FAR_FROM_DISTRICT = (114.60, 30.64)


def qgis(*args: str) -> dict:
    done = subprocess.run([SYSTEM_PYTHON, CLIENT, *args], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"QGIS client exited {done.returncode} (is python3-qgis installed? Scripts/setup.sh --test):\n{done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_oapif_provider_reads_every_collection_completely(base_url, http, collections):
    ids = [c["id"] for c in collections]
    read = qgis("features", base_url, *ids)
    for cid in ids:
        layer = read[cid]
        assert layer["valid"], f"QGIS could not open {cid}: {layer}"
        spatial = is_spatial(http, base_url, cid)
        expected_crs = "EPSG:4326" if spatial else ""  # a table without geometry has no CRS in QGIS
        assert layer["crs"] == expected_crs, f"{cid}: QGIS took {layer['crs']} (the collection's storageCrs/crs list)"
        assert not layer["errors"], f"{cid}: provider errors {layer['errors']}"
        assert layer["invalid_geometries"] == 0, f"{cid}: {layer['invalid_geometries']} invalid geometries"
        walked, _, _ = walk_items(http, base_url, cid, 100)
        assert sorted(layer["ids"]) == sorted(str(f["id"]) for f in walked), f"{cid}: QGIS read other features than paging gives"


def test_vector_tile_layer_renders_the_district_and_nothing_outside_it(base_url):
    roads = qgis("render", base_url, "roads", *map(str, DISTRICT_CENTRE))
    everything = qgis("render", base_url, "", *map(str, DISTRICT_CENTRE))
    outside = qgis("render", base_url, "roads", *map(str, FAR_FROM_DISTRICT))
    for result in (roads, everything, outside):
        assert result["valid"] and result["crs"] == "EPSG:3857" and not result["errors"], result
    # Roads alone draw lines over part of the image; every layer (land use covers the district) more.
    assert 0 < roads["drawn"] < everything["drawn"], (roads, everything)
    assert outside["drawn"] == 0, f"QGIS drew {outside['drawn']} px where the district has no roads"

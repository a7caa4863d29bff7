"""`citytwin export tiles` archives read by independent readers: protomaps' PMTiles reader
(PyPI `pmtiles`) and GDAL's MBTiles/MVT driver. Every archived tile must equal the tile the live
server sends an anonymous caller for the same z/x/y, and decode into valid geometries."""

import gzip
import json
import os
import sqlite3
import subprocess

import mapbox_vector_tile
import pytest
import shapely
from pmtiles.reader import MmapSource, Reader, all_tiles
from shapely.geometry import shape

from conftest import district_centre, web_mercator_tile

MVT = "application/vnd.mapbox-vector-tile"
ZOOMS = (13, 15)
LAYERS = "roads,shelters,lakes"


def export(tmp_path_factory, fmt: str) -> str:
    out = str(tmp_path_factory.mktemp(f"export-{fmt}") / f"district.{fmt}")
    subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "export", "tiles", out, "--store", os.environ["CITYTWIN_CLIENT_STORE"],
                    "--layers", LAYERS, "--min-zoom", str(ZOOMS[0]), "--max-zoom", str(ZOOMS[1])],
                   check=True, capture_output=True, text=True, timeout=600)
    return out


@pytest.fixture(scope="module")
def pmtiles_file(tmp_path_factory):
    return export(tmp_path_factory, "pmtiles")


@pytest.fixture(scope="module")
def mbtiles_file(tmp_path_factory):
    return export(tmp_path_factory, "mbtiles")


def server_tile(http, base_url, z, x, y) -> bytes | None:
    url = f"{base_url}/tiles/WebMercatorQuad/{z}/{y}/{x}"
    response = http.get(url, params={"collections": LAYERS}, headers={"Accept": MVT}, timeout=60)
    assert response.status_code in (200, 204), f"{url}: {response.status_code} {response.text[:200]}"
    return response.content if response.status_code == 200 else None


def decoded(tile: bytes) -> dict:
    return mapbox_vector_tile.decode(tile)


def assert_valid(tile: bytes, where: str):
    layers = decoded(tile)
    assert layers, f"{where}: no layer"
    for name, layer in layers.items():
        for feature in layer["features"]:
            geometry = shape(feature["geometry"])
            assert shapely.is_valid(geometry), f"{where} {name}: {shapely.is_valid_reason(geometry)}"


def test_pmtiles_header_metadata_and_tiles_match_the_server(pmtiles_file, base_url, http, collections):
    with open(pmtiles_file, "rb") as f:
        source = MmapSource(f)
        reader = Reader(source)
        header = reader.header()
        assert header["min_zoom"] == ZOOMS[0] and header["max_zoom"] == ZOOMS[1]
        assert header["tile_type"].name == "MVT" and header["clustered"]
        metadata = reader.metadata()
        assert sorted(l["id"] for l in metadata["vector_layers"]) == sorted(LAYERS.split(","))
        tiles = list(all_tiles(source))
        assert len(tiles) >= 4
        assert len(tiles) == header["addressed_tiles_count"]
        # The tile over the district centre at every zoom is there and equals the server's.
        lon, lat = district_centre(collections)
        for z in range(ZOOMS[0], ZOOMS[1] + 1):
            x, y = web_mercator_tile(lon, lat, z)
            archived = reader.get(z, x, y)
            live = server_tile(http, base_url, z, x, y)
            assert (archived is None) == (live is None), f"{z}/{x}/{y}: archive and server disagree on emptiness"
            if archived:
                assert decoded(gzip.decompress(archived)) == decoded(live), f"{z}/{x}/{y}: archive differs from the server"
        for (z, x, y), data in tiles[:40]:
            assert_valid(gzip.decompress(data), f"pmtiles {z}/{x}/{y}")


def test_mbtiles_read_by_gdal_and_equal_to_the_server(mbtiles_file, base_url, http, collections):
    db = sqlite3.connect(mbtiles_file)
    meta = dict(db.execute("SELECT name, value FROM metadata"))
    assert meta["format"] == "pbf" and int(meta["minzoom"]) == ZOOMS[0] and int(meta["maxzoom"]) == ZOOMS[1]
    assert sorted(l["id"] for l in json.loads(meta["json"])["vector_layers"]) == sorted(LAYERS.split(","))
    lon, lat = district_centre(collections)
    z = ZOOMS[1]
    x, y = web_mercator_tile(lon, lat, z)
    row = db.execute("SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?",
                     (z, x, (1 << z) - 1 - y)).fetchone()
    live = server_tile(http, base_url, z, x, y)
    assert (row is None) == (live is None)
    if row:
        assert decoded(gzip.decompress(row[0])) == decoded(live)
    # GDAL's MBTiles driver opens the archive as vector layers and reads features from every one.
    info = subprocess.run(["ogrinfo", "-ro", "-so", "-al", mbtiles_file], check=True, capture_output=True, text=True, timeout=300).stdout
    for layer in LAYERS.split(","):
        assert f"Layer name: {layer}" in info, f"GDAL does not see layer {layer}:\n{info[:2000]}"
    counts = [int(line.split(":")[1]) for line in info.splitlines() if line.startswith("Feature Count:")]
    assert counts and sum(counts) > 0, info[:2000]

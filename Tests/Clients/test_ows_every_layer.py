"""Every public layer through the WMTS and WMS clients (issue 55, Done when: "GDAL's WMTS, WMS and WFS
drivers and OWSLib's WMTS/WMS/WFS clients read every public layer"; WFS: test_wfs.py). For each layer
the capabilities list, the test takes one of its features and the z17 Web Mercator tile holding a
point of it, and reads that tile through OWSLib's WebMapTileService and GDAL's WMTS driver, and the
same box through OWSLib's WebMapService and GDAL's WMS driver: each copy is the server's own tile or
map (OWSLib's to the pixel; GDAL's within its resampling, which may move a thin road or a label's edge
by a pixel), and shows the feature (pixels painted)."""

import io
import subprocess

import numpy as np
import pytest
from owslib.wms import WebMapService
from owslib.wmts import WebMapTileService
from PIL import Image
from shapely.geometry import shape

from conftest import is_spatial
from test_wms import gdal_env
from test_wmts import differing, kvp_tile, mercator_tile, png, tile_bounds

Z = 17


def differing_within_a_pixel(a: Image.Image, b: Image.Image) -> int:
    """Pixels of `a` unlike (channel differences summing over 60) every pixel of `b` within one
    pixel of the same place."""
    x, y = np.asarray(a, dtype=np.int32), np.pad(np.asarray(b, dtype=np.int32), ((1, 1), (1, 1), (0, 0)), mode="edge")
    h, w = x.shape[:2]
    unlike = np.ones((h, w), dtype=bool)
    for dy in range(3):
        for dx in range(3):
            unlike &= np.abs(x - y[dy:dy + h, dx:dx + w]).sum(axis=2) > 60
    return int(unlike.sum())


def painted(image: Image.Image) -> int:
    return sum(1 for j in range(256) for i in range(256) if image.getpixel((i, j))[3])


@pytest.fixture(scope="module")
def public_tiles(base_url, http, collections):
    """Per public spatial layer: the z17 tile (x, y) holding a point of one of its features."""
    tiles = {}
    for c in collections:
        if not is_spatial(http, base_url, c["id"]):
            continue
        features = http.get(f"{base_url}/collections/{c['id']}/items", params={"limit": 1, "f": "json"}, timeout=60).json()["features"]
        if features and features[0].get("geometry"):
            point = shape(features[0]["geometry"]).representative_point()
            tiles[c["id"]] = mercator_tile(point.x, point.y, Z)
    assert len(tiles) >= 10, tiles
    return tiles


def test_owslib_reads_a_tile_and_a_map_of_every_public_layer(base_url, public_tiles):
    wmts = WebMapTileService(f"{base_url}/wmts")
    wms = WebMapService(f"{base_url}/wms", version="1.3.0")
    assert set(public_tiles) <= set(wmts.contents) and set(public_tiles) <= set(wms.contents)
    blank = []
    for layer, (x, y) in sorted(public_tiles.items()):
        tile = Image.open(io.BytesIO(wmts.gettile(layer=layer, tilematrixset="WebMercatorQuad", tilematrix=str(Z), row=y, column=x,
                                                  format="image/png").read())).convert("RGBA")
        assert tile.size == (256, 256), layer
        assert differing(tile, png(kvp_tile(base_url, layer, "WebMercatorQuad", Z, y, x))) == 0, layer
        minx, miny, maxx, maxy = tile_bounds(x, y, Z)
        drawn = Image.open(io.BytesIO(wms.getmap(layers=[layer], styles=[""], srs="EPSG:3857", bbox=(minx, miny, maxx, maxy),
                                                 size=(256, 256), format="image/png", transparent=True).read())).convert("RGBA")
        assert drawn.size == (256, 256), layer
        assert differing(tile, drawn) < 0.02 * 256 * 256, layer
        if painted(tile) == 0:
            blank.append(layer)
    assert not blank, f"layers whose feature's tile shows nothing: {blank}"


def test_gdal_wmts_and_wms_drivers_read_every_public_layer(base_url, public_tiles, tmp_path):
    env = gdal_env(tmp_path)
    listed = subprocess.run(["gdalinfo", f"WMTS:{base_url}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities"], capture_output=True, text=True,
                            timeout=120, env=env)
    assert listed.returncode == 0, listed.stderr
    for layer, (x, y) in sorted(public_tiles.items()):
        assert f"layer={layer}," in listed.stdout, layer
        minx, miny, maxx, maxy = tile_bounds(x, y, Z)
        tile = png(kvp_tile(base_url, layer, "WebMercatorQuad", Z, y, x))
        wmts_out = tmp_path / f"{layer}-wmts.png"
        made = subprocess.run(["gdal_translate", "-of", "PNG", "-projwin", str(minx), str(maxy), str(maxx), str(miny),
                               f"WMTS:{base_url}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities,layer={layer},tilematrixset=WebMercatorQuad,zoom_level={Z}",
                               str(wmts_out)], capture_output=True, text=True, timeout=180, env=env)
        assert made.returncode == 0, (layer, made.stderr)
        copy = Image.open(wmts_out).convert("RGBA")
        assert copy.size == (256, 256) and differing_within_a_pixel(copy, tile) < 0.01 * 256 * 256, layer
        wms_out = tmp_path / f"{layer}-wms.png"
        url = (f"WMS:{base_url}/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS={layer}&CRS=EPSG:3857"
               f"&BBOX={minx},{miny},{maxx},{maxy}&FORMAT=image/png&TRANSPARENT=TRUE")
        made = subprocess.run(["gdal_translate", "-of", "PNG", "-outsize", "256", "256", url, str(wms_out)], capture_output=True, text=True,
                              timeout=180, env=env)
        assert made.returncode == 0, (layer, made.stderr)
        drawn = Image.open(wms_out).convert("RGBA")
        assert drawn.size == (256, 256) and differing_within_a_pixel(drawn, tile) < 0.02 * 256 * 256, layer

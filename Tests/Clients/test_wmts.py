"""WMTS 1.0.0 PNG tiles (issue 55 §2) read by OWSLib's WebMapTileService and GDAL's WMTS driver: each
public layer is listed over the three tile matrix sets, a rendered tile shows what WMS GetMap draws for
the same box, Tianditu's `TILEMATRIXSET=c` gets the CGCS2000 tiles, and a layer the anonymous caller may
not read has no tiles."""

import io
import math
import subprocess
import xml.etree.ElementTree as ET

import requests
from owslib.wmts import WebMapTileService
from PIL import Image
from shapely.geometry import shape

from conftest import is_spatial
from test_wms import gdal_env

HALF = 20037508.342789244


def mercator_tile(lon, lat, z):
    n = 2 ** z
    x = int((lon + 180) / 360 * n)
    y = int((1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n)
    return x, y


def tile_bounds(x, y, z):
    span = 2 * HALF / 2 ** z
    return (-HALF + x * span, HALF - (y + 1) * span, -HALF + (x + 1) * span, HALF - y * span)


def lot_centre(http, base_url):
    first = http.get(f"{base_url}/collections/parking_lots/items", params={"limit": 50, "f": "json"}, timeout=30).json()["features"]
    c = shape(first[len(first) // 2]["geometry"]).centroid
    return c.x, c.y


def png(response) -> Image.Image:
    assert response.status_code == 200 and response.headers["Content-Type"] == "image/png", response.text[:300]
    return Image.open(io.BytesIO(response.content)).convert("RGBA")


def differing(a: Image.Image, b: Image.Image) -> int:
    return sum(1 for j in range(256) for i in range(256) if sum(abs(p - q) for p, q in zip(a.getpixel((i, j)), b.getpixel((i, j)))) > 60)


def kvp_tile(base_url, layer, tms, z, row, col, **extra):
    params = {"SERVICE": "WMTS", "VERSION": "1.0.0", "REQUEST": "GetTile", "LAYER": layer, "STYLE": "default", "FORMAT": "image/png",
              "TILEMATRIXSET": tms, "TILEMATRIX": z, "TILEROW": row, "TILECOL": col}
    params.update(extra)
    return requests.get(f"{base_url}/wmts", params=params, timeout=120)


def test_owslib_reads_the_capabilities_and_a_tile(base_url, http, collections):
    wmts = WebMapTileService(f"{base_url}/wmts")
    spatial = {c["id"] for c in collections if is_spatial(http, base_url, c["id"])}
    assert set(wmts.contents) == spatial and "water_mains" not in wmts.contents
    assert {"WebMercatorQuad", "WorldCRS84Quad", "CGCS2000Quad"} <= set(wmts.tilematrixsets)
    assert wmts.tilematrixsets["CGCS2000Quad"].tilematrix["1"].topleftcorner == (90.0, -180.0), "lat,lon: EPSG:4490's axis order"
    assert wmts.tilematrixsets["WebMercatorQuad"].tilematrix["0"].topleftcorner == (-HALF, HALF)
    lon, lat = lot_centre(http, base_url)
    x, y = mercator_tile(lon, lat, 16)
    tile = wmts.gettile(layer="parking_lots", tilematrixset="WebMercatorQuad", tilematrix="16", row=y, column=x, format="image/png")
    image = Image.open(io.BytesIO(tile.read())).convert("RGBA")
    assert image.size == (256, 256) and any(image.getpixel((i, j))[3] for j in range(0, 256, 4) for i in range(0, 256, 4))


def test_a_tile_shows_what_getmap_draws_for_its_box(base_url, http):
    lon, lat = lot_centre(http, base_url)
    x, y = mercator_tile(lon, lat, 16)
    rest = png(requests.get(f"{base_url}/wmts/1.0.0/parking_lots/default/WebMercatorQuad/16/{y}/{x}.png", timeout=120))
    kvp = png(kvp_tile(base_url, "parking_lots", "WebMercatorQuad", 16, y, x))
    assert differing(rest, kvp) == 0, "RESTful and KVP tiles are the same tile"
    minx, miny, maxx, maxy = tile_bounds(x, y, 16)
    drawn = png(requests.get(f"{base_url}/wms", params={
        "SERVICE": "WMS", "VERSION": "1.3.0", "REQUEST": "GetMap", "LAYERS": "parking_lots", "STYLES": "", "CRS": "EPSG:3857",
        "BBOX": f"{minx},{miny},{maxx},{maxy}", "WIDTH": 256, "HEIGHT": 256, "FORMAT": "image/png", "TRANSPARENT": "TRUE"}, timeout=120))
    assert differing(rest, drawn) < 0.02 * 256 * 256
    assert sum(1 for j in range(256) for i in range(256) if rest.getpixel((i, j))[3]) > 100, "the tile shows lots"


def test_tianditu_c_gets_the_cgcs2000_tiles(base_url, http):
    lon, lat = lot_centre(http, base_url)
    level = 16  # CGCS2000Quad level n is WorldCRS84Quad level n - 1: 0.703125 / 2^(n-1) degrees per pixel.
    span = 0.703125 * 256 / 2 ** (level - 1)
    col, row = int((lon + 180) / span), int((90 - lat) / span)
    tianditu = png(kvp_tile(base_url, "parking_lots", "c", level, row, col))
    named = png(kvp_tile(base_url, "parking_lots", "CGCS2000Quad", level, row, col))
    crs84 = png(kvp_tile(base_url, "parking_lots", "WorldCRS84Quad", level - 1, row, col))
    assert differing(tianditu, named) == 0 and differing(named, crs84) == 0


def test_restricted_layer_and_bad_tiles_are_exceptions(base_url):
    def code(response):
        root = ET.fromstring(response.content)
        return root.find("{http://www.opengis.net/ows/1.1}Exception").get("exceptionCode")
    hidden = kvp_tile(base_url, "water_mains", "WebMercatorQuad", 16, 0, 0)
    assert hidden.status_code == 400 and code(hidden) == "InvalidParameterValue"
    assert code(kvp_tile(base_url, "parking_lots", "WebMercatorQuad", 2, 9, 0)) == "TileOutOfRange"
    assert code(kvp_tile(base_url, "parking_lots", "Nowhere", 2, 0, 0)) == "InvalidParameterValue"
    assert code(kvp_tile(base_url, "parking_lots", "WebMercatorQuad", 2, 0, 0, FORMAT="image/gif")) == "InvalidParameterValue"


def test_gdal_wmts_driver_reads_the_layers(base_url, http, tmp_path):
    listed = subprocess.run(["gdalinfo", f"WMTS:{base_url}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities"], capture_output=True, text=True, timeout=120, env=gdal_env(tmp_path))
    assert listed.returncode == 0, listed.stderr
    assert "layer=parking_lots" in listed.stdout and "water_mains" not in listed.stdout
    lon, lat = lot_centre(http, base_url)
    x, y = mercator_tile(lon, lat, 16)
    minx, miny, maxx, maxy = tile_bounds(x, y, 16)
    out = tmp_path / "tile.png"
    made = subprocess.run(["gdal_translate", "-of", "PNG", "-projwin", str(minx), str(maxy), str(maxx), str(miny),
                           f"WMTS:{base_url}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities,layer=parking_lots,tilematrixset=WebMercatorQuad,zoom_level=16",
                           str(out)], capture_output=True, text=True, timeout=180, env=gdal_env(tmp_path))
    assert made.returncode == 0, made.stderr
    copy = Image.open(out).convert("RGBA")
    assert copy.size == (256, 256)
    tile = png(kvp_tile(base_url, "parking_lots", "WebMercatorQuad", 16, y, x))
    assert differing(copy, tile) < 0.01 * 256 * 256


def test_vector_tiles_are_the_ogc_api_tiles(base_url, http):
    import mapbox_vector_tile
    lon, lat = lot_centre(http, base_url)
    x, y = mercator_tile(lon, lat, 16)
    wmts = WebMapTileService(f"{base_url}/wmts")
    assert "application/vnd.mapbox-vector-tile" in wmts.contents["parking_lots"].formats
    kvp = kvp_tile(base_url, "parking_lots", "WebMercatorQuad", 16, y, x, FORMAT="application/vnd.mapbox-vector-tile")
    rest = requests.get(f"{base_url}/wmts/1.0.0/parking_lots/default/WebMercatorQuad/16/{y}/{x}.pbf", timeout=60)
    ogc = requests.get(f"{base_url}/collections/parking_lots/tiles/WebMercatorQuad/16/{y}/{x}", headers={"Accept-Encoding": "identity"}, timeout=60)
    assert kvp.status_code == rest.status_code == ogc.status_code == 200
    assert kvp.headers["Content-Type"] == "application/vnd.mapbox-vector-tile"
    assert kvp.content == rest.content == ogc.content
    decoded = mapbox_vector_tile.decode(kvp.content)
    assert list(decoded) == ["parking_lots"] and decoded["parking_lots"]["features"]


def test_getfeatureinfo_finds_the_hospital_in_its_tile(base_url, http):
    hospital = http.get(f"{base_url}/collections/hospitals/items", params={"limit": 1, "f": "json"}, timeout=30).json()["features"][0]
    lon, lat = hospital["geometry"]["coordinates"][:2]
    z = 17
    n = 2 ** z
    fx = (lon + 180) / 360 * n
    fy = (1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n
    params = {"SERVICE": "WMTS", "VERSION": "1.0.0", "REQUEST": "GetFeatureInfo", "LAYER": "hospitals", "STYLE": "default",
              "FORMAT": "image/png", "TILEMATRIXSET": "WebMercatorQuad", "TILEMATRIX": z, "TILEROW": int(fy), "TILECOL": int(fx),
              "I": int((fx % 1) * 256), "J": int((fy % 1) * 256), "INFOFORMAT": "application/json"}
    found = requests.get(f"{base_url}/wmts", params=params, timeout=60).json()["features"]
    assert [f["id"] for f in found] == [f"hospitals.{hospital['id']}"]
    assert found[0]["properties"] == hospital["properties"], "masked alike, as the features API"
    html = requests.get(f"{base_url}/wmts", params={**params, "INFOFORMAT": "text/html"}, timeout=60)
    assert hospital["properties"]["name"] in html.text
    out = requests.get(f"{base_url}/wmts", params={**params, "I": 256}, timeout=60)
    assert out.status_code == 400 and b"PointIJOutOfRange" in out.content

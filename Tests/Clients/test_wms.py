"""WMS 1.3.0 (issue 55 §3) read by OWSLib's WebMapService and GDAL's WMS driver, with rendered maps
checked by pixels against what the test works out from the layers' features and the web map's style
(/tiles/WebMercatorQuad/style.json): a parking lot's inside has the lots' fill colour, nothing is drawn
away from the features, the same area drawn in EPSG:4490 and EPSG:3857 agrees, and a layer the
anonymous caller may not read is neither listed nor drawn."""

import io
import json
import math
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest
import requests
from owslib.wms import WebMapService
from PIL import Image
from pyproj import Transformer
from shapely.geometry import Point, box, shape

from conftest import is_spatial

WMS_NS = {"wms": "http://www.opengis.net/wms", "ogc": "http://www.opengis.net/ogc"}
RESTRICTED = "water_mains"  # conditional sharing: its owner 水务和湖泊局 reads it, the public does not


def token(department: str | None, role: str) -> str:
    args = [os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--role", role, "--subject", "wms-test",
            "--store", os.environ["CITYTWIN_CLIENT_STORE"]]
    if department:
        args += ["--department", department]
    made = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def style_paint(http, base_url, layer_id: str, prop: str):
    style = http.get(f"{base_url}/tiles/WebMercatorQuad/style.json", timeout=30).json()
    for layer in style["layers"]:
        if layer["id"] == layer_id:
            return layer["paint"][prop]
    raise AssertionError(f"the style has no layer {layer_id}")


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def get_map(base_url, layers, bbox, crs="EPSG:4490", size=(256, 256), fmt="image/png", headers=None, **extra):
    params = {"SERVICE": "WMS", "VERSION": "1.3.0", "REQUEST": "GetMap", "LAYERS": ",".join(layers), "STYLES": "",
              "CRS": crs, "BBOX": ",".join(repr(float(v)) for v in bbox), "WIDTH": size[0], "HEIGHT": size[1], "FORMAT": fmt}
    params.update(extra)
    return requests.get(f"{base_url}/wms", params=params, headers=headers or {}, timeout=120)


def features_in(http, base_url, collection, lonlat_box, limit=2000):
    west, south, east, north = lonlat_box
    r = http.get(f"{base_url}/collections/{collection}/items",
                 params={"bbox": f"{west},{south},{east},{north}", "limit": limit, "f": "json"}, timeout=60)
    r.raise_for_status()
    return r.json()["features"]


def exception_code(response) -> str:
    root = ET.fromstring(response.content)
    return root.find("ogc:ServiceException", WMS_NS).get("code")


@pytest.fixture(scope="module")
def lot_area(http, base_url):
    """A 0.004° square around a parking lot (public) of the district: z ≈ 15.5 at 256 px, where the
    style draws lots (from z 14) but not their names (from z 16)."""
    first = http.get(f"{base_url}/collections/parking_lots/items", params={"limit": 50, "f": "json"}, timeout=30).json()["features"]
    centre = shape(first[len(first) // 2]["geometry"]).centroid
    return (centre.x - 0.002, centre.y - 0.002, centre.x + 0.002, centre.y + 0.002)


def test_owslib_reads_the_capabilities(base_url, http, collections):
    wms = WebMapService(f"{base_url}/wms", version="1.3.0")
    spatial = {c["id"]: c for c in collections if is_spatial(http, base_url, c["id"])}
    assert set(wms.contents) == set(spatial), set(wms.contents) ^ set(spatial)
    assert RESTRICTED not in wms.contents
    for name, layer in wms.contents.items():
        assert layer.title == spatial[name]["title"], name
        assert layer.queryable == 1, name
        assert {"CRS:84", "EPSG:4490", "EPSG:4326", "EPSG:3857", "EPSG:4547"} <= set(layer.crsOptions), (name, layer.crsOptions)
        assert "default" in layer.styles and layer.styles["default"].get("legend"), name
        extent = spatial[name].get("extent", {}).get("spatial", {}).get("bbox")
        if extent and layer.boundingBoxWGS84:
            assert all(abs(a - b) < 1e-6 for a, b in zip(layer.boundingBoxWGS84, extent[0])), (name, layer.boundingBoxWGS84, extent)
    assert {op.name for op in wms.operations} >= {"GetCapabilities", "GetMap", "GetFeatureInfo"}
    assert set(wms.getOperationByName("GetMap").formatOptions) == {"image/png", "image/jpeg", "application/pdf"}


def test_capabilities_boxes_follow_each_crs_axis_order(base_url):
    """EPSG:4326 and 4490 boxes are lat,lon (WMS 1.3.0 §6.7.4); CRS:84 and EPSG:3857 are x,y."""
    root = ET.fromstring(requests.get(f"{base_url}/wms", params={"SERVICE": "WMS", "REQUEST": "GetCapabilities"}, timeout=60).content)
    assert root.tag == "{http://www.opengis.net/wms}WMS_Capabilities" and root.get("version") == "1.3.0"
    layer = next(l for l in root.iter("{http://www.opengis.net/wms}Layer") if l.findtext("wms:Name", namespaces=WMS_NS) == "roads")
    geo = layer.find("wms:EX_GeographicBoundingBox", WMS_NS)
    west, south = float(geo.findtext("wms:westBoundLongitude", namespaces=WMS_NS)), float(geo.findtext("wms:southBoundLatitude", namespaces=WMS_NS))
    boxes = {b.get("CRS"): b for b in layer.findall("wms:BoundingBox", WMS_NS)}
    assert float(boxes["EPSG:4326"].get("minx")) == pytest.approx(south) and float(boxes["EPSG:4326"].get("miny")) == pytest.approx(west)
    assert float(boxes["EPSG:4490"].get("minx")) == pytest.approx(south)
    assert float(boxes["CRS:84"].get("minx")) == pytest.approx(west)
    x, y = Transformer.from_crs("EPSG:4490", "EPSG:3857", always_xy=True).transform(west, south)
    assert float(boxes["EPSG:3857"].get("minx")) == pytest.approx(x, abs=1) and float(boxes["EPSG:3857"].get("miny")) == pytest.approx(y, abs=1)


def test_capabilities_advertise_getlegendgraphic(base_url):
    """The SLD-WMS legend operation in Request (sld:GetLegendGraphic, as GeoServer and MapServer
    write it) and a LegendURL per layer's Style that answers with the legend image."""
    root = ET.fromstring(requests.get(f"{base_url}/wms", params={"SERVICE": "WMS", "REQUEST": "GetCapabilities"}, timeout=60).content)
    request = root.find("wms:Capability/wms:Request", WMS_NS)
    legend_op = request.find("{http://www.opengis.net/sld}GetLegendGraphic")
    assert legend_op is not None, [c.tag for c in request]
    assert "image/png" in [f.text for f in legend_op.findall("wms:Format", WMS_NS)]
    assert legend_op.find("wms:DCPType/wms:HTTP/wms:Get/wms:OnlineResource", WMS_NS).get("{http://www.w3.org/1999/xlink}href").endswith("/wms?")
    layer = next(l for l in root.iter("{http://www.opengis.net/wms}Layer") if l.findtext("wms:Name", namespaces=WMS_NS) == "land_use")
    url = layer.find("wms:Style/wms:LegendURL", WMS_NS)
    href = url.find("wms:OnlineResource", WMS_NS).get("{http://www.w3.org/1999/xlink}href")
    r = requests.get(href, timeout=60)
    assert r.status_code == 200 and r.headers["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(r.content))
    assert (image.width, image.height) == (int(url.get("width")), int(url.get("height")))


def test_getmap_fills_lots_with_the_style_colour_and_nothing_elsewhere(base_url, http, lot_area):
    colour = hex_rgb(style_paint(http, base_url, "parking_lots-fill", "fill-color"))
    west, south, east, north = lot_area
    r = get_map(base_url, ["parking_lots"], (south, west, north, east), size=(256, 256), TRANSPARENT="TRUE")
    assert r.status_code == 200 and r.headers["Content-Type"] == "image/png", r.text[:300]
    image = Image.open(io.BytesIO(r.content)).convert("RGBA")
    assert image.size == (256, 256)
    polygons = [shape(f["geometry"]) for f in features_in(http, base_url, "parking_lots", lot_area)]
    assert polygons, "no parking lot in the area"
    px = (east - west) / 256  # degrees per pixel (square area, square image)
    inside = outside = filled_inside = empty_outside = 0
    for j in range(2, 256, 5):
        for i in range(2, 256, 5):
            p = Point(west + (i + 0.5) * px, north - (j + 0.5) * px)
            containing = [poly for poly in polygons if poly.contains(p)]
            # Depth inside a lot (> 0), or minus the distance to the nearest one.
            d = max(poly.boundary.distance(p) for poly in containing) if containing else -min(poly.distance(p) for poly in polygons)
            rgba = image.getpixel((i, j))
            if d > 2 * px:  # well inside a lot
                inside += 1
                filled_inside += all(abs(a - b) <= 2 for a, b in zip(rgba[:3], colour)) and rgba[3] == 255
            elif d < -3 * px:  # well away from every lot
                outside += 1
                empty_outside += rgba[3] == 0
    assert inside > 20 and filled_inside == inside, f"{filled_inside} of {inside} pixels inside lots have {colour}"
    assert outside > 100 and empty_outside == outside, f"{outside - empty_outside} pixels away from lots are drawn"


def test_getmap_in_epsg_4490_and_3857_agree(base_url, lot_area):
    west, south, east, north = lot_area
    geographic = Image.open(io.BytesIO(get_map(base_url, ["parking_lots", "roads"], (south, west, north, east), size=(200, 200)).content)).convert("RGB")
    to_merc = Transformer.from_crs("EPSG:4490", "EPSG:3857", always_xy=True)
    x0, y0 = to_merc.transform(west, south)
    x1, y1 = to_merc.transform(east, north)
    # Square pixels in Web Mercator: the same lon/lat box, 200 px wide, as tall as its metres say.
    height = round(200 * (y1 - y0) / (x1 - x0))
    mercator = Image.open(io.BytesIO(get_map(base_url, ["parking_lots", "roads"], (x0, y0, x1, y1), crs="EPSG:3857",
                                             size=(200, height)).content)).convert("RGB").resize((200, 200), Image.NEAREST)
    differ = sum(1 for j in range(200) for i in range(200)
                 if sum(abs(a - b) for a, b in zip(geographic.getpixel((i, j)), mercator.getpixel((i, j)))) > 60)
    assert differ < 0.05 * 200 * 200, f"{differ} of 40000 pixels differ between EPSG:4490 and EPSG:3857"


def test_restricted_layer_is_absent_for_the_anonymous_caller(base_url, lot_area):
    west, south, east, north = lot_area
    anonymous = get_map(base_url, [RESTRICTED], (south, west, north, east))
    assert anonymous.status_code in (400, 401) and exception_code(anonymous) == "LayerNotDefined", anonymous.text[:300]
    owner = {"Authorization": f"Bearer {token('水务和湖泊局', 'viewer')}"}
    caps = requests.get(f"{base_url}/wms", params={"SERVICE": "WMS", "REQUEST": "GetCapabilities"}, headers=owner, timeout=60)
    assert f"<Name>{RESTRICTED}</Name>" in caps.text
    # 0.012° over 256 px is z 13.9: the style draws water mains from z 13.
    drawn = get_map(base_url, [RESTRICTED], (south - 0.004, west - 0.004, north + 0.004, east + 0.004), headers=owner, TRANSPARENT="TRUE")
    assert drawn.status_code == 200, drawn.text[:300]
    image = Image.open(io.BytesIO(drawn.content)).convert("RGBA")
    assert sum(1 for j in range(256) for i in range(256) if image.getpixel((i, j))[3] > 0) > 50, "the owner's map shows its water mains"


def test_getfeatureinfo_finds_the_hospital_under_the_pixel(base_url, http):
    hospital = http.get(f"{base_url}/collections/hospitals/items", params={"limit": 1, "f": "json"}, timeout=30).json()["features"][0]
    lon, lat = hospital["geometry"]["coordinates"][:2]
    bbox = (lat - 0.005, lon - 0.005, lat + 0.005, lon + 0.005)  # lat,lon: EPSG:4490 in WMS 1.3
    params = {"SERVICE": "WMS", "VERSION": "1.3.0", "REQUEST": "GetFeatureInfo", "LAYERS": "land_use,hospitals", "QUERY_LAYERS": "hospitals",
              "STYLES": "", "CRS": "EPSG:4490", "BBOX": ",".join(map(str, bbox)), "WIDTH": 101, "HEIGHT": 101, "I": 50, "J": 50,
              "INFO_FORMAT": "application/json", "FORMAT": "image/png"}
    found = requests.get(f"{base_url}/wms", params=params, timeout=60).json()["features"]
    assert [f["id"] for f in found] == [f"hospitals.{hospital['id']}"]
    assert found[0]["properties"] == hospital["properties"], "the same attributes, masked alike, as the features API"
    html = requests.get(f"{base_url}/wms", params={**params, "INFO_FORMAT": "text/html"}, timeout=60)
    assert html.headers["Content-Type"].startswith("text/html") and hospital["properties"]["name"] in html.text
    away = requests.get(f"{base_url}/wms", params={**params, "I": 0, "J": 0}, timeout=60).json()
    assert away["features"] == []
    bad = requests.get(f"{base_url}/wms", params={**params, "I": 500}, timeout=60)
    assert exception_code(bad) == "InvalidPoint"


def test_getlegendgraphic_draws_each_land_use_class(base_url, http):
    classes = style_paint(http, base_url, "land_use-fill", "fill-color")  # ["match", ["get", "class"], v1, c1, …, fallback]
    opacity = style_paint(http, base_url, "land_use-fill", "fill-opacity")
    # Each class's colour at the style's opacity over the legend's white.
    colours = {tuple(round(c * opacity + 255 * (1 - opacity)) for c in hex_rgb(value)) for value in classes[3:-1:2]}
    r = requests.get(f"{base_url}/wms", params={"SERVICE": "WMS", "REQUEST": "GetLegendGraphic", "LAYER": "land_use", "FORMAT": "image/png"}, timeout=60)
    assert r.status_code == 200 and r.headers["Content-Type"] == "image/png"
    legend = Image.open(io.BytesIO(r.content)).convert("RGB")
    seen = {legend.getpixel((i, j)) for j in range(legend.height) for i in range(legend.width)}
    missing = {c for c in colours if not any(all(abs(a - b) <= 2 for a, b in zip(c, s)) for s in seen)}
    assert not missing, f"legend lacks {missing}"
    assert legend.height >= 22 * (len(colours) + 1), "a row per class under the title"


def test_getmap_formats_and_service_exceptions(base_url, lot_area):
    west, south, east, north = lot_area
    bbox = (south, west, north, east)
    jpeg = get_map(base_url, ["parking_lots"], bbox, fmt="image/jpeg")
    assert jpeg.headers["Content-Type"] == "image/jpeg" and Image.open(io.BytesIO(jpeg.content)).format == "JPEG"
    pdf = get_map(base_url, ["parking_lots"], bbox, fmt="application/pdf")
    assert pdf.headers["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF-")
    assert exception_code(get_map(base_url, ["parking_lots"], bbox, fmt="image/gif")) == "InvalidFormat"
    assert exception_code(get_map(base_url, ["parking_lots"], bbox, size=(100000, 10))) == "InvalidParameterValue"
    assert exception_code(get_map(base_url, ["parking_lots"], bbox, crs="EPSG:999999")) == "InvalidCRS"
    assert exception_code(get_map(base_url, ["no_such_layer"], bbox)) == "LayerNotDefined"
    assert exception_code(get_map(base_url, ["parking_lots"], bbox, STYLES="fancy")) == "StyleNotDefined"
    assert exception_code(requests.get(f"{base_url}/wms", params={"REQUEST": "GetTile"}, timeout=30)) == "OperationNotSupported"


def gdal_env(tmp_path) -> dict:
    """GDAL's WMS/WMTS drivers cache tiles in ./gdalwmscache unless told otherwise: in the test's own directory."""
    return {**os.environ, "GDAL_DEFAULT_WMS_CACHE_PATH": str(tmp_path / "gdalwmscache")}


def test_gdal_wms_driver_reads_the_service(base_url, lot_area, tmp_path):
    listed = subprocess.run(["gdalinfo", f"WMS:{base_url}/wms"], capture_output=True, text=True, timeout=120, env=gdal_env(tmp_path))
    assert listed.returncode == 0, listed.stderr
    assert "LAYERS=parking_lots" in listed.stdout and RESTRICTED not in listed.stdout
    west, south, east, north = lot_area
    url = (f"WMS:{base_url}/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=parking_lots&CRS=EPSG:4326"
           f"&BBOX={south},{west},{north},{east}&FORMAT=image/png")
    out = tmp_path / "lots.png"
    made = subprocess.run(["gdal_translate", "-of", "PNG", "-outsize", "256", "256", url, str(out)], capture_output=True, text=True, timeout=180, env=gdal_env(tmp_path))
    assert made.returncode == 0, made.stderr
    drawn = Image.open(out).convert("RGB")
    mine = Image.open(io.BytesIO(get_map(base_url, ["parking_lots"], (south, west, north, east)).content)).convert("RGB")
    differ = sum(1 for j in range(0, 256, 2) for i in range(0, 256, 2)
                 if sum(abs(a - b) for a, b in zip(drawn.getpixel((i, j)), mine.getpixel((i, j)))) > 60)
    assert differ < 0.05 * 128 * 128, f"{differ} pixels differ between GDAL's copy and GetMap"

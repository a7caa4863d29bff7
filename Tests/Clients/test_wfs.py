"""WFS 2.0 (issue 55 §4) read by OWSLib's WebFeatureService and GDAL's WFS driver with their default
settings: the capabilities list every public spatial layer (and no other), each layer's schema is
described and its features read, `ogr2ogr` copies a layer whose count, attributes and positions equal
the OGC API Features answer for the same layer, and an attribute filter goes to the server as FES."""

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from urllib.parse import parse_qs, unquote, urlparse

import pytest
import requests
from owslib.wfs import WebFeatureService

from conftest import is_spatial, walk_items

NS = {"wfs": "http://www.opengis.net/wfs/2.0", "ows": "http://www.opengis.net/ows/1.1", "gml": "http://www.opengis.net/gml/3.2"}
RESTRICTED = "water_mains"  # conditional sharing: absent for the anonymous caller
COPIED = "shelters"  # a public point layer with names: copied whole by ogr2ogr


def run(*args: str, token: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, CPL_DEBUG="ON")
    if token:
        env["GDAL_HTTP_HEADERS"] = f"Authorization: Bearer {token}"
    done = subprocess.run(list(args), capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def spatial(http, base_url, collections) -> list[str]:
    return sorted(c["id"] for c in collections if is_spatial(http, base_url, c["id"]))


@pytest.fixture(scope="module")
def wfs(base_url) -> WebFeatureService:
    return WebFeatureService(f"{base_url}/wfs", version="2.0.0")


def hits(base_url: str, layer: str, **extra) -> int:
    params = {"SERVICE": "WFS", "VERSION": "2.0.0", "REQUEST": "GetFeature", "TYPENAMES": f"citytwin:{layer}", "RESULTTYPE": "hits"}
    params.update(extra)
    r = requests.get(f"{base_url}/wfs", params=params, timeout=120)
    assert r.status_code == 200, r.text[:500]
    return int(ET.fromstring(r.content).get("numberMatched"))


def test_owslib_reads_the_capabilities(wfs, spatial, collections):
    names = sorted(wfs.contents)
    assert names == [f"citytwin:{c}" for c in spatial]
    assert f"citytwin:{RESTRICTED}" not in names
    extents = {c["id"]: c.get("extent", {}).get("spatial", {}).get("bbox", [None])[0] for c in collections}
    for name, layer in wfs.contents.items():
        assert any("4490" in str(crs) for crs in layer.crsOptions), f"{name}: {layer.crsOptions}"
        assert any("4326" in str(crs) for crs in layer.crsOptions), f"{name}: {layer.crsOptions}"
        box = extents[name.split(":")[1]]
        if box and layer.boundingBoxWGS84:
            assert layer.boundingBoxWGS84 == pytest.approx(tuple(box[:4]), abs=1e-6), name
    operations = [op.name for op in wfs.operations]
    assert {"GetCapabilities", "DescribeFeatureType", "GetFeature", "ListStoredQueries", "DescribeStoredQueries"} <= set(operations)
    stored = wfs.storedqueries
    assert [q.id for q in stored] == ["urn:ogc:def:query:OGC-WFS::GetFeatureById"]


def test_owslib_describes_and_reads_every_public_layer(wfs, base_url, http, spatial):
    for layer in spatial:
        name = f"citytwin:{layer}"
        schema = wfs.get_schema(name)
        assert schema and schema.get("geometry_column") == "geometry", f"{name}: {schema}"
        # Every queryable is described; the rest are attributes masked for the public (no queryables).
        queryables = set(http.get(f"{base_url}/collections/{layer}/queryables", timeout=30).json()["properties"]) - {"geometry"}
        described = set(schema["properties"])
        assert queryables <= described, f"{name}: {queryables - described}"
        response = wfs.getfeature(typename=[name], maxfeatures=5)
        root = ET.fromstring(response.read())
        members = root.findall("wfs:member", NS)
        expected = min(5, hits(base_url, layer))
        assert int(root.get("numberReturned")) == len(members) == expected, name
        matched = http.get(f"{base_url}/collections/{layer}/items", params={"limit": 1, "f": "json"}, timeout=60).json()["numberMatched"]
        assert int(root.get("numberMatched")) == matched, name


def test_owslib_gets_a_feature_by_id(wfs, base_url, http):
    first = http.get(f"{base_url}/collections/{COPIED}/items", params={"limit": 1, "f": "json"}, timeout=60).json()["features"][0]
    response = wfs.getfeature(storedQueryID="urn:ogc:def:query:OGC-WFS::GetFeatureById", storedQueryParams={"ID": f"{COPIED}.{first['id']}"})
    root = ET.fromstring(response.read())
    assert root.tag == f"{{https://citytwin.dev/features}}{COPIED}"
    assert root.get(f"{{{NS['gml']}}}id") == f"{COPIED}.{first['id']}"


def test_ogrinfo_lists_every_public_layer(base_url, spatial):
    listing = run("ogrinfo", "-ro", "-so", f"WFS:{base_url}/wfs").stdout
    listed = sorted(re.findall(r"^\d+: citytwin:(\S+)", listing, re.MULTILINE))
    assert listed == spatial
    assert RESTRICTED not in listed


def test_ogr2ogr_copies_a_layer_as_the_features_api_serves_it(base_url, http, tmp_path):
    out = tmp_path / f"{COPIED}.geojson"
    run("ogr2ogr", "-f", "GeoJSON", "-t_srs", "EPSG:4326", str(out), f"WFS:{base_url}/wfs", f"citytwin:{COPIED}")
    copied = json.loads(out.read_text())["features"]
    served, matched, _ = walk_items(http, base_url, COPIED, 1000)
    assert len(copied) == len(served) == matched
    by_id = {f"{COPIED}.{f['id']}": f for f in served}
    for feature in copied[:: max(1, len(copied) // 10)]:
        original = by_id[feature["properties"]["gml_id"]]
        for key in ("name", "capacity"):
            if original["properties"].get(key) is not None:
                assert feature["properties"][key] == original["properties"][key], key
        lon, lat = feature["geometry"]["coordinates"][:2]
        olon, olat = original["geometry"]["coordinates"][:2]
        assert (lon, lat) == pytest.approx((olon, olat), abs=1e-6)


def test_an_attribute_filter_goes_to_the_server_as_fes(base_url, http):
    served, _, _ = walk_items(http, base_url, COPIED, 1000)
    name = next(f["properties"]["name"] for f in served if f["properties"].get("name") and "'" not in f["properties"]["name"])
    expected = sum(1 for f in served if f["properties"].get("name") == name)
    done = run("ogrinfo", "-ro", "-al", "-where", f"name = '{name}'", f"WFS:{base_url}/wfs", f"citytwin:{COPIED}")
    assert int(re.search(r"Feature Count: (\d+)", done.stdout).group(1)) == expected
    assert len(re.findall(r"^OGRFeature\(", done.stdout, re.MULTILINE)) == expected
    fetched = [unquote(u) for u in re.findall(r"Fetch\((\S*/wfs\?\S*REQUEST=GetFeature\S*)\)", done.stderr, re.IGNORECASE)]
    filtered = [u for u in fetched if "FILTER=" in u.upper()]
    assert filtered, f"GDAL fetched no FILTER: {fetched}"
    assert "PropertyIsEqualTo" in filtered[-1] and name in filtered[-1]


def test_ogrinfo_counts_every_public_layer_as_the_features_api(base_url, http, spatial):
    summary = run("ogrinfo", "-ro", "-al", "-so", f"WFS:{base_url}/wfs").stdout
    counts = dict(re.findall(r"^Layer name: citytwin:(\S+)\n(?:.*\n)*?Feature Count: (\d+)", summary, re.MULTILINE))
    assert sorted(counts) == spatial
    for layer, count in counts.items():
        matched = http.get(f"{base_url}/collections/{layer}/items", params={"limit": 1, "f": "json"}, timeout=60).json()["numberMatched"]
        assert int(count) == matched, layer


def test_ogr2ogr_pages_through_the_largest_layer_with_a_department_token(base_url, tmp_path):
    """`ogr2ogr … WFS:… citytwin:addresses` as a department's GIS user runs it: GDAL pages with
    STARTINDEX (its page size, 100) until the layer ends, and copies every feature."""
    made = subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--department", "应急管理局", "--role", "viewer",
                           "--subject", "wfs-test", "--store", os.environ["CITYTWIN_CLIENT_STORE"]], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    headers = {"Authorization": f"Bearer {token}"}
    params = {"SERVICE": "WFS", "VERSION": "2.0.0", "REQUEST": "GetFeature", "TYPENAMES": "citytwin:addresses", "RESULTTYPE": "hits"}
    size = int(ET.fromstring(requests.get(f"{base_url}/wfs", params=params, headers=headers, timeout=120).content).get("numberMatched"))
    assert size > 1000  # more than one page of CountDefault
    out = tmp_path / "addresses.gpkg"
    done = run("ogr2ogr", "-f", "GPKG", str(out), f"WFS:{base_url}/wfs", "citytwin:addresses", token=token)
    pages = [u for u in re.findall(r"Start download for (\S*/wfs\?\S*)", done.stderr) if "STARTINDEX" in u.upper()]
    assert len(pages) >= 2, pages
    copied = run("ogrinfo", "-ro", "-so", str(out), "citytwin:addresses").stdout
    assert int(re.search(r"Feature Count: (\d+)", copied).group(1)) == size


def test_a_spatial_filter_goes_to_the_server_as_a_fes_bbox(base_url, http, collections):
    """`ogrinfo -spat` sends a fes:BBOX whose gml:Envelope has no srsName: the default CRS's order
    (EPSG:4490 as a URN, latitude first); the count equals the features API's for the same box."""
    roads = next(c for c in collections if c["id"] == "roads")
    west, south, east, north = roads["extent"]["spatial"]["bbox"][0][:4]
    box = (west + (east - west) * 0.25, south + (north - south) * 0.25, west + (east - west) * 0.5, south + (north - south) * 0.5)
    done = run("ogrinfo", "-ro", "-so", "-spat", *(repr(v) for v in box), f"WFS:{base_url}/wfs", "citytwin:roads")
    assert any("<BBOX>" in unquote(u) for u in re.findall(r"Fetch\((\S*/wfs\?\S*)\)", done.stderr)), "GDAL sent no fes:BBOX"
    served = http.get(f"{base_url}/collections/roads/items", params={"bbox": ",".join(map(repr, box)), "limit": 1, "f": "json"}, timeout=60).json()
    assert served["numberMatched"] > 0
    assert int(re.search(r"Feature Count: (\d+)", done.stdout).group(1)) == served["numberMatched"]

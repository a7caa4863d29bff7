"""OWSLib's OGC API - Features client against the live server."""

from owslib.ogcapi.features import Features
from shapely.geometry import shape

from conftest import is_spatial, walk_items


def test_owslib_lists_the_collections(base_url, collections):
    api = Features(base_url)
    listed = api.feature_collections()
    assert sorted(listed) == sorted(c["id"] for c in collections)
    landing = api.links
    assert any(l.get("rel") == "conformance" for l in landing), landing


def test_owslib_reads_conformance(base_url):
    conforms = Features(base_url).conformance()["conformsTo"]
    assert "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core" in conforms
    assert "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson" in conforms


def test_owslib_describes_a_collection(base_url, http, collections):
    api = Features(base_url)
    for c in collections:
        described = api.collection(c["id"])
        assert described["id"] == c["id"]
        if is_spatial(http, base_url, c["id"]):
            assert described["extent"]["spatial"]["bbox"], described
        else:
            # A table without geometry claims no spatial extent.
            assert "spatial" not in described.get("extent", {}), described


def test_owslib_gets_items_and_pages_match(base_url, http, collections):
    api = Features(base_url)
    for c in collections:
        page = api.collection_items(c["id"], limit=10)
        assert page["type"] == "FeatureCollection"
        walked, matched, _ = walk_items(http, base_url, c["id"], 10)
        assert len(page["features"]) == min(10, len(walked)), c["id"]
        assert [f["id"] for f in page["features"]] == [f["id"] for f in walked[:10]], c["id"]
        if matched is not None:
            assert page.get("numberMatched") == matched
        for feature in page["features"]:
            if feature.get("geometry"):
                assert shape(feature["geometry"]).is_valid, f"{c['id']} {feature['id']}"


def test_owslib_filters_by_bbox(base_url, http):
    api = Features(base_url)
    everything, _, _ = walk_items(http, base_url, "roads", 1000)
    west, south, east, north = 114.79, 30.83, 114.80, 30.84
    page = api.collection_items("roads", bbox=[west, south, east, north], limit=1000)
    inside = {f["id"] for f in everything if shape(f["geometry"]).intersects(
        shape({"type": "Polygon", "coordinates": [[[west, south], [east, south], [east, north], [west, north], [west, south]]]}))}
    assert inside, "the bbox holds no road: pick another"
    assert {f["id"] for f in page["features"]} == inside


def test_owslib_gets_one_item_and_queryables(base_url):
    api = Features(base_url)
    first = api.collection_items("roads", limit=1)["features"][0]
    item = api.collection_item("roads", first["id"])
    assert item["id"] == first["id"] and item["geometry"] == first["geometry"]
    queryables = api.collection_queryables("roads")
    assert queryables.get("properties"), queryables

"""Clients that find tiles by following links (GDAL's OGCAPI driver, QGIS) need the links OGC API -
Tiles requires: the landing page to the dataset tilesets (/tiles) and tile matrix sets, and each
collection with geometry to its own tilesets. GDAL 3.6's OGCAPI driver says 'API TILES requested,
but not available' for a collection without the tilesets-vector link."""

TILESETS_VECTOR = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector"
TILING_SCHEMES = "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes"


def rels(document: dict) -> dict[str, str]:
    return {l["rel"]: l["href"].split("?")[0] for l in document.get("links", [])}


def test_landing_page_links_to_dataset_tiles_and_tile_matrix_sets(base_url, http):
    landing = rels(http.get(f"{base_url}/", params={"f": "json"}, timeout=30).json())
    assert landing.get(TILESETS_VECTOR) == f"{base_url}/tiles", landing
    assert landing.get(TILING_SCHEMES) == f"{base_url}/tileMatrixSets", landing


def test_every_collection_links_to_its_vector_tilesets(base_url, http, collections):
    for c in collections:
        tiles = http.get(f"{base_url}/collections/{c['id']}/tiles", params={"f": "json"}, timeout=30)
        if tiles.status_code == 404:
            continue  # a layer without geometry has no tiles, and must not link to them
        assert tiles.status_code == 200
        described = rels(http.get(f"{base_url}/collections/{c['id']}", params={"f": "json"}, timeout=30).json())
        assert described.get(TILESETS_VECTOR) == f"{base_url}/collections/{c['id']}/tiles", (c["id"], described)

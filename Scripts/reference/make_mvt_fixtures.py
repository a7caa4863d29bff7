#!/usr/bin/env python3
"""Generates the Mapbox Vector Tile reference fixtures for TilesTests with an independent
encoder: mapbox-vector-tile (PyPI, protobuf-based) plus shapely 2 for areas.

One tile of WorldCRS84Quad (level 10, row 284, col 1686: Beijing's tile, tiles-and-crs.md §3)
holds known geometries given in longitude/latitude: a block with a courtyard (polygon with a
hole, the hole too crossing the edge but inside the 64-unit buffer) across the tile's west edge, a multipolygon with one part across the east edge, lines
(one crossing the north edge), points (one outside the buffer) and properties of every MVT
value type. The reference ENCODES them (quantized to the tile's bounds, extent 4096, y down,
winding enforced, no clipping: mapbox-vector-tile does not clip) and DECODES its own bytes.

Written files (both committed):
  Tests/TilesTests/Fixtures/mvt_reference.mvt   the reference tile bytes
  Tests/TilesTests/Fixtures/mvt_reference.json  inputs (lon/lat GeoJSON), the reference's
      decoded features (tile units, y down) and, per feature, the area (tile units²) of the
      decoded geometry clipped to the tile plus a 64-unit buffer, which is what CityTwin keeps.

    python3 -m venv /tmp/mvtvenv && /tmp/mvtvenv/bin/pip install mapbox-vector-tile shapely
    /tmp/mvtvenv/bin/python Scripts/reference/make_mvt_fixtures.py
"""
import json
import os
from importlib.metadata import version

import mapbox_vector_tile
import shapely
from shapely.geometry import shape

EXTENT = 4096
BUFFER = 64
LEVEL, ROW, COL = 10, 284, 1686
SPAN = 180.0 / 2 ** LEVEL                       # degrees per tile at WorldCRS84Quad level 10
MIN_LON = -180.0 + COL * SPAN
MAX_LAT = 90.0 - ROW * SPAN
BOUNDS = (MIN_LON, MAX_LAT - SPAN, MIN_LON + SPAN, MAX_LAT)


def lonlat(x, y):
    """Tile units (y down) to lon/lat; inputs carry fractions away from .5 so rounding agrees."""
    return [MIN_LON + x / EXTENT * SPAN, MAX_LAT - y / EXTENT * SPAN]


def ring(points):
    pts = [lonlat(x, y) for x, y in points]
    return pts + [pts[0]]


# Rings are written counter-clockwise in lon/lat (RFC 7946), holes clockwise: both encoders
# must flip them for MVT.
FEATURES = [
    {"id": 1, "geometry": {"type": "Polygon", "coordinates": [
        ring([(-300.3, 2000.2), (900.7, 2000.2), (900.7, 1000.4), (-300.3, 1000.4)]),
        ring([(-50.2, 1300.3), (-50.2, 1700.8), (300.6, 1700.8), (300.6, 1300.3)]),
    ]}, "properties": {"name": "汉正街 block", "floors": 12, "height_m": 37.5, "heritage": True, "offset": -7}},
    {"id": 2, "geometry": {"type": "MultiPolygon", "coordinates": [
        [ring([(2000.2, 3000.3), (2400.7, 3000.3), (2400.7, 2600.1), (2000.2, 2600.1)])],
        [ring([(3900.4, 500.2), (4400.6, 500.2), (4400.6, 100.3), (3900.4, 100.3)])],
    ]}, "properties": {"name": "park", "floors": 0, "height_m": 0.25, "heritage": False, "offset": -7}},
    {"id": 3, "geometry": {"type": "LineString", "coordinates": [
        lonlat(1000.2, 800.3), lonlat(1200.4, 300.1), lonlat(1500.3, -200.2)]},
     "properties": {"name": "解放大道", "lanes": 6, "oneway": False}},
    {"id": 4, "geometry": {"type": "MultiLineString", "coordinates": [
        [lonlat(100.1, 3900.2), lonlat(800.3, 3800.4)],
        [lonlat(900.2, 3700.1), lonlat(1600.4, 3600.3), lonlat(1700.2, 3300.2)]]},
     "properties": {"name": "drain", "lanes": 0, "oneway": True}},
    {"id": 5, "geometry": {"type": "Point", "coordinates": lonlat(2048.3, 2048.2)},
     "properties": {"name": "shelter", "capacity": 500, "score": 0.875}},
    {"id": 6, "geometry": {"type": "MultiPoint", "coordinates": [
        lonlat(10.2, 20.3), lonlat(4000.4, 4090.1), lonlat(3000.3, 1500.2), lonlat(4300.2, 2000.3)]},
     "properties": {"name": "hydrants", "capacity": 3, "score": -1.5}},
]

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "Tests", "TilesTests", "Fixtures")


def main():
    layer = {"name": "city", "features": [
        {"id": f["id"], "geometry": shape(f["geometry"]).wkt, "properties": f["properties"]} for f in FEATURES]}
    data = mapbox_vector_tile.encode([layer], default_options={
        "quantize_bounds": BOUNDS, "extents": EXTENT, "y_coord_down": False, "check_winding_order": True})
    decoded = mapbox_vector_tile.decode(data, default_options={"y_coord_down": True})
    clip = shapely.box(-BUFFER, -BUFFER, EXTENT + BUFFER, EXTENT + BUFFER)
    features = []
    for f in decoded["city"]["features"]:
        g = shape(f["geometry"])
        features.append({
            "id": f["id"], "type": f["type"], "geometry": f["geometry"], "properties": f["properties"],
            "clippedArea": shapely.area(shapely.intersection(g, clip)) if f["geometry"]["type"].endswith("Polygon") else 0,
            "valid": bool(shapely.is_valid(g)),
        })
    doc = {
        "generator": f"mapbox-vector-tile {version('mapbox-vector-tile')}, shapely {shapely.__version__}",
        "tileMatrixSet": "WorldCRS84Quad", "tile": {"matrix": LEVEL, "row": ROW, "col": COL},
        "bounds": BOUNDS, "extent": EXTENT, "buffer": BUFFER,
        "inputs": FEATURES,
        "decoded": {"name": "city", "extent": decoded["city"]["extent"], "version": decoded["city"]["version"],
                    "features": features},
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "mvt_reference.mvt"), "wb") as fh:
        fh.write(data)
    with open(os.path.join(OUT, "mvt_reference.json"), "w", encoding="utf-8") as fh:
        json.dump(doc, fh, ensure_ascii=False, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()

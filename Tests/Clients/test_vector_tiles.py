"""Vector tiles from the live server decoded by two independent readers: GDAL's MVT driver
(ogr2ogr on z/x/y.pbf files) and mapbox-vector-tile; every decoded geometry must be valid."""

import json
import math
import subprocess

import mapbox_vector_tile
import pytest
import shapely
from shapely.geometry import shape

from conftest import district_centre, web_mercator_tile

MVT = "application/vnd.mapbox-vector-tile"


def fetch_tile(http, url: str) -> bytes | None:
    """The tile's bytes, or None for 204 (in range, no features); anything else fails."""
    response = http.get(url, headers={"Accept": MVT}, timeout=60)
    assert response.status_code in (200, 204), f"{url}: {response.status_code} {response.text[:300]}"
    if response.status_code == 204:
        return None
    assert response.headers["Content-Type"].startswith(MVT), f"{url}: Content-Type {response.headers['Content-Type']}"
    assert response.content, f"{url}: 200 with an empty body"
    return response.content


def district_tiles(collections) -> list[tuple[int, int, int]]:
    """(z, x, y) WebMercatorQuad tiles over the district centre and its neighbours, z14-16."""
    lon, lat = district_centre(collections)
    tiles = []
    for zoom in (14, 15, 16):
        x, y = web_mercator_tile(lon, lat, zoom)
        tiles += [(zoom, x, y), (zoom, x + 1, y), (zoom, x, y + 1)]
    return tiles


@pytest.fixture(scope="module")
def web_mercator_tiles(base_url, http, collections, tmp_path_factory):
    """The dataset tiles over the district, written as z/x/y.pbf under one directory."""
    root = tmp_path_factory.mktemp("tiles")
    fetched = {}
    for z, x, y in district_tiles(collections):
        data = fetch_tile(http, f"{base_url}/tiles/WebMercatorQuad/{z}/{y}/{x}")
        if data is None:
            continue
        path = root / str(z) / str(x) / f"{y}.pbf"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        fetched[(z, x, y)] = path
    assert fetched, "every tile over the district came back empty"
    assert {z for z, _, _ in fetched} == {14, 15, 16}, f"no features at some zoom: {sorted(fetched)}"
    return fetched


def tile_bounds_lonlat(z: int, x: int, y: int) -> tuple[float, float, float, float]:
    n = 2 ** z
    def lat(row):
        return math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * row / n))))
    return x / n * 360 - 180, lat(y + 1), (x + 1) / n * 360 - 180, lat(y)


def invalid(geometries) -> list[str]:
    return [f"{shapely.is_valid_reason(g)}: {g.wkt[:200]}" for g in geometries if not g.is_valid]


def test_gdal_mvt_driver_reads_valid_geometries_inside_the_tile(web_mercator_tiles, tmp_path):
    for (z, x, y), path in web_mercator_tiles.items():
        listing = subprocess.run(["ogrinfo", "-ro", "-so", str(path)], capture_output=True, text=True, timeout=60)
        assert listing.returncode == 0, f"{path}: ogrinfo failed:\n{listing.stderr[-1500:]}"
        assert "using driver `MVT' successful" in listing.stdout, listing.stdout
        # GDAL takes the tile's position from the z/x/y.pbf path; each layer is converted to lon/lat on its own.
        layers = [line.split(":", 1)[1].split("(")[0].strip()
                  for line in listing.stdout.splitlines() if line[:1].isdigit() and ":" in line]
        assert layers, f"{path}: GDAL sees no layer:\n{listing.stdout}"
        west, south, east, north = tile_bounds_lonlat(z, x, y)
        margin = (east - west) * 0.25  # the server clips with a buffer around the tile
        total = 0
        for layer in layers:
            layer_out = tmp_path / f"{z}-{x}-{y}-{layer}.geojson"
            done = subprocess.run(["ogr2ogr", "-f", "GeoJSON", "-t_srs", "EPSG:4326", str(layer_out), str(path), layer],
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"{path} {layer}: ogr2ogr failed:\n{done.stderr[-1500:]}"
            features = json.loads(layer_out.read_text())["features"]
            geometries = [shape(f["geometry"]) for f in features if f.get("geometry")]
            total += len(geometries)
            assert not invalid(geometries), f"{path} {layer}: invalid geometries {invalid(geometries)[:3]}"
            for g in geometries:
                minx, miny, maxx, maxy = g.bounds
                assert west - margin <= minx and maxx <= east + margin and south - margin <= miny and maxy <= north + margin, \
                    f"{path} {layer}: geometry {g.bounds} is far outside tile {(west, south, east, north)}"
        assert total > 0, f"{path}: GDAL read no geometry from a non-empty tile"


def decoded_geometries(data: bytes) -> dict[str, list]:
    """mapbox-vector-tile's decoding, per layer, as shapely geometries in tile coordinates."""
    decoded = mapbox_vector_tile.decode(data, default_options={"y_coord_down": True})
    assert decoded, "the tile decodes to no layer"
    return {name: [shape(f["geometry"]) for f in layer["features"]] for name, layer in decoded.items()}


def test_mapbox_vector_tile_decodes_valid_geometries(web_mercator_tiles):
    for (z, x, y), path in web_mercator_tiles.items():
        layers = decoded_geometries(path.read_bytes())
        for name, geometries in layers.items():
            assert geometries, f"{z}/{x}/{y}: layer {name} has no feature"
            assert not invalid(geometries), f"{z}/{x}/{y} {name}: invalid {invalid(geometries)[:3]}"
            for g in geometries:
                if g.geom_type in ("Polygon", "MultiPolygon"):
                    assert g.area > 0, f"{z}/{x}/{y} {name}: polygon without area {g.wkt[:200]}"


def test_the_two_decoders_agree_on_feature_counts(web_mercator_tiles):
    for (z, x, y), path in web_mercator_tiles.items():
        by_mapbox = {name: len(g) for name, g in decoded_geometries(path.read_bytes()).items()}
        info = subprocess.run(["ogrinfo", "-ro", "-so", "-al", str(path)], capture_output=True, text=True, timeout=60)
        assert info.returncode == 0, info.stderr
        by_gdal, layer = {}, None
        for line in info.stdout.splitlines():
            if line.startswith("Layer name: "):
                layer = line.removeprefix("Layer name: ").strip()
            elif line.startswith("Feature Count: ") and layer is not None:
                by_gdal[layer] = int(line.removeprefix("Feature Count: "))
        by_gdal = {k: v for k, v in by_gdal.items() if v > 0}
        assert by_gdal == by_mapbox, f"{z}/{x}/{y}: GDAL {by_gdal} vs mapbox-vector-tile {by_mapbox}"


def test_collection_tile_holds_only_its_layer(base_url, http, collections):
    lon, lat = district_centre(collections)
    x, y = web_mercator_tile(lon, lat, 14)
    data = fetch_tile(http, f"{base_url}/collections/roads/tiles/WebMercatorQuad/14/{y}/{x}")
    assert data is not None, "no road in the tile over the district centre"
    layers = decoded_geometries(data)
    assert list(layers) == ["roads"], list(layers)
    assert not invalid(layers["roads"])


def test_cgcs2000_tile_decodes(base_url, http, collections):
    tms = http.get(f"{base_url}/tileMatrixSets/CGCS2000Quad", params={"f": "json"}, timeout=30).json()
    assert tms["orderedAxes"] == ["Lat", "Lon"], tms["orderedAxes"]
    lon, lat = district_centre(collections)
    decoded_any = False
    for matrix in tms["tileMatrices"]:
        if int(matrix["id"]) not in (14, 15, 16):
            continue
        top, left = matrix["pointOfOrigin"]  # (lat, lon) in the matrix set's axis order
        span_x = matrix["cellSize"] * matrix["tileWidth"]
        span_y = matrix["cellSize"] * matrix["tileHeight"]
        col, row = int((lon - left) // span_x), int((top - lat) // span_y)
        assert 0 <= col < matrix["matrixWidth"] and 0 <= row < matrix["matrixHeight"]
        data = fetch_tile(http, f"{base_url}/tiles/CGCS2000Quad/{matrix['id']}/{row}/{col}")
        assert data is not None, f"CGCS2000Quad {matrix['id']}/{row}/{col} over the district centre is empty"
        for name, geometries in decoded_geometries(data).items():
            assert geometries, f"CGCS2000Quad {matrix['id']}: layer {name} has no feature"
            assert not invalid(geometries), f"CGCS2000Quad {matrix['id']} {name}: invalid {invalid(geometries)[:3]}"
        decoded_any = True
    assert decoded_any, "the CGCS2000Quad matrix set has no level 14-16"

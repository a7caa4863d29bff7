"""CityTwin's terrain tileset (issue 56 §1) read by independent readers: py3dtiles opens the tileset and
each tile's glTF, pygltflib reads it (test_3dtiles.read_tiles), pyproj takes every vertex from ECEF back
to CGCS2000 and the city's metric CRS, and the checks below hold it to the DEM:

- every surface vertex of a leaf within 0.1 m of the DEM sampled (bilinearly) at its position;
- the geometric error of every tile bounds its real error: the largest vertical distance between a DEM
  node and the tile's triangle above it, measured here from the glTF triangles (2 cm for float32);
- skirts: every skirt vertex hangs straight below a surface vertex of its tile, at least twice the
  root's geometric error deep, so tiles of any two levels side by side leave no crack;
- refinement REPLACE and the CIM level (CIM1) stated in the tileset.

`python test_3dtiles_terrain.py TILESET_DIR DEM.asc` checks an exported directory (Tests/CityTiles3DTests
runs it on `Tileset3DService.exportTerrain`); exit status 0 when it holds.
"""

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pygltflib

from test_3dtiles import _department_token, accessor, bilinear, read_asc, read_tiles, tiles_json

TOLERANCE = 0.02


def triangles(directory, uri):
    """The tile's triangle indices (pygltflib)."""
    gltf = pygltflib.GLTF2.load_from_bytes((Path(directory) / uri).read_bytes())
    primitive = gltf.meshes[0].primitives[0]
    return accessor(gltf, gltf.binary_blob(), primitive.indices)[:, 0].reshape(-1, 3)


def real_error(dem, x, y, h, faces):
    """The largest |triangle − DEM node| over the DEM nodes inside the triangles `faces` (indices into x, y, h)."""
    west, north, cell, values, nodata = dem
    rows, cols = values.shape
    tx, ty, th = x[faces], y[faces], h[faces]
    c0 = np.ceil((tx.min(1) - west) / cell - 0.5 - 1e-6).astype(int)
    c1 = np.floor((tx.max(1) - west) / cell - 0.5 + 1e-6).astype(int)
    r0 = np.ceil((north - ty.max(1)) / cell - 0.5 - 1e-6).astype(int)
    r1 = np.floor((north - ty.min(1)) / cell - 0.5 + 1e-6).astype(int)
    (ax, ay), (bx, by), (cx, cy) = (tx[:, 0], ty[:, 0]), (tx[:, 1], ty[:, 1]), (tx[:, 2], ty[:, 2])
    det = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy)
    worst, measured = 0.0, 0
    for dc in range(int((c1 - c0).max(initial=0)) + 1):
        for dr in range(int((r1 - r0).max(initial=0)) + 1):
            c, r = c0 + dc, r0 + dr
            ok = (c <= c1) & (r <= r1) & (c >= 0) & (r >= 0) & (c < cols) & (r < rows) & (det != 0)
            px, py = west + (c + 0.5) * cell, north - (r + 0.5) * cell
            with np.errstate(divide="ignore", invalid="ignore"):
                l1 = ((by - cy) * (px - cx) + (cx - bx) * (py - cy)) / det
                l2 = ((cy - ay) * (px - cx) + (ax - cx) * (py - cy)) / det
            l3 = 1 - l1 - l2
            ok &= (l1 >= -1e-3) & (l2 >= -1e-3) & (l3 >= -1e-3)
            if not ok.any():
                continue
            node = values[np.clip(r, 0, rows - 1), np.clip(c, 0, cols - 1)]
            if nodata is not None:
                ok &= node != nodata
            surface = l1 * th[:, 0] + l2 * th[:, 1] + l3 * th[:, 2]
            if ok.any():
                worst = max(worst, float(np.abs(surface - node)[ok].max()))
                measured += int(ok.sum())
    return worst, measured


def check_terrain(directory, dem_path):
    """The checks above; returns (leaf vertices checked, tiles checked)."""
    directory = Path(directory)
    dem = read_asc(dem_path)
    document = json.loads((directory / "tileset.json").read_text())
    assert document["root"]["refine"] == "REPLACE"
    assert document["extras"]["cimLevel"] == "CIM1"
    nodes = {t["content"]["uri"]: t for t in tiles_json(document["root"]) if "content" in t}
    root_error = document["root"]["geometricError"]
    for t in tiles_json(document["root"]):
        for child in t.get("children", []):
            assert child["geometricError"] <= t["geometricError"], "a child's error exceeds its parent's"
    leaf_vertices, checked = 0, 0
    for uri, ids, columns, h, x, y in read_tiles(directory):
        assert columns["part"] == ["surface", "skirt"], columns
        tile = nodes[str(uri)]
        faces = triangles(directory, uri)
        surface_faces = faces[np.all(ids[faces] == 0, axis=1)]
        assert len(surface_faces) > 0, f"{uri}: no surface"
        error, measured = real_error(dem, x, y, h, surface_faces)
        assert measured > 0, f"{uri}: no DEM node under the tile"
        assert error <= tile["geometricError"] + TOLERANCE, \
            f"{uri}: real error {error:.3f} m exceeds its geometric error {tile['geometricError']:.3f} m"
        if not tile.get("children"):
            assert tile["geometricError"] == 0
            top = ids == 0
            for px, py, ph in zip(x[top], y[top], h[top]):
                sample = bilinear(dem, px, py)
                assert sample is not None and abs(ph - sample) <= 0.1, f"{uri}: vertex at {ph:.3f} m, the DEM {sample} m"
            leaf_vertices += int(top.sum())
        skirt, top = np.flatnonzero(ids == 1), np.flatnonzero(ids == 0)
        assert len(skirt) > 0, f"{uri}: no skirts"
        for i in skirt:
            d = np.hypot(x[top] - x[i], y[top] - y[i])
            j = top[np.argmin(d)]
            if d.min() <= 0.01 and h[i] < h[j] - 1e-3:
                assert h[j] - h[i] >= 2 * root_error + 1 - TOLERANCE, f"{uri}: a skirt only {h[j] - h[i]:.2f} m deep"
            else:
                # The top of a skirt wall: a copy of a surface vertex.
                assert d.min() <= 0.01 and abs(h[i] - h[j]) <= 1e-3, f"{uri}: a skirt vertex is under no surface vertex"
        checked += 1
    assert checked == len(nodes), f"read {checked} tiles of {len(nodes)}"
    return leaf_vertices, checked


# --- pytest, against the server of Scripts/client_tests.sh --------------------------------------

GEOVOLUMES = "http://www.opengis.net/def/rel/ogc/1.0/3d-geovolumes"


def test_collections_carry_their_3d_containers(base_url):
    """OGC API – 3D GeoVolumes: conformance, each 3D layer's link (rel, type, CIM level) and 3D extent."""
    import requests
    headers = {"Authorization": f"Bearer {_department_token()}"}
    conformance = requests.get(f"{base_url}/conformance", timeout=60).json()["conformsTo"]
    assert "https://www.opengis.net/spec/ogcapi-geovolumes-1/1.0/conf/3d-tiles" in conformance
    listed = {c["id"]: c for c in requests.get(f"{base_url}/collections", headers=headers, timeout=300).json()["collections"]}
    buildings = listed["buildings"]
    assert buildings["cim_level"] == "CIM2" and listed["roads"]["cim_level"] == "CIM1"
    link = next(l for l in buildings["links"] if l["rel"] == GEOVOLUMES)
    assert link["type"] == "application/json+3dtiles" and link["cim_level"] == "CIM2"
    assert buildings["content"] == [link]
    assert not any(l["rel"] == GEOVOLUMES for l in listed["roads"]["links"])
    # The catalogue never builds a tileset on its own request path: once the tileset has been
    # requested, the extent carries its heights (a 3D box in CRS84h).
    tileset = requests.get(link["href"], headers=headers, timeout=300).json()
    listed = {c["id"]: c for c in requests.get(f"{base_url}/collections", headers=headers, timeout=300).json()["collections"]}
    spatial = listed["buildings"]["extent"]["spatial"]
    assert spatial["crs"].endswith("CRS84h") and len(spatial["bbox"][0]) == 6
    one = requests.get(f"{base_url}/collections/buildings", headers=headers, timeout=60).json()
    assert one["extent"] == listed["buildings"]["extent"]
    low, high = spatial["bbox"][0][2], spatial["bbox"][0][5]
    assert low < high and tileset["extras"]["cimLevel"] == "CIM2"


def test_served_terrain_stands_on_the_dem(base_url):
    """The DEM's terrain tileset, linked from its raster, read as a department and checked as above."""
    import requests
    headers = {"Authorization": f"Bearer {_department_token()}"}
    described = requests.get(f"{base_url}/rasters/dem", headers=headers, timeout=60).json()
    link = next(l for l in described["links"] if l["rel"] == GEOVOLUMES)
    assert link["type"] == "application/json+3dtiles" and link["cim_level"] == "CIM1"
    assert requests.get(link["href"], timeout=60).status_code == 401
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        r = requests.get(link["href"], headers=headers, timeout=300)
        assert r.status_code == 200, r.text[:300]
        (work / "tileset.json").write_bytes(r.content)
        for tile in tiles_json(r.json()["root"]):
            if "content" not in tile:
                continue
            uri = tile["content"]["uri"]
            glb = requests.get(f"{base_url}/rasters/dem/{uri}", headers=headers, timeout=60)
            assert glb.status_code == 200 and glb.headers["Content-Type"].startswith("model/gltf-binary")
            (work / uri).parent.mkdir(parents=True, exist_ok=True)
            (work / uri).write_bytes(glb.content)
        dem = requests.get(f"{base_url}/rasters/dem/data", headers=headers, timeout=60)
        (work / "dem.asc").write_bytes(dem.content)
        vertices, tiles = check_terrain(work, work / "dem.asc")
        assert vertices > 0 and tiles > 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: test_3dtiles_terrain.py TILESET_DIR DEM.asc")
    vertices, tiles = check_terrain(sys.argv[1], sys.argv[2])
    print(f"{vertices} leaf vertices and {tiles} terrain tiles checked")

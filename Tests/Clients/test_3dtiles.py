"""CityTwin's 3D Tiles (issue 56) read by independent readers: py3dtiles opens the tileset and its
content, pygltflib reads each glTF, and the checks below hold the result to glTF 2.0's rules and to
the layers: every building's roof at its height above the DEM (the lowest bilinear DEM height at
its footprint's vertices and envelope centre) within 0.1 m, every corner on its footprint, after
transforming the vertices back from ECEF with pyproj.

The pipes: every tube vertex at the pipe's radius (±2 cm) from its axis, which runs from the upstream
node's invert + inlet offset + radius to the downstream node's invert + outlet offset + radius.

Two ways in:
- `python test_3dtiles.py TILESET_DIR DEM.asc BUILDINGS.geojson` checks an exported directory, and
  `python test_3dtiles.py --pipes TILESET_DIR PIPES.geojson NODES.geojson…` a pipes one
  (Tests/CityTiles3DTests runs them on `Tileset3DService.export`); exit status 0 when they hold.
- pytest against the server of Scripts/client_tests.sh: the served tileset, read as a department,
  and `citytwin tiles3d export` of the same store give the same glTF.
"""

import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pygltflib
from pyproj import Transformer
from py3dtiles.tileset.content.gltf import Gltf
from py3dtiles.tileset.tileset import TileSet

COMPONENTS = {5120: "i1", 5121: "u1", 5122: "i2", 5123: "u2", 5125: "u4", 5126: "f4"}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
TO_GEODETIC = Transformer.from_crs("EPSG:4978", "EPSG:4979", always_xy=True)
TO_METRIC = Transformer.from_crs("EPSG:4490", "EPSG:4547", always_xy=True)


def read_asc(path):
    """An ESRI ASCII grid: (west, north, cell, rows × columns array, no-data)."""
    header, rows = {}, []
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if parts and parts[0][0].isalpha():
            header[parts[0].lower()] = float(parts[1])
        elif parts:
            rows.append([float(v) for v in parts])
    values = np.array(rows)
    cell = header["cellsize"]
    west = header.get("xllcorner", header.get("xllcenter", 0) - cell / 2)
    south = header.get("yllcorner", header.get("yllcenter", 0) - cell / 2)
    return west, south + values.shape[0] * cell, cell, values, header.get("nodata_value")


def bilinear(dem, x, y):
    """The DEM between cell centres (edges clamped), None off the grid or on no-data."""
    west, north, cell, values, nodata = dem
    rows, cols = values.shape
    c, r = (x - west) / cell, (north - y) / cell
    if not (0 <= c <= cols and 0 <= r <= rows):
        return None
    if nodata is not None and values[min(int(r), rows - 1), min(int(c), cols - 1)] == nodata:
        return None
    u, v = c - 0.5, r - 0.5
    u0, v0 = math.floor(u), math.floor(v)
    fx, fy = u - u0, v - v0
    c0, c1 = max(0, min(cols - 1, u0)), max(0, min(cols - 1, u0 + 1))
    r0, r1 = max(0, min(rows - 1, v0)), max(0, min(rows - 1, v0 + 1))
    top = values[r0, c0] * (1 - fx) + values[r0, c1] * fx
    bottom = values[r1, c0] * (1 - fx) + values[r1, c1] * fx
    return top * (1 - fy) + bottom * fy


def accessor(gltf, blob, index):
    """An accessor's values, after checking it lies inside its buffer view and the view inside the buffer."""
    a = gltf.accessors[index]
    view = gltf.bufferViews[a.bufferView]
    width, size = WIDTH[a.type], np.dtype(COMPONENTS[a.componentType]).itemsize
    start = a.byteOffset or 0
    assert start + a.count * width * size <= view.byteLength, f"accessor {index} overruns its buffer view"
    assert (view.byteOffset or 0) + view.byteLength <= gltf.buffers[view.buffer].byteLength <= len(blob), \
        f"buffer view {a.bufferView} overruns the buffer"
    values = np.frombuffer(blob, dtype="<" + COMPONENTS[a.componentType], count=a.count * width,
                           offset=(view.byteOffset or 0) + start).reshape(a.count, width)
    if a.min or a.max:
        assert list(values.min(axis=0)) == [np.float32(m) for m in a.min], f"accessor {index}: min {a.min} is not the data's"
        assert list(values.max(axis=0)) == [np.float32(m) for m in a.max], f"accessor {index}: max {a.max} is not the data's"
    return values


def view_bytes(gltf, blob, index):
    view = gltf.bufferViews[index]
    return blob[(view.byteOffset or 0):(view.byteOffset or 0) + view.byteLength]


def property_table(gltf, blob):
    """The EXT_structural_metadata table as {name: [values]} with its row count."""
    metadata = gltf.extensions["EXT_structural_metadata"]
    table = metadata["propertyTables"][0]
    classes = metadata["schema"]["classes"][table["class"]]["properties"]
    columns = {}
    for name, spec in table["properties"].items():
        if classes[name]["type"] == "STRING":
            offsets = np.frombuffer(view_bytes(gltf, blob, spec["stringOffsets"]), dtype="<u4")
            assert len(offsets) == table["count"] + 1 and np.all(np.diff(offsets.astype(np.int64)) >= 0)
            text = view_bytes(gltf, blob, spec["values"])
            columns[name] = [text[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(table["count"])]
        else:
            columns[name] = list(np.frombuffer(view_bytes(gltf, blob, spec["values"]), dtype="<f8"))
            assert len(columns[name]) == table["count"]
    return table["count"], columns


def check_glb(data):
    """pygltflib's reading of one .glb, checked: (vertices in the local z-up frame, feature ids, table)."""
    gltf = pygltflib.GLTF2.load_from_bytes(data)
    blob = gltf.binary_blob()
    assert gltf.asset.version == "2.0"
    assert {"EXT_mesh_features", "EXT_structural_metadata"} <= set(gltf.extensionsUsed or [])
    primitive = gltf.meshes[0].primitives[0]
    assert primitive.mode == 4, "triangles"
    positions = accessor(gltf, blob, primitive.attributes.POSITION)
    normals = accessor(gltf, blob, primitive.attributes.NORMAL)
    assert np.allclose(np.linalg.norm(normals, axis=1), 1, atol=1e-4), "normals are unit vectors"
    ids = accessor(gltf, blob, getattr(primitive.attributes, "_FEATURE_ID_0"))[:, 0]
    indices = accessor(gltf, blob, primitive.indices)[:, 0]
    assert len(indices) % 3 == 0 and indices.max() < len(positions)
    features = primitive.extensions["EXT_mesh_features"]["featureIds"][0]
    count, columns = property_table(gltf, blob)
    assert features["featureCount"] == count and features["propertyTable"] == 0
    assert np.all(ids == np.round(ids)) and ids.max() < count
    local = np.column_stack([positions[:, 0], -positions[:, 2], positions[:, 1]]).astype(np.float64)  # glTF y-up → z-up
    return local, ids.astype(int), columns


def tiles(tile):
    yield tile
    for child in tile.children:
        yield from tiles(child)


def read_tiles(directory):
    """Each content tile of the tileset in `directory`, opened by py3dtiles and checked by pygltflib:
    (uri, feature ids per vertex, property columns, vertices as lon, lat, h and as metric x, y)."""
    directory = Path(directory)
    tileset = TileSet.from_file(directory / "tileset.json")
    document = json.loads((directory / "tileset.json").read_text())
    assert document["asset"]["version"] == "1.1"
    matrix = np.array(document["root"]["transform"], dtype=np.float64).reshape(4, 4).T
    for tile in tiles(tileset.root_tile):
        assert tile.geometric_error >= 0
        if not tile.has_content():
            continue
        content = tile.get_or_fetch_content(tileset.root_uri)
        assert isinstance(content, Gltf), f"{tile.content_uri}: not glTF content"
        local, ids, columns = check_glb((tileset.root_uri / tile.content_uri).read_bytes())
        box = np.array(document_box(document, tile.content_uri))
        centre, half = box[:3], np.abs(box[3:].reshape(3, 3)).sum(axis=0)
        assert np.all(np.abs(local - centre) <= half + 1e-3), f"{tile.content_uri}: a vertex is outside the tile's box"
        ecef = (matrix @ np.column_stack([local, np.ones(len(local))]).T).T[:, :3]
        lon, lat, h = TO_GEODETIC.transform(ecef[:, 0], ecef[:, 1], ecef[:, 2])
        x, y = TO_METRIC.transform(lon, lat)
        yield tile.content_uri, ids, columns, np.asarray(h), np.asarray(x), np.asarray(y)


def features_by_id(path):
    return {str(f["id"]): f for f in json.loads(Path(path).read_text())["features"]}


def check_tileset(directory, dem_path, buildings_path):
    """Every building of the tileset in `directory` on the DEM at its height; returns how many were checked."""
    dem = read_asc(dem_path)
    buildings = {i: f for i, f in features_by_id(buildings_path).items() if (f["properties"].get("height_m") or 0) > 0}
    seen = set()
    for uri, ids, columns, h, x, y in read_tiles(directory):
        for row, fid in enumerate(columns["id"]):
            assert fid in buildings and fid not in seen, f"{fid}: unknown or in two tiles"
            seen.add(fid)
            building = buildings[fid]
            mine = ids == row
            rings = building["geometry"]["coordinates"]
            fx, fy = TO_METRIC.transform([p[0] for p in rings[0]], [p[1] for p in rings[0]])
            samples = [bilinear(dem, a, b) for a, b in zip(fx, fy)]
            samples.append(bilinear(dem, (min(fx) + max(fx)) / 2, (min(fy) + max(fy)) / 2))
            base = min(s for s in samples if s is not None)
            top = base + building["properties"]["height_m"]
            assert abs(h[mine].max() - top) <= 0.1, f"{fid}: roof at {h[mine].max():.3f} m, DEM + height is {top:.3f} m"
            assert abs(h[mine].min() - base) <= 0.1, f"{fid}: walls end at {h[mine].min():.3f} m, the ground is {base:.3f} m"
            corners = np.column_stack([fx, fy])
            for px, py in zip(x[mine], y[mine]):
                assert np.min(np.hypot(corners[:, 0] - px, corners[:, 1] - py)) <= 0.05, f"{fid}: a corner is off its footprint"
    assert seen == set(buildings), f"{len(set(buildings) - seen)} buildings are in no tile"
    return len(seen)


def distance_to_polyline(points, axis):
    """3D distance of each point to the polyline `axis` (both n × 3, metres)."""
    best = np.full(len(points), np.inf)
    for a, b in zip(axis[:-1], axis[1:]):
        d = b - a
        t = np.clip(((points - a) @ d) / max(d @ d, 1e-12), 0, 1)
        best = np.minimum(best, np.linalg.norm(points - (a + t[:, None] * d), axis=1))
    return best


def check_pipes(directory, pipes_path, nodes_paths):
    """Every pipe's tube at its radius around the axis invert + offset + radius at its ends; returns how many."""
    pipes = features_by_id(pipes_path)
    inverts = {}
    for path in nodes_paths:
        inverts.update({i: f["properties"]["invert_elevation_m"] for i, f in features_by_id(path).items()})
    seen = set()
    for uri, ids, columns, h, x, y in read_tiles(directory):
        for row, fid in enumerate(columns["id"]):
            assert fid in pipes and fid not in seen, f"{fid}: unknown or in two tiles"
            seen.add(fid)
            p = pipes[fid]["properties"]
            radius = (p.get("diameter_mm") or p.get("height_mm")) / 2000
            start = inverts[p["upstream_node"]] + (p.get("inlet_offset_m") or 0) + radius
            end = inverts[p["downstream_node"]] + (p.get("outlet_offset_m") or 0) + radius
            line = pipes[fid]["geometry"]["coordinates"]
            lx, ly = TO_METRIC.transform([q[0] for q in line], [q[1] for q in line])
            along = np.concatenate([[0], np.cumsum(np.hypot(np.diff(lx), np.diff(ly)))])
            t = along / along[-1]
            if p.get("flow_dir") == "-":
                t = 1 - t
            axis = np.column_stack([lx, ly, start + (end - start) * t])
            mine = ids == row
            distance = distance_to_polyline(np.column_stack([x[mine], y[mine], h[mine]]), axis)
            assert np.all(np.abs(distance - radius) <= 0.02), \
                f"{fid}: tube {distance.min():.3f}–{distance.max():.3f} m from its axis, radius {radius:.3f} m"
    return len(seen)


def document_box(document, uri):
    """The bounding box of the tile whose content is `uri`, from tileset.json."""
    stack = [document["root"]]
    while stack:
        tile = stack.pop()
        if tile.get("content", {}).get("uri") == str(uri):
            return tile["boundingVolume"]["box"]
        stack.extend(tile.get("children", []))
    raise AssertionError(f"no tile has content {uri}")


# --- pytest, against the server of Scripts/client_tests.sh --------------------------------------

OWNER = "住房和城市更新局"


def _department_token():
    made = subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--department", OWNER, "--role", "viewer",
                           "--subject", "3d-tiles-test", "--store", os.environ["CITYTWIN_CLIENT_STORE"]],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def test_served_tileset_reads_and_stands_on_the_dem(base_url):
    import requests
    headers = {"Authorization": f"Bearer {_department_token()}"}
    assert requests.get(f"{base_url}/collections/buildings/3dtiles", timeout=60).status_code == 401
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        r = requests.get(f"{base_url}/collections/buildings/3dtiles", headers=headers, timeout=300)
        assert r.status_code == 200, r.text[:300]
        (work / "tileset.json").write_bytes(r.content)
        uris = [t["content"]["uri"] for t in tiles_json(r.json()["root"]) if "content" in t]
        for uri in uris:
            glb = requests.get(f"{base_url}/collections/buildings/{uri}", headers=headers, timeout=60)
            assert glb.status_code == 200 and glb.headers["Content-Type"].startswith("model/gltf-binary")
            (work / uri).parent.mkdir(parents=True, exist_ok=True)
            (work / uri).write_bytes(glb.content)
        dem = requests.get(f"{base_url}/rasters/dem/data", headers=headers, timeout=60)
        assert dem.status_code == 200
        (work / "dem.asc").write_bytes(dem.content)
        items = requests.get(f"{base_url}/collections/buildings/items", params={"limit": 10000, "f": "json"},
                             headers=headers, timeout=120)
        assert items.status_code == 200
        (work / "buildings.geojson").write_bytes(items.content)
        assert check_tileset(work, work / "dem.asc", work / "buildings.geojson") > 0
        exported = work / "export"
        run = subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "tiles3d", "export", "--layer", "buildings", "--out", str(exported),
                              "--department", OWNER, "--store", os.environ["CITYTWIN_CLIENT_STORE"]],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        for uri in uris:
            assert (exported / uri.removeprefix("3dtiles/")).read_bytes() == (work / uri).read_bytes(), f"{uri} differs"


def tiles_json(tile):
    yield tile
    for child in tile.get("children", []):
        yield from tiles_json(child)


if __name__ == "__main__":
    if len(sys.argv) == 4:
        print(f"{check_tileset(*sys.argv[1:])} buildings checked")
    elif len(sys.argv) >= 5 and sys.argv[1] == "--pipes":
        print(f"{check_pipes(sys.argv[2], sys.argv[3], sys.argv[4:])} pipes checked")
    else:
        sys.exit("usage: test_3dtiles.py TILESET_DIR DEM.asc BUILDINGS.geojson | --pipes TILESET_DIR PIPES.geojson NODES.geojson…")

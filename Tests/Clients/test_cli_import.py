"""`citytwin import` as a user runs it (the binary the client tests use), into a fresh store:
a GeoJSON file lands whole, in one transaction, in the layer named; a file with one bad value
writes nothing and says which feature and field; the catalog (`citytwin layers`) shows the count
and extent; features without ids get UUID version 7 ids (RFC 9562), in file order."""

import json
import os
import random
import sqlite3
import subprocess
import uuid

import pytest

BIN = os.environ.get("CITYTWIN_CLIENT_BIN", "")


def buildings(n: int, seed: int = 7) -> list[dict]:
    rnd = random.Random(seed)
    features = []
    for i in range(n):
        x, y = rnd.uniform(114.80, 114.85), rnd.uniform(30.40, 30.45)
        ring = [[x, y], [x + 0.0004, y], [x + 0.0004, y + 0.0003], [x, y + 0.0003], [x, y]]
        features.append({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [ring]},
                         "properties": {"name": f"测试小区{i}栋", "use": "住宅", "floors": rnd.randint(1, 30),
                                        "height_m": 30.0, "ground_elevation_m": 22.5, "address_code": f"420117{i:012d}",
                                        "footprint_m2": 1200.0}})
    return features


def write(path, features):
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}, ensure_ascii=False), encoding="utf-8")


def citytwin(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)


def catalog_entry(store, layer):
    listed = citytwin("layers", "--store", str(store))
    assert listed.returncode == 0, listed.stderr
    return next((e for e in json.loads(listed.stdout) if e["id"] == layer), None)


@pytest.fixture
def store(tmp_path):
    return tmp_path / "fresh.sqlite"


def test_a_file_lands_whole_with_its_count_extent_and_ordered_v7_ids(tmp_path, store):
    features = buildings(300)
    source = tmp_path / "buildings.geojson"
    write(source, features)
    done = citytwin("import", str(source), "--layer", "buildings", "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert "Imported 300 features into buildings" in done.stdout
    entry = catalog_entry(store, "buildings")
    assert entry["count"] == 300
    xs = [p[0] for f in features for p in f["geometry"]["coordinates"][0]]
    ys = [p[1] for f in features for p in f["geometry"]["coordinates"][0]]
    assert entry["extent"] == pytest.approx([min(xs), min(ys), max(xs), max(ys)], abs=1e-9)
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT fid, props FROM f_buildings ORDER BY vid").fetchall()
    ids = [fid for fid, _ in rows]
    assert [json.loads(p)["name"] for _, p in rows] == [f["properties"]["name"] for f in features]
    assert all(uuid.UUID(i).version == 7 for i in ids)
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


def test_a_bad_value_writes_nothing_and_names_the_feature_and_field(tmp_path, store):
    good = tmp_path / "good.geojson"
    write(good, buildings(40))
    assert citytwin("import", str(good), "--layer", "buildings", "--store", str(store)).returncode == 0
    features = buildings(2_000, seed=8)
    features[1_234]["properties"]["floors"] = "很多"
    bad = tmp_path / "bad.geojson"
    write(bad, features)
    # --mode append: features without ids join a layer that holds some (the default refuses that, issue 14 §7).
    failed = citytwin("import", str(bad), "--layer", "buildings", "--mode", "append", "--store", str(store))
    assert failed.returncode != 0
    # Features are counted from 1, as a user counts them; no usage text for a failed run.
    assert "import failed, nothing written" in failed.stderr
    assert "feature 1235, field floors" in failed.stderr, failed.stderr
    assert "Usage:" not in failed.stderr
    assert catalog_entry(store, "buildings")["count"] == 40


def test_only_the_target_layer_is_created_in_a_fresh_store(tmp_path, store):
    source = tmp_path / "one.geojson"
    write(source, buildings(1))
    assert citytwin("import", str(source), "--layer", "buildings", "--store", str(store)).returncode == 0
    with sqlite3.connect(store) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'f\\_%' ESCAPE '\\'")}
    assert tables == {"f_buildings"}


def test_a_feature_outside_the_citys_extent_is_refused_unless_the_import_allows_it(tmp_path, store):
    """Issue 58 §5: a building in Beijing imported into the district's catalogue is refused, naming the
    feature, the field and the extent allowed; --allow-outside-extent writes data that really lies there."""
    city = tmp_path / "city.geojson"
    write(city, buildings(40))
    assert citytwin("import", str(city), "--layer", "buildings", "--store", str(store)).returncode == 0
    far = buildings(3, seed=9)
    ring = [[116.40, 39.90], [116.4004, 39.90], [116.4004, 39.9003], [116.40, 39.9003], [116.40, 39.90]]
    far[1]["geometry"]["coordinates"] = [ring]
    source = tmp_path / "far.geojson"
    write(source, far)
    refused = citytwin("import", str(source), "--layer", "buildings", "--mode", "append", "--store", str(store))
    assert refused.returncode != 0
    assert "import failed, nothing written" in refused.stderr
    assert "feature 2, field geometry" in refused.stderr, refused.stderr
    assert "lies outside the city's extent" in refused.stderr and "--allow-outside-extent" in refused.stderr, refused.stderr
    assert catalog_entry(store, "buildings")["count"] == 40
    allowed = citytwin("import", str(source), "--layer", "buildings", "--mode", "append", "--allow-outside-extent", "--store", str(store))
    assert allowed.returncode == 0, allowed.stderr
    assert catalog_entry(store, "buildings")["count"] == 43


# Files as a surveying bureau delivers them, made by GDAL's ogr2ogr from the same buildings: each
# imports through GDAL into the buildings layer with every feature, name and vertex (issue 52 §1).
GDAL_FORMATS = [
    ("OpenFileGDB", "buildings.gdb", []),
    ("FlatGeobuf", "buildings.fgb", []),
    ("GML", "buildings.gml", []),
    ("MapInfo File", "buildings.tab", []),
    ("ESRI Shapefile", "buildings_4547.shp", ["-t_srs", "EPSG:4547", "-lco", "ENCODING=UTF-8"]),
]
# A Shapefile's DBF names are cut to 10 characters: mapped back as a user does.
SHAPEFILE_NAMES = "ground_ele=ground_elevation_m,address_co=address_code,footprint_=footprint_m2"


@pytest.mark.parametrize("driver,name,extra", GDAL_FORMATS, ids=[d for d, _, _ in GDAL_FORMATS])
def test_a_file_in_any_gdal_format_imports_whole(tmp_path, store, driver, name, extra):
    features = buildings(40)
    source = tmp_path / "buildings.geojson"
    write(source, features)
    made = subprocess.run(["ogr2ogr", "-f", driver, str(tmp_path / name), str(source), "-nln", "buildings",
                           "-s_srs", "EPSG:4490", *(extra or ["-t_srs", "EPSG:4490"])],
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    mapped = ["--field-map", SHAPEFILE_NAMES] if name.endswith(".shp") else []
    done = citytwin("import", str(tmp_path / name), "--layer", "buildings", "--store", str(store), *mapped)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Imported 40 features into buildings" in done.stdout
    with sqlite3.connect(store) as db:
        rows = [json.loads(p) for (p,) in db.execute("SELECT props FROM f_buildings ORDER BY vid")]
    # FlatGeobuf keeps its features in its spatial index's order.
    assert sorted((r["name"], r["floors"]) for r in rows) == sorted((f["properties"]["name"], f["properties"]["floors"]) for f in features)
    xs = [p[0] for f in features for p in f["geometry"]["coordinates"][0]]
    ys = [p[1] for f in features for p in f["geometry"]["coordinates"][0]]
    # Through Gauss-Krüger and back (ogr2ogr forward, PROJ inverse): well under a millimetre. GML as
    # ogr2ogr writes it has 6 decimals, and MapInfo keeps degrees as integers at its default
    # bounds' resolution (~1e-6°, ~0.1 m): the files hold no more.
    tolerance = 1e-8 if extra else 1e-6 if driver in ("GML", "MapInfo File") else 1e-9
    assert catalog_entry(store, "buildings")["extent"] == pytest.approx([min(xs), min(ys), max(xs), max(ys)], abs=tolerance)

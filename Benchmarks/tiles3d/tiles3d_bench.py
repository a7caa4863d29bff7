"""3D Tiles of a scaled city's buildings: CityTwin against py3dtiles, on the same buildings in PostGIS.

    tiles3d_bench.py BINARY POSTGRES_URL [--scale 7] [--rounds 3] [--keep]

Untimed setup: a fresh database `citytwin_tiles3d` holding `citytwin district build --scale N` (N × N
sample districts, their DEM mosaic as managed raster `dem`), with postgis_sfcgal for the peer.

Timed, alternating the two sides each round (each keeps its best time, so a load spike on the shared
machine favours neither):
- CityTwin: `citytwin tiles3d export --layer buildings --department 住房和城市更新局` from the PostGIS
  store, a new process each round: it reads every building through the store's access rules, stands
  each on the DEM (the lowest bilinear height under its footprint), extrudes it (roof triangulated by
  GEOS), places every vertex through PROJ in an ENU frame, writes glTF 2.0 with EXT_mesh_features and
  EXT_structural_metadata (the building's attributes) per 250 m leaf, and the quadtree tileset.json.
- py3dtiles (PyPI, `py3dtiles export -D … -t … -c geom -i id`), preceded by the SQL that makes the
  solids it needs from the same rows: `ST_Extrude` (SFCGAL) of each current footprint, transformed to
  the city's metric CRS (EPSG:4547), from its `ground_elevation_m` to `height_m` above it. py3dtiles
  then reads them (ST_AsBinary), triangulates, and writes b3dm tiles (batch ids, no attributes) with a
  tileset.json. The peer does not sample a DEM and carries no attributes: it does less per building.

Both outputs are counted (tiles, bytes) and CityTwin's feature count checked against the rows.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

DB = "citytwin_tiles3d"
OWNER = "住房和城市更新局"
SOLIDS = """
DROP TABLE IF EXISTS public.bench_buildings3d;
CREATE TABLE public.bench_buildings3d AS
SELECT row_number() OVER (ORDER BY fid) AS id,
       ST_Extrude(ST_Translate(ST_Force3DZ(ST_Transform(geom, 4547)), 0, 0, coalesce((props->>'ground_elevation_m')::float8, 0)),
                  0, 0, (props->>'height_m')::float8) AS geom
FROM citytwin.f_buildings WHERE valid_to IS NULL AND (props->>'height_m')::float8 > 0;
"""


def psql(url, sql):
    return subprocess.run(["psql", url, "-qAtc", sql], check=True, capture_output=True, text=True).stdout.strip()


def size(directory):
    files = [p for p in Path(directory).rglob("*") if p.is_file()]
    return len([p for p in files if p.suffix in (".glb", ".b3dm")]), sum(p.stat().st_size for p in files)


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def ours(binary, store, out):
    t = time.perf_counter()
    run = subprocess.run([binary, "tiles3d", "export", "--layer", "buildings", "--department", OWNER, "--store", store,
                          "--out", str(out)], capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if run.returncode != 0:
        raise SystemExit(f"citytwin tiles3d export failed: {run.stderr[-1500:]}")
    features = json.loads((out / "tileset.json").read_text())["extras"]["features"]
    return seconds, features


def peer(store, conninfo, out):
    """The solids' SQL, then py3dtiles; the seconds at which py3dtiles announces each of its phases are
    printed (its stdout read line by line, unbuffered), so a slow round says where its time went."""
    t = time.perf_counter()
    psql(store, SOLIDS)
    phases = [f"solids SQL {time.perf_counter() - t:.1f} s"]
    with tempfile.TemporaryFile("w+") as errors:
        run = subprocess.Popen([str(Path(sys.executable).parent / "py3dtiles"), "export", "-D", conninfo, "-t", "public.bench_buildings3d",
                                "-c", "geom", "-i", "id", "-s", str(out)], stdout=subprocess.PIPE, stderr=errors,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        for line in run.stdout:
            phases.append(f"{line.strip().rstrip('.')} at {time.perf_counter() - t:.1f} s")
        failed = run.wait() != 0
        seconds = time.perf_counter() - t
        errors.seek(0)
        if failed:
            raise SystemExit(f"py3dtiles export failed: {errors.read()[-1500:]}")
    print("  py3dtiles phases: " + "; ".join(phases), flush=True)
    return seconds, int(psql(store, "SELECT count(*) FROM public.bench_buildings3d"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("postgres")
    ap.add_argument("--scale", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the database for another run")
    a = ap.parse_args()
    base = a.postgres.rsplit("/", 1)[0]
    store = f"{base}/{DB}"
    u = urlparse(store)
    conninfo = f"dbname={DB} host={u.hostname} port={u.port} user={u.username} password={u.password}"
    psql(f"{base}/citytwin", f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    psql(f"{base}/citytwin", f"CREATE DATABASE {DB}")
    psql(store, "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS postgis_sfcgal")
    t = time.perf_counter()
    built = subprocess.run([a.binary, "district", "build", "--scale", str(a.scale), "--store", store, "--force"],
                           capture_output=True, text=True)
    if built.returncode != 0:
        raise SystemExit(f"district build --scale {a.scale} failed: {built.stderr[-1500:]}")
    buildings = int(psql(store, "SELECT count(*) FROM citytwin.f_buildings WHERE valid_to IS NULL AND (props->>'height_m')::float8 > 0"))
    print(f"district build --scale {a.scale} into PostGIS: {buildings} buildings with a height ({time.perf_counter() - t:.0f} s, untimed)")
    work = Path(tempfile.mkdtemp(prefix="citytwin-tiles3d-bench."))
    best = {"CityTwin": None, "py3dtiles": None}
    try:
        for r in range(a.rounds):
            for side in ("CityTwin", "py3dtiles") if r % 2 == 0 else ("py3dtiles", "CityTwin"):
                out = work / f"{side}-{r}"
                shutil.rmtree(out, ignore_errors=True)
                cpu = child_cpu()
                seconds, features = ours(a.binary, store, out) if side == "CityTwin" else peer(store, conninfo, out)
                cpu = child_cpu() - cpu
                if features != buildings:
                    raise SystemExit(f"{side} made {features} buildings of {buildings}")
                tiles, nbytes = size(out)
                print(f"round {r + 1}: {side:9} {seconds:8.2f} s  {cpu:8.2f} CPU s  {tiles:5} tiles  {nbytes / 1e6:8.1f} MB", flush=True)
                if best[side] is None or seconds < best[side][0]:
                    best[side] = (seconds, cpu, tiles, nbytes)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if not a.keep:
            psql(f"{base}/citytwin", f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    print(f"\n{'side':10} {'buildings':>9} {'best s':>8} {'CPU s':>8} {'buildings/s':>12} {'tiles':>6} {'MB':>8}")
    for side, (seconds, cpu, tiles, nbytes) in best.items():
        print(f"{side:10} {buildings:>9} {seconds:>8.2f} {cpu:>8.2f} {buildings / seconds:>12.0f} {tiles:>6} {nbytes / 1e6:>8.1f}")
    print(f"ratio (py3dtiles s / CityTwin s): {best['py3dtiles'][0] / best['CityTwin'][0]:.2f}x")


if __name__ == "__main__":
    main()

"""Tile ids of the PMTiles v3 Hilbert addressing, computed by protomaps' own Python package
(PyPI `pmtiles`), for Tests/TilesTests (TileArchiveTests). Run:
    .venv/bin/python Scripts/reference/make_pmtiles_fixtures.py Tests/TilesTests/Fixtures/pmtiles-tileids.json
"""
import json
import random
import sys

import pmtiles
from pmtiles.tile import zxy_to_tileid

rng = random.Random(20261121)
cases = [(0, 0, 0), (1, 0, 0), (1, 0, 1), (1, 1, 1), (1, 1, 0), (2, 0, 0), (2, 3, 3)]
for z in range(3, 25):
    for _ in range(6):
        n = 1 << z
        cases.append((z, rng.randrange(n), rng.randrange(n)))
cases.append((24, (1 << 24) - 1, 0))
out = {"generator": f"pmtiles {getattr(pmtiles, '__version__', '3.4.1')} zxy_to_tileid",
       "cases": [{"z": z, "x": x, "y": y, "tileid": zxy_to_tileid(z, x, y)} for z, x, y in cases]}
with open(sys.argv[1], "w") as f:
    json.dump(out, f, indent=1)
print(f"{len(cases)} tile ids -> {sys.argv[1]}")

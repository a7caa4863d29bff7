#!/usr/bin/env python3
"""`Benchmarks/api/run.sh`: CityTwin's OGC API against its peers, in one invocation, on the same data.

    api_bench.py prepare DIR BIN PGBASE   # sample district + 100,000 synthetic polygons into SpatiaLite and PostGIS
    api_bench.py tiles   DIR BIN PGBASE   # dynamic z14 MVT: citytwin serve vs PostGIS ST_AsMVT per tile
    api_bench.py pages   DIR BIN PGBASE   # 1,000-item pages through 100,000 features: citytwin serve vs pygeoapi
    api_bench.py wrk     DIR BIN PGBASE   # cached tiles under wrk: citytwin serve vs nginx on the same tile files

BIN is the release citytwin binary; PGBASE a postgresql://user:pass@host:port URL without a database
(the benchmark uses its own database citytwin_api). The synthetic layer is `bench_parcels`
(Benchmarks/api/layers/bench_parcels.json). Environment: BENCH_ROUNDS (2) alternating rounds per
measurement, each side keeping its best; API_BENCH_BACKENDS (postgis,spatialite): the stores
`citytwin serve` is measured on (wrk uses the first); API_BENCH_CLIENTS (1,2): concurrent tile clients; WRK_SECONDS (15), WRK_THREADS (2), WRK_CONNECTIONS (64).
Ratios are peer seconds / CityTwin seconds (> 1: CityTwin is faster).
"""
import sys
from pathlib import Path

from api_data import prepare
from api_pages import bench_pages
from api_tiles import bench_tiles
from api_wrk import bench_wrk


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in {"prepare", "tiles", "pages", "wrk"}:
        raise SystemExit(__doc__)
    cmd, d, binary, base = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    if cmd == "prepare":
        prepare(d, binary, base)
    elif cmd == "tiles":
        bench_tiles(d, binary, base)
    elif cmd == "pages":
        bench_pages(d, binary, base)
    else:
        bench_wrk(d, binary, base)


if __name__ == "__main__":
    main()

"""Writes the sponge-city fixtures of Tests/SpongeTests/Fixtures/ from a REAL daily rainfall record:
the daily weather observed at Seattle, 2012-01-01 to 2015-12-31 (NOAA's daily summaries, GHCN-Daily,
as shipped in the `vega-datasets` package 0.9.0, seattle-weather.csv; the package is MIT-licensed, the
NOAA observations are public domain). Its `weather` column marks snow days (`snow`).

Files:
  seattle-weather-daily.csv    the record's date, precipitation (mm) and weather columns, unchanged
  seattle-design-rainfall.json the reference of GB/T 51345-2018's method, computed here with numpy,
                               independently of CityTwin:
    - counted days: precipitation > 2 mm and weather != snow;
    - the capture rate of a depth d: sum(minimum(P, d)) / sum(P) over the counted days;
    - the design rainfall of a rate: the d giving it, by bisection on the rate (CityTwin inverts
      the piecewise-linear curve exactly; the two must agree to 1e-6 mm).

Run: .venv/bin/python Scripts/reference/make_sponge_fixtures.py
"""
import csv
import json
import os

import numpy as np
import vega_datasets

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "Tests", "SpongeTests", "Fixtures")
SOURCE = os.path.join(os.path.dirname(vega_datasets.__file__), "_data", "seattle-weather.csv")
RATES = [0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90]
DEPTHS = [2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 50.0]


def rate(p, d):
    return float(np.minimum(p, d).sum() / p.sum())


def depth_for(p, target):
    lo, hi = 0.0, float(p.max())
    for _ in range(200):
        mid = (lo + hi) / 2
        if rate(p, mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def main():
    rows = list(csv.DictReader(open(SOURCE, newline="")))
    os.makedirs(FIXTURES, exist_ok=True)
    with open(os.path.join(FIXTURES, "seattle-weather-daily.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["date", "precipitation", "weather"])
        for r in rows:
            w.writerow([r["date"], r["precipitation"], r["weather"]])
    depth = np.array([float(r["precipitation"]) for r in rows])
    snow = np.array([r["weather"] == "snow" for r in rows])
    kept = depth[(depth > 2.0) & ~snow]
    reference = {
        "source": "NOAA GHCN-Daily, Seattle 2012-2015, via vega-datasets 0.9.0 seattle-weather.csv",
        "days": len(rows),
        "first_date": rows[0]["date"].replace("/", "-"),
        "last_date": rows[-1]["date"].replace("/", "-"),
        "counted_days": int(kept.size),
        "counted_mm": float(kept.sum()),
        "dry_days": int(((depth == 0) & ~snow).sum()),
        "light_days": int(((depth > 0) & (depth <= 2.0) & ~snow).sum()),
        "snow_days": int(snow.sum()),
        "snow_mm": float(depth[snow].sum()),
        "design_depth_mm": {f"{r:.2f}": depth_for(kept, r) for r in RATES},
        "rate_at_depth": {f"{d:g}": rate(kept, d) for d in DEPTHS},
    }
    with open(os.path.join(FIXTURES, "seattle-design-rainfall.json"), "w") as f:
        json.dump(reference, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(reference, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()

"""Other published overflow-delay models on the runs of `random_isolated.py` (issue 16's per-approach criterion),
offline: each lane group's uniform delay d1 (HCM 2000 / Webster's first term, the plan's `uniform_delay_s`) plus
- HCM 2000's d2 (the plans' `delay_s`, for reference),
- Akcelik's overflow (ARR 123, 1981): d2 = 900 T [(x - 1) + sqrt((x - 1)^2 + 12 (x - x0) / (c T))] for x above
  x0 = 0.67 + s g / 600 (s in veh/s, g in s), else 0,
- Miller's steady-state overflow queue N0 = exp(-1.33 sqrt(s g (1 - x) / x)) / (2 (1 - x)), delay N0 / q,
- d1 alone,
against SUMO's baseline-corrected delay of the same runs, per approach (each arm's lane groups weighted by the
vehicles SUMO measured in them, as random_isolated.py reports it).

    python3 Benchmarks/signals/overflow_models.py WORK/results.json [--analysis-period 0.25]"""
from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict


def akcelik(a: dict, g: float, t: float) -> float:
    c, x, s = a["capacity_veh_h"], a["x"], a["saturation_veh_h"]
    x0 = 0.67 + (s / 3600) * g / 600
    if c <= 0 or x <= x0:
        return a["uniform_delay_s"]
    return a["uniform_delay_s"] + 900 * t * ((x - 1) + math.sqrt((x - 1) ** 2 + 12 * (x - x0) / (c * t)))


def miller(a: dict, g: float) -> float:
    s, x, q = a["saturation_veh_h"], a["x"], a["flow_veh_h"]
    if q <= 0 or x <= 0 or x >= 1:
        return a["uniform_delay_s"]
    n0 = math.exp(-1.33 * math.sqrt((s / 3600) * g * (1 - x) / x)) / (2 * (1 - x))
    return a["uniform_delay_s"] + n0 / (q / 3600)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="results.json written by random_isolated.py")
    p.add_argument("--analysis-period", type=float, default=0.25, help="T (h), as the plans take it")
    args = p.parse_args()
    d = json.load(open(args.results))
    predicted: dict[tuple[str, str], dict[str, float]] = {}
    for e in d["evaluations"].values():
        ev = e["evaluation"]
        green = {gid: st["effective_green_s"] for st in ev["stages"] for gid in st["approaches"]}
        for gid, a in ev["approaches"].items():
            g = green.get(gid, ev["cycle_s"])
            predicted[(ev["intersection"], gid)] = {"HCM d1 + d2 (delay_s)": a["delay_s"], "d1 + Akcelik": akcelik(a, g, args.analysis_period),
                                                     "d1 + Miller": miller(a, g), "d1 alone": a["uniform_delay_s"]}
    measured: dict[tuple[str, str], tuple[list[float], int]] = {}
    for key, e in d["evaluations"].items():
        iid = key.split("#")[0]
        for gid, a in e["sumo"]["approaches"].items():
            if a["sumo_delay_s"] is None or a["vehicles"] == 0:
                continue
            delays, vehicles = measured.get((iid, gid), ([], 0))
            measured[(iid, gid)] = (delays + [a["sumo_delay_s"]], vehicles + a["vehicles"])
    arm = {(f["properties"]["id"] if "id" in f["properties"] else f["id"], g["id"]): g["approach"]
           for f in d["features"] for g in f["properties"]["lane_groups"]}
    for model in next(iter(predicted.values())):
        arms: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
        for (iid, gid), (delays, vehicles) in measured.items():
            arms[(iid, arm[(iid, gid)])].append((vehicles, predicted[(iid, gid)][model] - sum(delays) / len(delays)))
        errors = {k: sum(w * e for w, e in v) / sum(w for w, _ in v) for k, v in arms.items()}
        absolute = [abs(e) for e in errors.values()]
        worst = max(errors, key=lambda k: abs(errors[k]))
        print(f"{model:22s} {len(errors)} approaches: mean |predicted - SUMO| {sum(absolute) / len(absolute):.2f} s, max {max(absolute):.2f} s "
              f"({worst[0]} {worst[1]}), bias {sum(errors.values()) / len(errors):+.2f} s -> "
              f"{'meets' if sum(absolute) / len(absolute) <= 1.0 and max(absolute) <= 2.5 else 'misses'} mean 1.0 / max 2.5 s")


if __name__ == "__main__":
    main()

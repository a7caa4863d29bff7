"""Random isolated intersections timed by CityTwin and replayed in SUMO 1.28 (issue 16, Done when: "on random
isolated intersections replayed in SUMO (x <= 0.8, three seeds), the predicted delay per approach is within mean
1.0 s and max 2.5 s of baseline-corrected SUMO delay").

    python3 Benchmarks/signals/random_isolated.py CITYTWIN STORE WORK [--count 12] [--seeds 1,2,3]
                                                   [--generator-seed 16] [--sumo-seconds 7200] [--jobs 1]
                                                   [--lefts any|protected] [--capacities design|sumo]

STORE is a sample-district store (`citytwin district build --store STORE --layers Layers`); it is copied into WORK
and the copy is written to. Everything goes through CityTwin's own paths, nothing is re-implemented here:

1. `generate` draws intersections in the `signalized_intersections` schema of the sample district: 3 or 4 arms,
   each arm one of the lane-group shapes below (turn bays or shared lanes, 1-4 lanes), movement volumes with
   random left and right shares, 2-, 3- or 4-stage chains (protected lefts where an axis has left bays, else
   permitted through the opposing traffic), pedestrian crossings walked with the other axis, amber 3-4 s and
   all-red 1-3 s. Approach speed and length are the export's (13.89 m/s, 300 m arms): the schema has no field
   for either. Every movement is served by one lane group of its arm, so that a vehicle's lane group in SUMO
   (the lanes it can use) is the one its delay is predicted for.
2. The intersections are imported (`citytwin import --layer signalized_intersections --mode upsert`) and timed
   by `citytwin signal plan --intersection ID --json` (Webster from the layer's peak-hour turning counts, no
   counts in traffic_counts). Volumes are scaled (all movements alike) until the plan's largest degree of
   saturation lands in [target - 0.05, target] for a random target in [0.55, 0.8]: every lane group x <= 0.8.
   The plan is stored with `--write`.
3. Each intersection is replayed by `citytwin signal evaluate --intersection ID --sumo --seed S --json` (the
   `signal-evaluate` process: CityTwin's SUMO export, netconvert, the plan's run and one run per approach alone
   on a permanent green, baseline-corrected timeLoss per lane group), once per seed.
4. The report: per intersection and lane group x, the predicted (HCM 2000 d1 + d2) delay, SUMO's delay per seed
   and over the seeds, and mean and max |predicted - SUMO| over all lane groups: on the seeds' mean SUMO delay
   (the issue's criterion) and on every single seed; per approach, SUMO's sampling error over the seeds and each
   miss in those standard errors (a miss of many SEs is the model's, not the seeds').

Tests/Clients/test_signal_random_sumo.py runs a few of these intersections on one seed."""
from __future__ import annotations

import argparse
import json
import math
import random
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402

ARMS = ("N", "E", "S", "W")
# Driving on the right: the opposite arm, and where each movement from an arm leaves (as SumoExport.exit).
OPPOSITE, EXIT = sumo_signals.OPPOSITE, sumo_signals.EXIT
X_LIMIT = 0.8
# Sample district position of the generated signals (邾城, Xinzhou); each is exported and replayed on its own.
ORIGIN = (114.80, 30.84)
# The capacities SUMO 1.28's default driver gives CityTwin's export, measured by saturation.py (the reference's
# step 1, "measure s and lost time in SUMO", done per movement): through lanes 1842-1891 veh/h, left bays
# 1739-1831, right turns 1438-1564, lost time per phase the amber plus 1-2 s (SUMO's drivers stop on amber).
# `--capacities sumo` times every drawn intersection with these instead of the layer's design defaults.
SUMO_CAPACITIES = {"saturation_flow_pcu_h": 1865, "left_turn_factor": 0.957, "right_turn_factor": 0.80}
SUMO_LOST_BEYOND_AMBER_S = 1.5


def citytwin(binary: str, *args: str) -> str:
    return sumo_signals.run_citytwin(binary, *args)


@dataclass
class Drawn:
    """One random intersection: the feature and its volumes before scaling."""
    id: str
    arms: list[str]
    feature: dict
    base_counts: dict[str, dict[str, float]]
    target_x: float
    scale: float = 1.0
    description: str = ""


def movements_of(arm: str, arms: list[str]) -> list[str]:
    """The movements traffic arriving from `arm` can make: those leaving to an existing arm."""
    return [m for m in ("left", "through", "right") if EXIT[arm][m] in arms]


def lane_groups(rng: random.Random, arm: str, moves: list[str], left_bay: bool = False) -> tuple[list[dict], str]:
    """Lane groups of one arm (every movement in exactly one group) and a short name of the shape."""
    def group(suffix: str, movements: list[str], lanes: int) -> dict:
        return {"id": arm + suffix, "approach": arm, "movements": movements, "lanes": lanes}
    has_left, has_through, has_right = "left" in moves, "through" in moves, "right" in moves
    if not has_through:  # the stem of a T: left and right only
        if rng.random() < 0.5:
            return [group("", ["left", "right"], rng.choice((1, 2)))], "LR"
        return [group("L", ["left"], 1), group("R", ["right"], 1)], "L|R"
    through_lanes = rng.choice((1, 2, 2, 3))
    shapes = ["shared"]
    if has_left:
        shapes += ["left bay", "left bay"]
    if has_right:
        shapes += ["right bay"]
    if has_left and has_right:
        shapes += ["both bays"]
    shape = rng.choice(shapes)
    if left_bay and has_left and shape in ("shared", "right bay"):
        shape = "both bays" if shape == "right bay" else "left bay"
    if shape == "shared":
        return [group("", [m for m in ("left", "through", "right") if m in moves], through_lanes)], \
            "".join(m[0].upper() for m in moves) + f"x{through_lanes}"
    if shape == "left bay":
        rest = [m for m in ("through", "right") if m in moves]
        return [group("L", ["left"], rng.choice((1, 1, 2))), group("", rest, through_lanes)], \
            "L|" + "".join(m[0].upper() for m in rest) + f"x{through_lanes}"
    if shape == "right bay":
        rest = [m for m in ("left", "through") if m in moves]
        return [group("", rest, through_lanes), group("R", ["right"], 1)], \
            "".join(m[0].upper() for m in rest) + f"x{through_lanes}|R"
    return [group("L", ["left"], 1), group("", ["through"], through_lanes), group("R", ["right"], 1)], f"L|Tx{through_lanes}|R"


def generate(rng: random.Random, index: int, prefix: str = "RI", lefts: str = "any") -> Drawn:
    """One random isolated intersection in the sample district's `signalized_intersections` schema;
    `lefts` "protected": every left turn facing opposing traffic gets a bay and a stage of its own."""
    iid = f"{prefix}-{index:03d}"
    missing = rng.choice(ARMS) if rng.random() < 0.35 else None
    arms = [a for a in ARMS if a != missing]
    groups: list[dict] = []
    shapes: list[str] = []
    counts: dict[str, dict[str, float]] = {}
    lanes: dict[str, int] = {}
    for arm in arms:
        moves = movements_of(arm, arms)
        opposed = OPPOSITE[arm] in arms and "through" in moves
        gs, shape = lane_groups(rng, arm, moves, left_bay=lefts == "protected" and opposed)
        groups += gs
        shapes.append(f"{arm}:{shape}")
        through_lanes = sum(g["lanes"] for g in gs if "through" in g["movements"]) or sum(g["lanes"] for g in gs)
        lanes[arm] = through_lanes
        # Volumes per lane of the arm's main lanes, turn shares as counted at urban signals.
        # Turns of at least 100 veh/h, so that every lane group's SUMO mean rests on a few hundred vehicles.
        base = rng.uniform(250, 650) * through_lanes
        c: dict[str, float] = {}
        if "through" in moves:
            c["through"] = base
            if "left" in moves:
                c["left"] = max(100.0, base * rng.uniform(0.08, 0.35))
            if "right" in moves:
                c["right"] = max(100.0, base * rng.uniform(0.08, 0.3))
        else:
            c["left"] = base * rng.uniform(0.3, 0.7)
            c["right"] = base - c["left"]
        counts[arm] = c
    by_arm = {arm: [g for g in groups if g["approach"] == arm] for arm in arms}
    lefts_mode = lefts
    # Stage chain: an axis whose every arm with lefts has a left bay may protect its lefts (own stage).
    axes = [[a for a in ("N", "S") if a in arms], [a for a in ("E", "W") if a in arms]]
    stages: list[dict] = []
    through_stage: dict[str, int] = {}
    for axis in axes:
        left_groups = [g["id"] for a in axis for g in by_arm[a] if g["movements"] == ["left"]]
        lefts = [a for a in axis if "left" in movements_of(a, arms)]
        opposed = len(axis) == 2
        protect = opposed and lefts and len(left_groups) == len(lefts) and (lefts_mode == "protected" or rng.random() < 0.6)
        main = [g["id"] for a in axis for g in by_arm[a] if not (protect and g["movements"] == ["left"])]
        name = "".join(axis)
        through_stage[name] = len(stages)
        stages.append({"id": f"S{len(stages) + 1}", "name": f"{name} through", "lane_groups": main})
        if protect:
            stages.append({"id": f"S{len(stages) + 1}", "name": f"{name} left", "lane_groups": left_groups})
    # Crossings across each leg, walked with the other axis's main stage.
    crossings = []
    for arm in arms:
        other = "EW" if arm in ("N", "S") else "NS"
        key = next((k for k in through_stage if set(k) <= set(other) and k), None)
        if key is None:
            continue
        width = {1: 12.0, 2: 16.0, 3: 22.0, 4: 28.0}.get(min(4, lanes[arm]), 20.0) + rng.uniform(-2, 4)
        crossings.append({"id": f"P-{arm}", "leg": arm, "length_m": round(width, 1), "refuge_island": width > 24,
                          "stage": through_stage[key]})
    column, row = index % 10, index // 10
    feature = {
        "type": "Feature", "id": iid,
        "geometry": {"type": "Point", "coordinates": [ORIGIN[0] + 0.004 * column, ORIGIN[1] + 0.004 * row]},
        "properties": {
            "name": f"random isolated intersection {index}", "intersection": iid, "cycle_s": 90,
            "phases": len(stages), "lanes": lanes, "turning_counts": {}, "saturation_flow_pcu_h": 1800,
            "detector": "video", "amber_s": rng.choice((3, 3, 4)), "all_red_s": rng.choice((1, 2, 2, 3)),
            "startup_lost_s": 3,
            # As the sample district's signals: gap acceptance of permitted lefts measured in SUMO 1.28 on
            # CityTwin's export (Benchmarks/signals/left_turns.py).
            "permitted_left_critical_gap_s": 6.5, "permitted_left_follow_up_s": 3.0,
            "lane_groups": groups, "stages": stages, "crossings": crossings,
        },
    }
    drawn = Drawn(iid, arms, feature, counts, target_x=rng.uniform(0.55, X_LIMIT),
                  description=f"{len(arms)} arms, {len(stages)} stages, " + " ".join(shapes))
    apply_scale(drawn, 1.0)
    return drawn


def apply_scale(d: Drawn, scale: float) -> None:
    d.scale = scale
    d.feature["properties"]["turning_counts"] = {
        arm: {m: int(round(v * scale)) for m, v in c.items()} for arm, c in d.base_counts.items()}


def store_copy(source: Path, target: Path) -> Path:
    """The district store copied through SQLite's backup API (plans are written to the copy)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    with sqlite3.connect(source) as a, sqlite3.connect(target) as b:
        a.backup(b)
    return target


def upsert(binary: str, store: Path, drawn: list[Drawn], work: Path) -> None:
    path = work / "random_intersections.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": [d.feature for d in drawn]}, ensure_ascii=False))
    citytwin(binary, "import", str(path), "--layer", "signalized_intersections", "--mode", "upsert", "--store", str(store))


def plan(binary: str, store: Path, iid: str, write: bool = False) -> dict:
    args = ["signal", "plan", "--intersection", iid, "--json", "--store", str(store)] + (["--write"] if write else [])
    return json.loads(citytwin(binary, *args))["plans"][0]["timing"]


def time_intersections(binary: str, store: Path, drawn: list[Drawn], work: Path, log=print) -> dict[str, dict]:
    """Imports the intersections and scales each one's volumes until CityTwin's own plan puts its
    largest lane-group x in [target - 0.05, target] (target <= 0.8); stores the final plans."""
    pending = list(drawn)
    timings: dict[str, dict] = {}
    for attempt in range(20):
        if not pending:
            break
        upsert(binary, store, pending, work)
        still = []
        for d in pending:
            t = plan(binary, store, d.id)
            x = max(a["x"] for a in t["approaches"].values())
            # After 8 attempts (a cycle that jumps with the volumes, e.g. onto a pedestrian minimum),
            # any x <= 0.8 will do.
            if d.target_x - 0.05 <= x <= d.target_x or (attempt >= 8 and x <= X_LIMIT):
                timings[d.id] = t
                continue
            # Scale toward the target (x is about proportional to flow at a given plan; the plan moves too).
            apply_scale(d, d.scale * (min(1.6, max(0.5, (d.target_x - 0.02) / x)) if attempt < 8 else 0.95))
            still.append(d)
        pending = still
    if pending:
        raise RuntimeError(f"no volumes found for {', '.join(d.id for d in pending)} with x in range")
    for d in drawn:
        timings[d.id] = plan(binary, store, d.id, write=True)
        t = timings[d.id]
        log(f"{d.id}: {d.description}; cycle {t['cycle_s']:.0f} s, Y {t['Y']:.3f}, max x "
            f"{max(a['x'] for a in t['approaches'].values()):.2f}")
    return timings


def evaluate(binary: str, store: Path, iid: str, seed: int, sumo_seconds: int) -> dict:
    """`citytwin signal evaluate --sumo`: the signal-evaluate process's SUMO check of the stored plan."""
    out = citytwin(binary, "signal", "evaluate", "--intersection", iid, "--sumo", "--seed", str(seed),
                   "--sumo-seconds", str(sumo_seconds), "--json", "--store", str(store))
    return json.loads(out)


@dataclass
class GroupResult:
    intersection: str
    group: str
    movements: str
    lanes: int
    stage: int
    x: float
    predicted: float
    webster: float | None
    kind: str = "protected"
    approach: str = ""
    sumo: dict[int, float] = field(default_factory=dict)
    vehicles: dict[int, int] = field(default_factory=dict)
    # Half-width of each seed's 95 % interval, as signal-evaluate gives it (SUMO's sampling error).
    interval: dict[int, float] = field(default_factory=dict)

    @property
    def sumo_mean(self) -> float:
        return sum(self.sumo.values()) / len(self.sumo)

    @property
    def difference(self) -> float:
        return self.sumo_mean - self.predicted

    @property
    def webster_difference(self) -> float:
        return self.sumo_mean - (self.webster if self.webster is not None else math.inf)


def kinds(feature: dict) -> dict[str, str]:
    """Each lane group's kind: "permitted left" (a left-turn bay running beside through or right traffic
    from the opposite arm, turning through its gaps), "shared permitted" (such lefts sharing lanes with
    other movements) or "protected" (no left, or lefts that meet no opposing traffic)."""
    p = feature["properties"]
    stage_of = {gid: i for i, st in enumerate(p["stages"]) for gid in st["lane_groups"]}
    groups = p["lane_groups"]
    out = {}
    for g in groups:
        opposed = any(o["approach"] == OPPOSITE[g["approach"]] and stage_of.get(o["id"]) == stage_of.get(g["id"])
                      and set(o["movements"]) & {"through", "right"} for o in groups)
        out[g["id"]] = "protected" if "left" not in g["movements"] or not opposed else \
            "permitted left" if g["movements"] == ["left"] else "shared permitted"
    return out


def collect(drawn: list[Drawn], results: dict[tuple[str, int], dict]) -> list[GroupResult]:
    """Per lane group: the prediction and SUMO's baseline-corrected delay of each seed."""
    rows: list[GroupResult] = []
    for d in drawn:
        groups = {g["id"]: g for g in d.feature["properties"]["lane_groups"]}
        kind = kinds(d.feature)
        stage_of = {gid: i for i, s in enumerate(d.feature["properties"]["stages"]) for gid in s["lane_groups"]}
        by_group: dict[str, GroupResult] = {}
        for (iid, seed), r in sorted(results.items()):
            if iid != d.id:
                continue
            for gid, a in r["sumo"]["approaches"].items():
                if a["sumo_delay_s"] is None or a["vehicles"] == 0:
                    continue
                g = groups[gid]
                row = by_group.setdefault(gid, GroupResult(d.id, gid, "+".join(m[0].upper() for m in g["movements"]), g["lanes"],
                                                           stage_of.get(gid, -1), a["x"], a["predicted_delay_s"], a["webster_delay_s"],
                                                           kind[gid], g["approach"]))
                row.sumo[seed] = a["sumo_delay_s"]
                row.vehicles[seed] = a["vehicles"]
                if a.get("sumo_delay_ci95_s") is not None:
                    row.interval[seed] = a["sumo_delay_ci95_s"]
        rows += [by_group[k] for k in sorted(by_group)]
    return rows


def prediction(webster: bool):
    """A lane group's predicted delay: HCM 2000 d1 + d2 (the process's `predicted_delay_s`), or Webster's."""
    return (lambda r: r.webster if r.webster is not None else math.inf) if webster else (lambda r: r.predicted)


def meets(s: dict) -> bool:
    """Issue 16's bound: mean <= 1.0 s and max <= 2.5 s."""
    return s["mean_abs_s"] <= 1.0 and s["max_abs_s"] <= 2.5


def summary(rows: list[GroupResult], webster: bool = False) -> dict:
    """Mean and max |predicted - SUMO| (HCM 2000 d1 + d2, the process's `predicted_delay_s`; or Webster's)."""
    if not rows:
        return {"lane_groups": 0, "mean_abs_s": math.nan, "max_abs_s": math.nan, "single_seed_mean_abs_s": math.nan,
                "single_seed_max_abs_s": math.nan}
    predicted = prediction(webster)
    seed_mean = [abs(r.sumo_mean - predicted(r)) for r in rows]
    single = [abs(s - predicted(r)) for r in rows for s in r.sumo.values()]
    return {"lane_groups": len(rows), "mean_abs_s": sum(seed_mean) / len(seed_mean), "max_abs_s": max(seed_mean),
            "single_seed_mean_abs_s": sum(single) / len(single), "single_seed_max_abs_s": max(single)}


def arm_difference(members: list[GroupResult], predicted) -> float:
    """One arm's predicted - SUMO delay, its lane groups weighted by the vehicles SUMO measured in them."""
    weight = sum(sum(r.vehicles.values()) for r in members)
    return sum(sum(r.vehicles.values()) * (predicted(r) - r.sumo_mean) for r in members) / weight


def approach_misses(rows: list[GroupResult], webster: bool = False, predicted=None) -> dict[tuple[str, str], tuple[list[GroupResult], float]]:
    """Each arm's lane groups and its |predicted - SUMO| (`arm_difference`); `predicted` a lane group's prediction
    (default HCM's, or Webster's)."""
    arms: dict[tuple[str, str], list[GroupResult]] = {}
    for r in rows:
        arms.setdefault((r.intersection, r.approach), []).append(r)
    predicted = predicted or prediction(webster)
    return {key: (members, abs(arm_difference(members, predicted))) for key, members in arms.items()}


def approach_summary(rows: list[GroupResult], webster: bool = False) -> dict:
    """The issue's own reading, per approach: each arm's lane groups weighted by the vehicles SUMO measured in
    them (over the seeds), predicted against SUMO."""
    errors = [miss for _, miss in approach_misses(rows, webster).values()]
    if not errors:
        return {"approaches": 0, "mean_abs_s": math.nan, "max_abs_s": math.nan}
    return {"approaches": len(errors), "mean_abs_s": sum(errors) / len(errors), "max_abs_s": max(errors)}


def sampling_noise(rows: list[GroupResult], webster: bool = False, draws: int = 4000) -> dict:
    """How much of the per-approach error SUMO's own sampling could explain. Each approach's delay is measured once
    per seed (its lane groups weighted by that seed's vehicles); the standard error of their mean (SD over the
    seeds / sqrt(seeds)) is what a model exact in expectation would still miss by. Reports the median and largest
    SE, the chance that such a model meets max 2.5 s on these approaches (normal errors, fixed random draws), and
    each approach's miss in SEs (misses well beyond 2-3 SE are the model's, not the seeds')."""
    out = []
    for key, (members, miss) in approach_misses(rows, webster).items():
        seeds = sorted({s for r in members for s in r.sumo})
        if len(seeds) < 2:
            return {"approaches": 0}
        per_seed = []
        for s in seeds:
            weight = sum(r.vehicles.get(s, 0) for r in members)
            per_seed.append(sum(r.vehicles.get(s, 0) * r.sumo[s] for r in members if s in r.sumo) / weight)
        mean = sum(per_seed) / len(per_seed)
        se = math.sqrt(sum((v - mean) ** 2 for v in per_seed) / (len(per_seed) - 1) / len(per_seed))
        out.append((key, se, miss))
    ses = sorted(se for _, se, _ in out)
    rng = random.Random(1)
    exact_meets = sum(max(abs(rng.gauss(0, se)) for se in ses) <= 2.5 for _ in range(draws)) / draws
    return {"approaches": len(out), "median_se_s": ses[len(ses) // 2], "max_se_s": ses[-1], "exact_model_meets": exact_meets,
            "misses_in_se": sorted(((f"{k[0]} {k[1]}", miss / se if se > 0 else math.inf) for k, se, miss in out if miss > 2.5),
                                   key=lambda t: -t[1])}


def interval_check(rows: list[GroupResult]) -> dict:
    """Whether signal-evaluate's single-seed intervals are as wide as the seeds' spread: for every two seeds of a
    lane group, does the difference of their delays lie within √(ci₁² + ci₂²)? About 95 % of pairs should."""
    pairs = inside = 0
    for r in rows:
        seeds = sorted(r.interval)
        for i, a in enumerate(seeds):
            for b in seeds[i + 1:]:
                pairs += 1
                inside += abs(r.sumo[a] - r.sumo[b]) <= math.hypot(r.interval[a], r.interval[b])
    return {"pairs": pairs, "inside": inside}


def approach_verdict(s: dict) -> str:
    return f"{s['approaches']} approaches: mean {s['mean_abs_s']:.2f} s, max {s['max_abs_s']:.2f} s -> {'PASS' if meets(s) else 'FAIL'}"


def verdict(s: dict) -> str:
    ok = meets(s)
    return (f"{s['lane_groups']} lane groups: mean {s['mean_abs_s']:.2f} s, max {s['max_abs_s']:.2f} s -> "
            f"{'PASS' if ok else 'FAIL'} (single seeds: mean {s['single_seed_mean_abs_s']:.2f} s, max {s['single_seed_max_abs_s']:.2f} s)")


def report(drawn: list[Drawn], timings: dict[str, dict], rows: list[GroupResult], seeds: list[int], log=print) -> dict:
    log("")
    log(f"{'group':<12}{'kind':<6}{'mov':<7}{'ln':>3}{'x':>6}{'HCM':>7}{'Webst':>7}" + "".join(f"{'seed ' + str(s):>9}" for s in seeds)
        + f"{'SUMO':>7}{'diff':>7}{'veh':>6}")
    short = {"protected": "", "permitted left": "perm", "shared permitted": "shrd"}
    for r in rows:
        log(f"{r.intersection + ' ' + r.group:<12}{short[r.kind]:<6}{r.movements:<7}{r.lanes:>3}{r.x:>6.2f}{r.predicted:>7.1f}"
            f"{(r.webster if r.webster is not None else float('nan')):>7.1f}"
            + "".join(f"{r.sumo.get(s, float('nan')):>9.1f}" for s in seeds)
            + f"{r.sumo_mean:>7.1f}{r.difference:>+7.1f}{sum(r.vehicles.values()):>6d}")
    s = summary(rows)
    log("")
    log(f"{len(drawn)} intersections, lane groups x {min(r.x for r in rows):.2f}-{max(r.x for r in rows):.2f}, seeds "
        f"{','.join(map(str, seeds))}; |predicted - SUMO delay (mean of the seeds)|, issue 16: mean <= 1.0 s, max <= 2.5 s")
    log(f"  all, predicted (HCM 2000 d1+d2, signal-evaluate's predicted_delay_s): {verdict(s)}")
    log(f"  all, Webster's delay:                                                 {verdict(summary(rows, webster=True))}")
    permitted = {r.intersection for r in rows if r.kind != "protected"}
    clean = [r for r in rows if r.intersection not in permitted]
    log(f"  {len({r.intersection for r in clean})} intersections without permitted lefts, HCM:     {verdict(summary(clean))}")
    log(f"  {len({r.intersection for r in clean})} intersections without permitted lefts, Webster: {verdict(summary(clean, webster=True))}")
    log(f"  per approach (vehicle-weighted lane groups), HCM: all {approach_verdict(approach_summary(rows))}; "
        f"without permitted lefts {approach_verdict(approach_summary(clean))}")
    log(f"  per approach, Webster: all {approach_verdict(approach_summary(rows, webster=True))}; "
        f"without permitted lefts {approach_verdict(approach_summary(clean, webster=True))}")
    noise = sampling_noise(rows)
    if noise["approaches"]:
        log(f"  SUMO's sampling error of each approach's mean over the seeds: median SE {noise['median_se_s']:.2f} s, max "
            f"{noise['max_se_s']:.2f} s; a model exact in expectation meets max 2.5 s here with probability "
            f"{noise['exact_model_meets']:.2f}; approaches missing 2.5 s (HCM), miss in SEs: "
            + (", ".join(f"{k} {v:.1f}" for k, v in noise["misses_in_se"]) or "none"))
    intervals = interval_check(rows)
    if intervals["pairs"]:
        log(f"  signal-evaluate's 95 % intervals (one seed each): two seeds of a lane group agree within their combined "
            f"intervals {intervals['inside']} of {intervals['pairs']} times ({intervals['inside'] / intervals['pairs']:.1%}; ~95 % expected)")
    for kind in ("protected", "permitted left", "shared permitted"):
        some = [r for r in rows if r.kind == kind]
        if some:
            log(f"  {kind} lane groups (all intersections), HCM: {verdict(summary(some))}")
    worst = sorted(rows, key=lambda r: -abs(r.difference))[:6]
    log("largest: " + "; ".join(f"{r.intersection} {r.group} ({r.movements}, {r.kind}, x {r.x:.2f}) {r.difference:+.1f} s" for r in worst))
    return {**s, "pass": meets(s), "protected_only": summary(clean),
            "per_approach": approach_summary(rows), "per_approach_protected_only": approach_summary(clean),
            "sampling_noise": noise, "intervals": intervals}


def with_sumo_capacities(d: Drawn) -> None:
    """The intersection's saturation flows and start-up loss set to what SUMO measures (SUMO_CAPACITIES)."""
    p = d.feature["properties"]
    p.update(SUMO_CAPACITIES)
    p["startup_lost_s"] = p["amber_s"] + SUMO_LOST_BEYOND_AMBER_S


def run(binary: str, source_store: Path, work: Path, count: int, seeds: list[int], generator_seed: int,
        sumo_seconds: int, jobs: int, log=print, prefix: str = "RI", lefts: str = "any",
        capacities: str = "design") -> tuple[list[GroupResult], dict]:
    work.mkdir(parents=True, exist_ok=True)
    store = store_copy(source_store, work / "district.sqlite")
    rng = random.Random(generator_seed)
    drawn = [generate(rng, i + 1, prefix, lefts) for i in range(count)]
    if capacities == "sumo":
        for d in drawn:
            with_sumo_capacities(d)
    started = time.monotonic()
    timings = time_intersections(binary, store, drawn, work, log)
    log(f"timed {count} intersections in {time.monotonic() - started:.0f} s")
    started = time.monotonic()
    tasks = [(d.id, s) for d in drawn for s in seeds]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = dict(zip(tasks, pool.map(lambda t: evaluate(binary, store, t[0], t[1], sumo_seconds), tasks)))
    log(f"SUMO: {len(tasks)} evaluations ({count} intersections x {len(seeds)} seeds) in {time.monotonic() - started:.0f} s")
    rows = collect(drawn, done)
    (work / "results.json").write_text(json.dumps({"features": [d.feature for d in drawn], "timings": timings,
                                                   "evaluations": {f"{k[0]}#{k[1]}": v for k, v in done.items()}}, indent=1))
    return rows, report(drawn, timings, rows, seeds, log)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("citytwin")
    p.add_argument("store", type=Path, help="a sample-district store (copied)")
    p.add_argument("work", type=Path)
    p.add_argument("--count", type=int, default=12)
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--generator-seed", type=int, default=16)
    p.add_argument("--sumo-seconds", type=int, default=7200)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--lefts", choices=("any", "protected"), default="any",
                   help="protected: every left turn facing opposing traffic gets a bay and a stage of its own")
    p.add_argument("--capacities", choices=("design", "sumo"), default="design",
                   help="design: the layer's defaults (1800 veh/h/lane, 0.95, 0.85, L_s 3 s); sumo: SUMO's measured ones")
    a = p.parse_args()
    started = time.monotonic()
    seeds = [int(s) for s in a.seeds.split(",")]
    print(f"python3 {' '.join(sys.argv)}")
    _, s = run(a.citytwin, a.store, a.work, a.count, seeds, a.generator_seed, a.sumo_seconds, a.jobs, lefts=a.lefts,
               capacities=a.capacities)
    print(f"total {time.monotonic() - started:.0f} s")
    sys.exit(0 if s["pass"] else 1)


if __name__ == "__main__":
    main()

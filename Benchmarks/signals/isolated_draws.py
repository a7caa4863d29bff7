"""The intersections `random_isolated.py` draws: arms, lane groups, volumes and stage chains in the sample
district's `signalized_intersections` schema, and their scaling to a target degree of saturation."""
from __future__ import annotations

import random
import sys
from dataclasses import dataclass
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


def with_sumo_capacities(d: Drawn) -> None:
    """The intersection's saturation flows and start-up loss set to what SUMO measures (SUMO_CAPACITIES)."""
    p = d.feature["properties"]
    p.update(SUMO_CAPACITIES)
    p["startup_lost_s"] = p["amber_s"] + SUMO_LOST_BEYOND_AMBER_S

"""CityTwin's signal plans and predicted delays against SUMO (issue 16): random isolated
intersections at x <= 0.8, three seeds each, replayed in SUMO 1.28 with the baseline-corrected
delay of shared/reference/signals.md §8. The prediction is the `delay_s` of `citytwin signal plan --input
--json` per approach (the issue's output field: HCM 2000 d1 + d2 over T = 0.25 h) with SUMO's own measured
saturation flow (1859 veh/h/lane) and lost time (3.8 s per phase with a 3 s amber, Krauss sigma = 0.5), as the
reference measured them. Webster's delay (`webster_delay_s`) is printed beside it: on these three it agrees as
well (mean 0.62 s, max 1.5 s), but on other draws it runs 2-3.6 s below SUMO on the side street at x ~0.7
(six intersections of seed 99: HCM mean 0.66 / max 1.86 s, Webster 0.97 / 3.61 s), so it is not the headline."""
from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

import sumo_signals

BIN = os.environ.get("CITYTWIN_CLIENT_BIN", "")
SUMO_SATURATION = 1859.0
SUMO_LOST = 3.8


def plan_for(flows: sumo_signals.Flows, tmp: Path, all_red: float = 2.0,
             stages: list[list[str]] | None = None) -> dict:
    intersection = {
        "id": "SUMO-X", "amber_s": 3, "all_red_s": all_red, "startup_lost_s": SUMO_LOST,
        "approaches": [{"id": arm, "lanes": 1, "saturation_veh_h_lane": SUMO_SATURATION, "flows_veh_h": q}
                       for arm, q in sumo_signals.movement_flows(flows).items()],
        "stages": stages or [["N", "S"], ["W", "E"]],
    }
    path = tmp / "intersection.json"
    path.write_text(json.dumps(intersection))
    out = subprocess.run([BIN, "signal", "plan", "--input", str(path), "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def random_intersections(count: int, seed: int = 16) -> list[dict[str, float]]:
    rng = random.Random(seed)
    return [{"N": rng.uniform(250, 650), "S": rng.uniform(250, 650), "W": rng.uniform(150, 450), "E": rng.uniform(150, 450)}
            for _ in range(count)]


@pytest.mark.skipif(not BIN, reason="CITYTWIN_CLIENT_BIN not set (Scripts/client_tests.sh sets it)")
def test_predicted_delay_matches_sumo(tmp_path: Path) -> None:
    errors = []
    rows = []
    for i, flows in enumerate(random_intersections(3)):
        plan = plan_for(flows, tmp_path)
        xs = {arm: a["x"] for arm, a in plan["approaches"].items()}
        assert max(xs.values()) <= 0.8, f"intersection {i}: the test only covers x <= 0.8 ({xs})"
        measured: dict[str, list[float]] = {}
        for seed in (1, 2, 3):
            for arm, d in sumo_signals.signal_delay(plan, flows, seed, tmp_path / f"x{i}-s{seed}").items():
                measured.setdefault(arm, []).append(d)
        for arm, a in plan["approaches"].items():
            sumo = sum(measured[arm]) / len(measured[arm])
            errors.append(abs(a["delay_s"] - sumo))
            rows.append(f"x{i} {arm}: q {a['flow_veh_h']:.0f} x {a['x']:.2f} C {plan['cycle_s']:.0f} "
                        f"CityTwin {a['delay_s']:.1f} s (Webster {a['webster_delay_s']:.1f} s), SUMO {sumo:.1f} s")
    report = "\n".join(rows)
    print(report)
    mean = sum(errors) / len(errors)
    assert mean <= 1.0, f"mean |predicted - SUMO| = {mean:.2f} s > 1.0 s\n{report}"
    assert max(errors) <= 2.5, f"max |predicted - SUMO| = {max(errors):.2f} s > 2.5 s\n{report}"


@pytest.mark.skipif(not BIN, reason="CITYTWIN_CLIENT_BIN not set (Scripts/client_tests.sh sets it)")
def test_back_of_queue_matches_sumo(tmp_path: Path) -> None:
    """The plans' back of queue (its mean, HCM 2000's q·r/(1 − y) with the overflow, and `queue_95_veh_lane`)
    against each cycle's back of queue in SUMO (the last vehicle slower than 5 km/h) on the same three crossroads,
    one seed: every 95th percentile within 3 vehicles, on average within 1.5, and the means within 1 vehicle
    (measured: 0.92 / 2 vehicles and 0.36 / 0.8; Benchmarks/signals/queue_percentiles.py for more)."""
    rows, p95_errors, mean_errors = [], [], []
    for i, flows in enumerate(random_intersections(3)):
        plan = plan_for(flows, tmp_path)
        for arm, readings in sumo_signals.cycle_queues(plan, flows, 1, tmp_path / f"q{i}").items():
            a, halting = plan["approaches"][arm], readings["halting"]
            assert len(halting) > 60, f"x{i} {arm}: only {len(halting)} cycles measured"
            assert a["queue_95_m"] == pytest.approx(a["queue_95_veh_lane"] * 7.5)
            mean, sumo_mean = a["queue_veh"] / (1 - a["y"]), sum(halting) / len(halting)
            p95, sumo_p95 = a["queue_95_veh_lane"], sumo_signals.percentile(halting, 0.95)
            p95_errors.append(abs(p95 - sumo_p95))
            mean_errors.append(abs(mean - sumo_mean))
            rows.append(f"x{i} {arm}: x {a['x']:.2f} y {a['y']:.2f}: mean {mean:.1f} (SUMO {sumo_mean:.1f}), "
                        f"95th percentile {p95:.0f} (SUMO {sumo_p95})")
    report = "\n".join(rows)
    print(report)
    assert max(p95_errors) <= 3, report
    assert sum(p95_errors) / len(p95_errors) <= 1.5, report
    assert max(mean_errors) <= 1.0, report


@pytest.mark.skipif(not BIN, reason="CITYTWIN_CLIENT_BIN not set (Scripts/client_tests.sh sets it)")
def test_webster_plan_beats_default_90s_plan_in_sumo(tmp_path: Path) -> None:
    """The reference's case: 600 veh/h per NS approach, 350 per EW: the Webster plan cuts the
    flow-weighted SUMO delay of netconvert's default 90 s plan (42/3/42/3)."""
    flows = {"N": 600.0, "S": 600.0, "W": 350.0, "E": 350.0}
    plan = plan_for(flows, tmp_path, all_red=0)
    default = {"stages": [{"approaches": ["N", "S"], "green_s": 42, "amber_s": 3, "all_red_s": 0},
                          {"approaches": ["W", "E"], "green_s": 42, "amber_s": 3, "all_red_s": 0}]}

    def weighted(p: dict, tag: str) -> float:
        d = sumo_signals.signal_delay(p, flows, 1, tmp_path / tag)
        return sum(d[a] * flows[a] for a in flows) / sum(flows.values())

    assert weighted(plan, "webster") < 0.75 * weighted(default, "default")


CORRIDOR_FLOWS = {"eastbound": 500.0, "westbound": 300.0, "side": 150.0}


def corridor_plan(tmp: Path, count: int = 4, spacing: float = 300, cycle: float = 90,
                  compare_offsets: list[float] | None = None) -> dict:
    """The reference corridor through `citytwin signal corridor --json`: eastbound 500 veh/h, westbound 300,
    side streets 150, C = 90 s (and the same plans at `compare_offsets`, as `at_compared_offsets`)."""
    corridor = sumo_signals.corridor_input("REF", count, spacing, CORRIDOR_FLOWS, SUMO_SATURATION, SUMO_LOST)
    compare = ["--compare-offsets", ",".join(f"{o:g}" for o in compare_offsets)] if compare_offsets else []
    return sumo_signals.plan_corridor(BIN, corridor, tmp, "--min-cycle", str(cycle), "--max-cycle", str(cycle),
                                      "--diagram", str(tmp / "corridor.svg"), *compare)


@pytest.mark.skipif(not BIN, reason="CITYTWIN_CLIENT_BIN not set (Scripts/client_tests.sh sets it)")
def test_green_wave_beats_tls_coordinator(tmp_path: Path) -> None:
    """Reference corridor (4 signals, 300 m, 13.89 m/s, C = 90 s): the major (eastbound) direction's
    SUMO delay under CityTwin's offsets is at least 10 % below its delay under SUMO's tlsCoordinator.py;
    and, before and after coordination as the reference measures them, its stops per vehicle (SUMO's
    waitingCount over the corridor) fall from the uncoordinated plans' (all offsets zero) under both tools'
    offsets, and fewest under CityTwin's (reference, tlsCoordinator on its own network: 2.17 -> 0.72)."""
    plan = corridor_plan(tmp_path)
    assert plan["cycle_s"] == 90
    flows = CORRIDOR_FLOWS
    net = sumo_signals.build_corridor(tmp_path, 300, 4)
    plans = plan["intersections"]
    ours, theirs, uncoordinated = [], [], []
    predicted_theirs = []
    for seed in (1, 2, 3):
        work = tmp_path / f"seed{seed}"
        work.mkdir()
        offsets = sumo_signals.tls_coordinator_offsets(net, plans, flows, seed, work)
        compared = corridor_plan(work, compare_offsets=sumo_signals.offsets_of(offsets))["at_compared_offsets"]
        predicted_theirs.append(eastbound_stops(compared))
        ours.append(sumo_signals.corridor_measure(net, plans, None, flows, seed, work, "citytwin"))
        theirs.append(sumo_signals.corridor_measure(net, plans, offsets, flows, seed, work, "coordinator"))
        uncoordinated.append(sumo_signals.corridor_measure(net, [dict(p, offset_s=0) for p in plans], None, flows, seed, work, "zero"))
    delay = lambda runs: sum(r.delay_s for r in runs) / len(runs)
    stops = lambda runs: sum(r.stops_per_veh for r in runs) / len(runs)
    report = (f"eastbound delay: CityTwin {delay(ours):.1f} s, tlsCoordinator {delay(theirs):.1f} s, "
              f"uncoordinated {delay(uncoordinated):.1f} s; stops per vehicle: CityTwin {stops(ours):.2f}, "
              f"tlsCoordinator {stops(theirs):.2f}, uncoordinated {stops(uncoordinated):.2f} "
              f"(bands {plan['outbound_bandwidth_s']:.1f}/{plan['inbound_bandwidth_s']:.1f} s)")
    print(report)
    assert delay(ours) <= 0.9 * delay(theirs), report
    assert stops(ours) < stops(theirs) < stops(uncoordinated), report
    assert delay(ours) < delay(uncoordinated), report
    # The plan's own halts (directions[].stops_per_vehicle: arrivals that meet red or a standing queue) order
    # the three offset sets as SUMO does, each within 0.4 of SUMO's count (2026-11-25: +0.07, +0.26, +0.03).
    predicted = {"CityTwin": eastbound_stops(plan), "tlsCoordinator": sum(predicted_theirs) / len(predicted_theirs),
                 "uncoordinated": eastbound_stops(corridor_plan(tmp_path / "seed1", compare_offsets=[0.0] * 4)["at_compared_offsets"])}
    measured = {"CityTwin": stops(ours), "tlsCoordinator": stops(theirs), "uncoordinated": stops(uncoordinated)}
    print("eastbound stops per vehicle, predicted / SUMO: " + ", ".join(f"{k} {predicted[k]:.2f} / {measured[k]:.2f}" for k in predicted))
    assert predicted["CityTwin"] < predicted["tlsCoordinator"] < predicted["uncoordinated"], predicted
    assert all(abs(predicted[k] - measured[k]) <= 0.4 for k in predicted), (predicted, measured)


def eastbound_stops(report: dict) -> float:
    return next(d["stops_per_vehicle"] for d in report["directions"] if d["direction"] == "outbound")


def outbound_delay(report: dict) -> float:
    return next(d["delay_s"] for d in report["directions"] if d["direction"] == "outbound")


@pytest.mark.skipif(not BIN, reason="CITYTWIN_CLIENT_BIN not set (Scripts/client_tests.sh sets it)")
def test_corridor_delay_follows_the_offsets_as_in_sumo(tmp_path: Path) -> None:
    """The plan's eastbound delay under offsets (`directions`, platoons carried from the upstream signal) against
    baseline-corrected SUMO delay, seeds 1-3, at CityTwin's offsets, tlsCoordinator.py's and all zero: within
    3.5 s each (measured +1.9, +2.2, -0.2 s; the isolated-signal sum, 30.9 s whatever the offsets, is 18 s off
    under the wave) and in SUMO's order."""
    plan = corridor_plan(tmp_path)
    flows = CORRIDOR_FLOWS
    net = sumo_signals.build_corridor(tmp_path, 300, 4)
    plans = plan["intersections"]
    coordinator = sumo_signals.offsets_of(sumo_signals.tls_coordinator_offsets(net, plans, flows, 1, tmp_path))
    sets = {"citytwin": [p["offset_s"] for p in plans], "coordinator": coordinator, "zero": [0.0] * 4}
    predicted, measured = {}, {}
    for name, offsets in sets.items():
        report = plan if name == "citytwin" else corridor_plan(tmp_path, compare_offsets=offsets)["at_compared_offsets"]
        predicted[name] = outbound_delay(report)
        delays = []
        for seed in (1, 2, 3):
            work = tmp_path / f"{name}{seed}"
            work.mkdir()
            delays.append(sumo_signals.corridor_delay(net, [dict(p, offset_s=o) for p, o in zip(plans, offsets)], None,
                                                      flows, seed, work, name))
        measured[name] = sum(delays) / len(delays)
    report = ", ".join(f"{n}: predicted {predicted[n]:.1f} s, SUMO {measured[n]:.1f} s" for n in sets)
    print(report)
    for name in sets:
        assert abs(predicted[name] - measured[name]) <= 3.5, report
    assert sorted(sets, key=predicted.get) == sorted(sets, key=measured.get), report


@pytest.mark.skipif(not BIN, reason="CITYTWIN_CLIENT_BIN not set (Scripts/client_tests.sh sets it)")
def test_offsets_for_delay_beat_the_band_in_sumo(tmp_path: Path) -> None:
    """Three signals 450 m apart, 400 veh/h each way, side streets 250, C = 100 s: the widest band (k = 1) is one-way,
    and `--offset-objective delay` trades some of it for the other direction. SUMO (seed 1) measures the through
    traffic's flow-weighted delay lower under the offsets for delay than under the band's, as predicted (seeds 1-3
    in Benchmarks/signals/corridor_progression.py: 46.3 against 38.6 s/veh; seed 1 here: 48.0 against 39.6)."""
    flows = {"eastbound": 400.0, "westbound": 400.0, "side": 250.0}
    corridor = sumo_signals.corridor_input("EQ", 3, 450, flows, SUMO_SATURATION, SUMO_LOST)
    net = sumo_signals.build_corridor(tmp_path, 450, 3)
    measured, predicted = {}, {}
    for objective in ("band", "delay"):
        plan = sumo_signals.plan_corridor(BIN, corridor, tmp_path, "--min-cycle", "100", "--max-cycle", "100",
                                          "--offset-objective", objective)
        assert plan["offset_objective"] == objective and plan["cycle_s"] == 100
        by_direction = {d["direction"]: d["delay_s"] for d in plan["directions"]}
        predicted[objective] = (by_direction["outbound"] + by_direction["inbound"]) / 2
        delays = []
        for direction in ("eastbound", "westbound"):
            work = tmp_path / f"{objective}-{direction}"
            work.mkdir()
            delays.append(sumo_signals.corridor_delay(net, plan["intersections"], None, flows, 1, work, objective, direction))
        measured[objective] = sum(delays) / len(delays)
    report = ", ".join(f"{o}: predicted {predicted[o]:.1f} s, SUMO {measured[o]:.1f} s" for o in measured)
    print(report)
    assert predicted["delay"] < predicted["band"] - 3, report
    assert measured["delay"] < measured["band"] - 3, report

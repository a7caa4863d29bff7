"""A corridor's delay under its offsets, predicted by `citytwin signal corridor` against SUMO (issue 16).

For each corridor (the reference's and others it was not read from), CityTwin plans the corridor at a fixed
common cycle; the same plans then run in SUMO 1.28 at five sets of offsets: CityTwin's green wave (the widest
band), CityTwin's offsets for the corridor's lowest delay (`--offset-objective delay`), SUMO's own
tools/tlsCoordinator.py, all zero and one random draw. Each direction's through traffic is measured as the
reference measures corridors (time lost, tripinfo timeLoss + departDelay, minus a run in which the same vehicles
meet only green; seeds 1-3, 600-4200 s) and set beside what the plan predicts for it: `directions[].delay_s` (arrivals carried
from the upstream signal, TRANSYT's cyclic flow profiles with Robertson's dispersion) and `isolated_delay_s`
(random arrivals at every signal, the figure before progression was modelled). The other offsets reach the
plan through `--compare-offsets`. Beside the delay, each direction's halts per vehicle over the corridor: SUMO's
tripinfo waitingCount (below 0.1 m/s) against the plan's `directions[].stops_per_vehicle` (arrivals on red or while
the back of the queue still stands, the start wave from the saturation flow and the link speed) and
`isolated_stops_per_vehicle` (the same with random arrivals). Last, per corridor, the through traffic's delay in SUMO weighted by the two
directions' flows (what `--offset-objective delay` minimises, the side streets' delay not depending on offsets)
under the band's offsets and under the delay's.

    python3 Benchmarks/signals/corridor_progression.py <citytwin> [--jobs 2] [--held-out]

About 1.5 minutes on 2 cores (2026-11-24, nothing else running).
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402

SEEDS = (1, 2, 3)
# name, signals, spacing (m), common cycle (s), eastbound, westbound, each side-street direction (veh/h)
CORRIDORS = [
    ("reference", 4, 300, 90, 500, 300, 150),
    ("five-250m", 5, 250, 70, 600, 450, 200),
    ("three-450m", 3, 450, 100, 400, 400, 250),
    ("six-200m", 6, 200, 60, 450, 250, 150),
]
# Corridors the halts model was not developed on (`--held-out`): it was built and checked on the four above.
HELD_OUT = [
    ("four-350m", 4, 350, 80, 550, 350, 180),
    ("five-300m-heavy", 5, 300, 100, 700, 500, 250),
]


def flows_of(east: float, west: float, side: float) -> dict[str, float]:
    return {"eastbound": float(east), "westbound": float(west), "side": float(side)}


def fixed_cycle(binary: str, corridor: dict, cycle: float, work: Path, compare: list[float] | None = None,
                offsets_for: str = "band") -> dict:
    """The corridor planned at `cycle` with offsets for `offsets_for` (and its plans at `compare` offsets)."""
    args = ["--min-cycle", str(cycle), "--max-cycle", str(cycle), "--offset-objective", offsets_for]
    if compare is not None:
        args += ["--compare-offsets", ",".join(f"{o:.3f}" for o in compare)]
    return sumo_signals.plan_corridor(binary, corridor, work, *args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("citytwin")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--held-out", action="store_true", help="the held-out corridors instead of the four")
    args = parser.parse_args()
    corridors = HELD_OUT if args.held_out else CORRIDORS
    binary = str(Path(args.citytwin).resolve())
    rows = []
    through: dict[tuple[str, str, str], tuple[float, float, float]] = {}
    stops: list[tuple[str, str, str, float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        for name, count, spacing, cycle, east, west, side in corridors:
            work = Path(tmp) / name
            work.mkdir()
            flows = flows_of(east, west, side)
            corridor = sumo_signals.corridor_input(name, count, spacing, flows)
            wave = fixed_cycle(binary, corridor, cycle, work)
            assert wave["cycle_s"] == cycle, wave["cycle_s"]
            plans = wave["intersections"]
            net = sumo_signals.build_corridor(work, spacing, count)
            coordinator = sumo_signals.offsets_of(sumo_signals.tls_coordinator_offsets(net, plans, flows, 1, work))
            rng = random.Random(name)
            lowest = fixed_cycle(binary, corridor, cycle, work, offsets_for="delay")
            assert [t["stages"] for t in lowest["intersections"]] == [t["stages"] for t in plans]
            offsets = {"CityTwin wave": [p["offset_s"] for p in plans],
                       "CityTwin delay": [p["offset_s"] for p in lowest["intersections"]], "tlsCoordinator": coordinator,
                       "zero": [0.0] * count, "random": [round(rng.uniform(0, cycle), 1) for _ in range(count)]}
            predicted = {}
            for label, o in offsets.items():
                report = wave if label == "CityTwin wave" else fixed_cycle(binary, corridor, cycle, work, o)["at_compared_offsets"]
                predicted[label] = {d["direction"]: (d["delay_s"], d["isolated_delay_s"], d["stops_per_vehicle"],
                                                     d["isolated_stops_per_vehicle"]) for d in report["directions"]}
            jobs = {}
            for label, o in offsets.items():
                for seed in SEEDS:
                    for direction in ("eastbound", "westbound"):
                        run_dir = work / f"{label.replace(' ', '-')}-{seed}-{direction}"
                        run_dir.mkdir()
                        moved = [dict(p, offset_s=x) for p, x in zip(plans, o)]
                        jobs[(label, seed, direction)] = pool.submit(sumo_signals.corridor_measure, net, moved, None, flows, seed,
                                                                     run_dir, "run", direction)
            for label in offsets:
                for direction, key in (("eastbound", "outbound"), ("westbound", "inbound")):
                    sumo = sum(jobs[(label, s, direction)].result().delay_s for s in SEEDS) / len(SEEDS)
                    halts = sum(jobs[(label, s, direction)].result().stops_per_veh for s in SEEDS) / len(SEEDS)
                    p, iso, p_stops, iso_stops = predicted[label][key]
                    rows.append((name, label, direction, ",".join(f"{x:.1f}" for x in offsets[label]), sumo, p, iso))
                    stops.append((name, label, direction, halts, p_stops, iso_stops))
                    through[(name, label, direction)] = (flows[direction], sumo, p)
                    print(f"{name:11s} {label:15s} {direction:9s} SUMO {sumo:6.1f}  predicted {p:6.1f} ({p - sumo:+5.1f})"
                          f"  isolated {iso:6.1f} ({iso - sumo:+5.1f});  halts SUMO {halts:.2f} predicted {p_stops:.2f}"
                          f" isolated {iso_stops:.2f}", flush=True)
    print("\n| corridor | offsets | direction | SUMO (s/veh) | predicted | isolated |")
    print("|---|---|---|---|---|---|")
    for name, label, direction, o, sumo, p, iso in rows:
        print(f"| {name} | {label} ({o}) | {direction} | {sumo:.1f} | {p:.1f} ({p - sumo:+.1f}) | {iso:.1f} ({iso - sumo:+.1f}) |")
    errors = [abs(r[5] - r[4]) for r in rows]
    isolated = [abs(r[6] - r[4]) for r in rows]
    print(f"\n{len(rows)} direction runs: predicted mean |error| {sum(errors) / len(errors):.2f} s, max {max(errors):.2f} s; "
          f"isolated mean {sum(isolated) / len(isolated):.2f} s, max {max(isolated):.2f} s")
    print("\n| corridor | offsets | direction | halts per vehicle, SUMO | predicted | isolated |")
    print("|---|---|---|---|---|---|")
    for name, label, direction, halts, p_stops, iso_stops in stops:
        print(f"| {name} | {label} | {direction} | {halts:.2f} | {p_stops:.2f} ({p_stops - halts:+.2f}) | {iso_stops:.2f} ({iso_stops - halts:+.2f}) |")
    errors = [abs(r[4] - r[3]) for r in stops]
    isolated = [abs(r[5] - r[3]) for r in stops]
    print(f"\nhalts per vehicle: predicted mean |error| {sum(errors) / len(errors):.2f}, max {max(errors):.2f}; "
          f"isolated mean {sum(isolated) / len(isolated):.2f}, max {max(isolated):.2f}")
    # Does the prediction order the offsets as SUMO does? Pairs of offset sets per corridor and direction.
    agree = total = 0
    for name, *_ in corridors:
        for direction in ("eastbound", "westbound"):
            runs = [r for r in stops if r[0] == name and r[2] == direction]
            for i in range(len(runs)):
                for j in range(i + 1, len(runs)):
                    if abs(runs[i][3] - runs[j][3]) >= 0.1:
                        total += 1
                        agree += (runs[i][3] < runs[j][3]) == (runs[i][4] < runs[j][4])
    print(f"offset sets ordered as SUMO orders them (pairs 0.1 halts or more apart in SUMO): {agree} of {total}")
    print("\n| corridor | through traffic, flow-weighted (s/veh): band's offsets, SUMO (predicted) | delay's offsets, SUMO (predicted) | change in SUMO |")
    print("|---|---|---|---|")
    for name, *_ in corridors:
        def weighted(label: str, column: int) -> float:
            runs = [through[(name, label, d)] for d in ("eastbound", "westbound")]
            return sum(r[0] * r[column] for r in runs) / sum(r[0] for r in runs)
        band, delay = weighted("CityTwin wave", 1), weighted("CityTwin delay", 1)
        print(f"| {name} | {band:.1f} ({weighted('CityTwin wave', 2):.1f}) | {delay:.1f} ({weighted('CityTwin delay', 2):.1f}) | "
              f"{delay - band:+.1f} ({(delay - band) / band:+.0%}) |")


if __name__ == "__main__":
    main()

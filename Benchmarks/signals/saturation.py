"""Saturation flow and lost time of each protected movement of one intersection, measured in SUMO 1.28 on
CityTwin's own export (issue 16; the signals reference §8 step 1, "measure s and lost time in SUMO by
saturating an approach", done for turns and multi-lane approaches too).

    python3 Benchmarks/signals/saturation.py CITYTWIN STORE INTERSECTION WORK [--seeds 1,2]

The intersection is exported (`citytwin signal export-sumo --intersection ID`). For each approach and
direction (through, left, right) that its plan serves on a green of its own, the movement alone is fed at
twice what its lanes can carry and its green is set to 10, 20, 30 and 40 s with an amber of 3 and of 4 s
(the other phases as planned). Vehicles served per cycle and lane, counted over 600-4200 s, fit
n = s (G + A - lost) / 3600: the slope is the saturation flow s, the intercept gives the lost time per
phase. Printed beside the planner's defaults (1800 veh/h/lane, 0.95 for lefts, 0.85 for rights;
GB 50647's start-up loss L_s = 3 s with the amber counted as green), to which the sample district and
`random_isolated.py` time."""
from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402
from export_runs import connections, run  # noqa: E402

GREENS = (10, 20, 30, 40)
DIRECTION = {"s": "through", "l": "left", "r": "right"}


def served_per_cycle(work: Path, net: Path, tls: str, phases: list[tuple[int, str]], green_phase: int, green: int,
                     amber: int, edge: str, to: str, lanes: int, seed: int) -> float:
    program = list(phases)
    program[green_phase] = (green, program[green_phase][1])
    program[green_phase + 1] = (amber, program[green_phase + 1][1])
    cycle = sum(d for d, _ in program)
    # Twice what the lanes can serve in this programme (at up to 1,900 veh/h/lane of green and amber).
    demand = round(2 * 1900 * lanes * (green + amber) / cycle)
    flow = (f'<flow id="f" type="car" begin="0" end="4200" vehsPerHour="{demand}" from="{edge}" to="{to}" '
            'departLane="best" departSpeed="max"/>')
    trips = run(work, net, tls, f"{edge}-{to}-{green}-{amber}-{seed}", program, [flow], 4200, seed)
    served = sum(1 for t in trips if 600 <= float(t.get("arrival")) < 4200)
    return served * cycle / 3600 / lanes


def fit(greens: tuple[int, ...], served: list[float]) -> tuple[float, float]:
    """Least-squares n = a G + b; returns (a, b)."""
    n = len(greens)
    mg, ms = sum(greens) / n, sum(served) / n
    a = sum((g - mg) * (s - ms) for g, s in zip(greens, served)) / sum((g - mg) ** 2 for g in greens)
    return a, ms - a * mg


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("store", type=Path)
    parser.add_argument("intersection")
    parser.add_argument("work", type=Path)
    parser.add_argument("--seeds", default="1,2")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    args.work.mkdir(parents=True, exist_ok=True)
    scenario = args.work / args.intersection
    sumo_signals.run_citytwin(args.binary, "signal", "export-sumo", "--out", str(scenario), "--intersection",
                              args.intersection, "--store", str(args.store))
    net = scenario / "network.net.xml"
    logic = next(ET.parse(scenario / "programs.add.xml").getroot().iter("tlLogic"))
    phases = [(int(float(p.get("duration"))), p.get("state")) for p in logic.iter("phase")]
    print(f"{args.intersection}: saturation flow s (veh/h/lane) and lost time per phase (s), "
          f"fitted over greens {GREENS} s, seeds {args.seeds}")
    for (edge, direction), cs in sorted(connections(net, args.intersection).items()):
        if direction not in DIRECTION:
            continue
        links = [int(c.get("linkIndex")) for c in cs]
        # The movement's own green: the first phase where all its links are G, followed by its amber.
        green_phase = next((i for i, (_, s) in enumerate(phases)
                            if all(s[k] == "G" for k in links) and i + 1 < len(phases)
                            and all(phases[i + 1][1][k] == "y" for k in links)), None)
        if green_phase is None:
            print(f"  {edge} {DIRECTION[direction]}: no protected green of its own, skipped")
            continue
        lanes = len({c.get("fromLane") for c in cs})
        default_s = 1800 * {"s": 1.0, "l": 0.95, "r": 0.85}[direction]
        for amber in (3, 4):
            served = [sum(served_per_cycle(args.work, net, args.intersection, phases, green_phase, g, amber, edge,
                                           cs[0].get("to"), lanes, seed) for seed in seeds) / len(seeds) for g in GREENS]
            a, b = fit(GREENS, served)
            s, lost = a * 3600, amber - b / a
            print(f"  {edge} {DIRECTION[direction]:7s} {lanes} lane(s), amber {amber} s: s {s:5.0f} (default {default_s:.0f}),"
                  f" lost {lost:4.2f} s (default 3.00)   served per cycle and lane "
                  + " ".join(f"{x:.2f}" for x in served), flush=True)


if __name__ == "__main__":
    main()

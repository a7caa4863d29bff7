"""Which common cycle a corridor should run, checked in SUMO (issue 16): `citytwin signal corridor` at the critical
intersection's cycle, and searching a range of cycles for MAXBAND's band efficiency (`--cycle-objective band`) or for
the corridor's lowest mean control delay (`--cycle-objective delay`, the default: through traffic arriving from the
upstream signals under each cycle's wave). Each distinct plan runs in SUMO 1.28 on the beds of
corridor_progression.py (seeds 1-3, 600-4200 s, every route's baseline-corrected delay: its vehicles alone on all-green
signals subtracted), and its total delay is set beside the plan's `mean_control_delay_s` as delay per vehicle per
signal passed, the unit the plan's figure is in.

    python3 Benchmarks/signals/corridor_cycle_objective.py <citytwin> [--jobs 2]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402
from corridor_progression import CORRIDORS, SEEDS, flows_of  # noqa: E402

SEARCH = 45  # s above the critical cycle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("citytwin")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    binary = str(Path(args.citytwin).resolve())
    lines = []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        for name, count, spacing, _, east, west, side in CORRIDORS:
            work = Path(tmp) / name
            work.mkdir()
            flows = flows_of(east, west, side)
            corridor = sumo_signals.corridor_input(name, count, spacing, flows)
            critical = sumo_signals.plan_corridor(binary, corridor, work)
            c = critical["cycle_s"]
            search = f"{c:.0f}-{c + SEARCH:.0f}"
            plans = {"critical": critical,
                     "band": sumo_signals.plan_corridor(binary, corridor, work, "--cycle-range", search, "--cycle-objective", "band"),
                     "delay": sumo_signals.plan_corridor(binary, corridor, work, "--cycle-range", search, "--cycle-objective", "delay")}
            net = sumo_signals.build_corridor(work, spacing, count)
            groups = {"eastbound": (east, count), "westbound": (west, count)}
            for i in range(count):
                groups[f"south{i + 1}"] = groups[f"north{i + 1}"] = (side, 1)
            by_cycle = {}
            for label, p in plans.items():
                by_cycle.setdefault(p["cycle_s"], (p, []))[1].append(label)
            measured = {}
            for cycle, (p, _) in by_cycle.items():
                jobs = {}
                for seed in SEEDS:
                    for group in groups:
                        run_dir = work / f"{cycle:.0f}-{seed}-{group}"
                        run_dir.mkdir()
                        jobs[(seed, group)] = pool.submit(sumo_signals.corridor_delay, net, p["intersections"], None, flows,
                                                          seed, run_dir, "run", group)
                total = passages = 0.0
                for group, (q, signals) in groups.items():
                    delay = sum(jobs[(s, group)].result() for s in SEEDS) / len(SEEDS)
                    total += q * delay
                    passages += q * signals
                measured[cycle] = total / passages
            best = min(measured, key=measured.get)
            for cycle, (p, labels) in sorted(by_cycle.items()):
                line = (f"| {name} | {cycle:.0f} s | {', '.join(labels)} | {p['outbound_bandwidth_s']:.0f} + {p['inbound_bandwidth_s']:.0f} s"
                        f" | {p['mean_control_delay_s']:.1f} | {measured[cycle]:.1f}{' (lowest)' if cycle == best else ''} |")
                print(line, flush=True)
                lines.append(line)
    print("\n| corridor | common cycle | chosen by | bands | predicted mean control delay (s/veh/signal) | SUMO (s/veh/signal) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""The district corridor SC-001 coordinated at several common cycles and replayed in SUMO 1.28: for each
`--cycle-range` given, searched for band efficiency (none: the critical intersection's cycle), `citytwin signal corridor --id SC-001 --period
PERIOD --write` on a copy of the store, `citytwin signal export-sumo --corridor SC-001`, then `sumo` on seeds 7-9.
Prints per cycle the bands and time lost (tripinfo timeLoss + departDelay, s/veh): every vehicle, the main line both ways and each
direction. Whether a wider green band pays for a longer cycle (Benchmarks/README.md, green wave).

    python3 Benchmarks/signals/corridor_cycles.py CITYTWIN STORE WORK [--period 07:00-08:00] [--range 83-100 ...]"""
from __future__ import annotations

import argparse
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402
from store_copy import copy_store  # noqa: E402

OUTBOUND, INBOUND = "S_through_SI-006", "N_through_SI-024"


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("citytwin")
    p.add_argument("store")
    p.add_argument("work", type=Path)
    p.add_argument("--period", default="07:00-08:00")
    p.add_argument("--range", action="append", default=None, help="MIN-MAX for --cycle-range; repeatable; 'critical' for none")
    p.add_argument("--seeds", default="7,8,9")
    args = p.parse_args()
    for case in args.range or ["critical", "83-100", "123-123"]:
        work = args.work / case
        work.mkdir(parents=True, exist_ok=True)
        store = copy_store(args.store, work / "district.sqlite")
        extra = [] if case == "critical" else ["--cycle-range", case, "--cycle-objective", "band"]
        plan = sumo_signals.run_citytwin(args.citytwin, "signal", "corridor", "--id", "SC-001", "--period", args.period,
                                         "--write", "--store", str(store), *extra)
        print(plan.splitlines()[0])
        scenario = work / "scenario"
        sumo_signals.run_citytwin(args.citytwin, "signal", "export-sumo", "--out", str(scenario), "--corridor", "SC-001",
                                  "--period", args.period, "--store", str(store))
        for seed in args.seeds.split(","):
            trips = work / f"trips-{seed}.xml"
            subprocess.run([sumo_signals.sumo_tool("sumo"), "-c", str(scenario / "scenario.sumocfg"), "--tripinfo-output", str(trips),
                            "--seed", seed, "--time-to-teleport", "-1", "--end", "200000", "--no-step-log", "true",
                            "--no-warnings", "true", "--duration-log.disable", "true"], check=True, capture_output=True)
            loss = {t.get("id"): sumo_signals.time_lost(t) for t in ET.parse(trips).getroot().iter("tripinfo")}
            out = [v for k, v in loss.items() if k.startswith(OUTBOUND)]
            back = [v for k, v in loss.items() if k.startswith(INBOUND)]
            print(f"  {case} seed {seed}: all {mean(list(loss.values())):.1f} s/veh ({len(loss)}), main line {mean(out + back):.1f}"
                  f" ({len(out) + len(back)}), outbound {mean(out):.1f}, inbound {mean(back):.1f}")


if __name__ == "__main__":
    main()

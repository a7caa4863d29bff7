"""The plans' 95th-percentile back of queue (`queue_95_veh_lane`) against the queues SUMO 1.28 forms, on the
reference's crossroads (shared/reference/signals.md, "Measured method": one lane per approach, through movements,
SUMO's own saturation flow and lost time, Poisson arrivals; the crossroads of reference_crossroads.py).

Each plan is replayed with SUMO's queue output. A cycle's back of queue on an approach is the longest queue SUMO
reports between the start of that approach's red and the start of its next red (one queue's build-up and
discharge), in vehicles: (length + 2.5 m) / 7.5 m, a 5 m car and its 2.5 m gap. Two readings of SUMO's queue:
`halting` (the last vehicle slower than 5 km/h, SUMO's `queueing_length_experimental`, near HCM's "queued" at
5 mi/h) and `standing` (the last standing vehicle, `queueing_length`). Printed per approach: the plan's mean back of
queue per lane (HCM 2000's q·r/(1 − y) plus the overflow, the distribution's mean) and its 95th percentile beside
SUMO's, and mean / max / bias of predicted − SUMO over the approaches.

    python3 Benchmarks/signals/queue_percentiles.py CITYTWIN [--count 6] [--generator-seed 99] [--seeds 1,2,3]
                                                     [--work DIR]"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402
import test_signal_sumo  # noqa: E402

def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("citytwin")
    p.add_argument("--count", type=int, default=6)
    p.add_argument("--generator-seed", type=int, default=99)
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--work", type=Path, default=None)
    args = p.parse_args()
    test_signal_sumo.BIN = args.citytwin
    work = args.work or Path(tempfile.mkdtemp(prefix="queues-"))
    work.mkdir(parents=True, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",")]
    errors: dict[str, list[float]] = {"p95 vs halting": [], "p95 vs standing": [], "mean vs halting": []}
    for i, flows in enumerate(test_signal_sumo.random_intersections(args.count, args.generator_seed)):
        plan = test_signal_sumo.plan_for(flows, work)
        if max(a["x"] for a in plan["approaches"].values()) > 0.8:
            print(f"x{i}: skipped, x > 0.8")
            continue
        measured: dict[str, dict[str, list[int]]] = {}
        for seed in seeds:
            for arm, readings in sumo_signals.cycle_queues(plan, flows, seed, work / f"x{i}-s{seed}").items():
                for reading, values in readings.items():
                    measured.setdefault(arm, {}).setdefault(reading, []).extend(values)
        for arm, a in sorted(plan["approaches"].items()):
            halting, standing = measured[arm]["halting"], measured[arm]["standing"]
            mean_back = a["queue_veh"] / (1 - a["y"])
            errors["p95 vs halting"].append(a["queue_95_veh_lane"] - sumo_signals.percentile(halting, 0.95))
            errors["p95 vs standing"].append(a["queue_95_veh_lane"] - sumo_signals.percentile(standing, 0.95))
            errors["mean vs halting"].append(mean_back - sum(halting) / len(halting))
            print(f"x{i} {arm}: C {plan['cycle_s']:.0f} s, q {a['flow_veh_h']:.0f}, x {a['x']:.2f}, y {a['y']:.2f}, "
                  f"{len(halting)} cycles: back of queue mean {mean_back:4.1f} (SUMO halting {sum(halting) / len(halting):4.1f}), "
                  f"95th percentile {a['queue_95_veh_lane']:.0f} veh (SUMO halting {sumo_signals.percentile(halting, 0.95)}, standing "
                  f"{sumo_signals.percentile(standing, 0.95)})", flush=True)
    for name, e in errors.items():
        print(f"{name}: {len(e)} approaches, mean |diff| {sum(map(abs, e)) / len(e):.2f} veh, max {max(map(abs, e)):.0f} veh, "
              f"bias {sum(e) / len(e):+.2f} veh")


if __name__ == "__main__":
    main()

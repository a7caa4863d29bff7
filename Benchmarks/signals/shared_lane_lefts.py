"""What SUMO 1.28 serves of an approach whose lefts are permitted (issue 16's open per-approach miss): the vehicles each
movement gets through, and the lanes they use, with the approach's demand as planned and scaled up until it queues.

    python3 Benchmarks/signals/shared_lane_lefts.py CITYTWIN INTERSECTION.json ARM [--scales 1,2,4] [--seeds 1,2]

The intersection (the `signal plan --input` shape, without turn bays: a bay splits the arm's edge, and the counts
here are taken where the arm's edge meets the junction) is exported by `citytwin signal export-sumo --input` under
its own Webster plan; every flow from ARM (N, S, E or W) is multiplied by each scale, the others stay as planned.
SUMO runs 600 s of warm-up and 3,600 s measured per seed. Printed: the plan's capacity of the arm's lane groups,
then per scale each movement's vehicles per hour leaving the arm and the vehicles over a loop at the stop line of
each lane. Above scale 1 the arm queues, so what it serves is what SUMO's drivers can serve: where the lefts' own
figure stops growing, it is their capacity. The lanes show how through traffic spreads beside a lane it shares with
waiting lefts."""
from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402

WARM_UP, MEASURED = 600, 3600


def scaled_routes(routes: str, groups: set[str], scale: float) -> str:
    """The export's flows (`<flow id="GROUP_MOVEMENT_…" period="exp(RATE)">`) with the rates of `groups` multiplied."""
    def scale_flow(m: re.Match) -> str:
        rate = float(m.group(2)) * (scale if m.group(1) in groups else 1)
        return m.group(0).replace(f"exp({m.group(2)})", f"exp({rate!r})")
    return re.sub(r'<flow id="([^_"]+)_[^"]*"[^>]*period="exp\(([0-9.e-]+)\)"', scale_flow, routes)


def approach_lanes(net: Path, approach: str) -> list[str]:
    """The lanes of the arm's edge into the junction (the export's `ID_ARM_to_ID`), rightmost first."""
    root = ET.parse(net).getroot()
    edge = next(e for e in root.iter("edge") if e.get("function") != "internal"
                and re.fullmatch(rf"(.+)_{re.escape(approach)}_to_\1", e.get("id", "")))
    return [lane.get("id") for lane in edge.iter("lane")]


def replay(scenario: Path, routes: str, lanes: list[str], seed: int, work: Path) -> tuple[collections.Counter, list[int]]:
    """Vehicles per (lane group, movement) that left their arm in the measured hour, and vehicles over a loop at the stop line
    of each of `lanes` in that hour."""
    (work / "r.rou.xml").write_text(routes)
    loops = "".join(f'<inductionLoop id="loop{k}" lane="{lane}" pos="-0.5" period="{WARM_UP}" file="{work / "loops.xml"}"/>'
                    for k, lane in enumerate(lanes))
    (work / "loops.add.xml").write_text(f"<additional>{loops}</additional>")
    subprocess.run([sumo_signals.sumo_tool("sumo"), "-n", str(scenario / "network.net.xml"), "-r", str(work / "r.rou.xml"),
                    "-a", f'{scenario / "programs.add.xml"},{work / "loops.add.xml"}', "--vehroute-output", str(work / "routes.xml"),
                    "--vehroute-output.exit-times", "true", "--seed", str(seed), "--end", str(WARM_UP + MEASURED),
                    "--no-step-log", "true", "--no-warnings", "true"], check=True, capture_output=True)
    movements = collections.Counter()
    for vehicle in ET.parse(work / "routes.xml").getroot().iter("vehicle"):
        exits = (vehicle.find("route").get("exitTimes") or "").split()
        if exits and WARM_UP <= float(exits[0]) < WARM_UP + MEASURED:
            group, movement = vehicle.get("id").split("_")[:2]
            movements[(group, movement)] += 1
    per_lane = [0] * len(lanes)
    for interval in ET.parse(work / "loops.xml").getroot().iter("interval"):
        if float(interval.get("begin")) >= WARM_UP:
            per_lane[int(interval.get("id")[4:])] += int(interval.get("nVehContrib"))
    return movements, per_lane


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("citytwin")
    p.add_argument("intersection", type=Path)
    p.add_argument("approach", metavar="arm", choices=("N", "S", "E", "W"))
    p.add_argument("--scales", default="1,2,4")
    p.add_argument("--seeds", default="1,2")
    args = p.parse_args()
    groups = [g for g in json.loads(args.intersection.read_text())["approaches"] if g.get("arm", g["id"]) == args.approach]
    if not groups or any("storage_m" in g for g in groups):
        sys.exit(f"{args.intersection}: arm {args.approach} needs lane groups and no turn bay (storage_m) for these counts")
    ids = {g["id"] for g in groups}
    plan = json.loads(sumo_signals.run_citytwin(args.citytwin, "signal", "plan", "--input", str(args.intersection), "--json"))
    print(f"{plan['intersection']}: cycle {plan['cycle_s']} s; " + "; ".join(
        f"{g['id']} planned x {plan['approaches'][g['id']]['x']:.2f}, capacity {plan['approaches'][g['id']]['capacity_veh_h']:.0f} "
        f"veh/h for {plan['approaches'][g['id']]['flow_veh_h']:.0f} veh/h" for g in groups))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        scenario = work / "scenario"
        sumo_signals.run_citytwin(args.citytwin, "signal", "export-sumo", "--input", str(args.intersection), "--out", str(scenario))
        routes = (scenario / "routes.rou.xml").read_text()
        lanes = approach_lanes(scenario / "network.net.xml", args.approach)
        seeds = [int(s) for s in args.seeds.split(",")]
        for scale in (float(s) for s in args.scales.split(",")):
            served, per_lane = collections.Counter(), [0] * len(lanes)
            for seed in seeds:
                movements, loops = replay(scenario, scaled_routes(routes, ids, scale), lanes, seed, work)
                served.update(movements)
                per_lane = [a + b for a, b in zip(per_lane, loops)]
            mine = {m: n / len(seeds) for (group, m), n in sorted(served.items()) if group in ids}
            print(f"  demand x{scale:g}: {args.approach} served " + ", ".join(f"{m} {n:.0f}" for m, n in mine.items())
                  + f" veh/h, {sum(mine.values()):.0f} in all; by lane from the right " + " / ".join(f"{n / len(seeds):.0f}" for n in per_lane))


if __name__ == "__main__":
    main()

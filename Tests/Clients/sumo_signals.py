"""SUMO scenarios for checking CityTwin's signal plans in an independent simulator (SUMO 1.28, PyPI
`eclipse-sumo`), following the measured method of shared/reference/signals.md §8:

- one intersection, four 400 m single-lane approaches, through movements only;
- Poisson arrivals generated here (the same vehicles in every run of a seed);
- delay = tripinfo `timeLoss` under the plan minus `timeLoss` of the same vehicles in a baseline run
  where their axis is permanently green and the crossing axis is empty, so acceleration and
  dawdling losses that the signal does not cause cancel out;
- vehicles departing in the measurement window 600-4200 s.

The network and routes are written here, not by CityTwin, so the check stays independent of
CityTwin's own SUMO export.
"""
from __future__ import annotations

import random
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ARMS = {"N": (0, 400), "S": (0, -400), "E": (400, 0), "W": (-400, 0)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
SPEED = 13.89
WARM_UP, MEASURE_END = 600.0, 4200.0


def sumo_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        venv = Path(__file__).resolve().parents[2] / ".venv" / "bin" / name
        if venv.exists():
            return str(venv)
        raise RuntimeError(f"{name} not found: install eclipse-sumo (Scripts/requirements.txt)")
    return path


def build_network(work: Path) -> Path:
    """An isolated crossroads with a traffic light at C and through-only connections."""
    nodes = ET.Element("nodes")
    ET.SubElement(nodes, "node", id="C", x="0", y="0", type="traffic_light")
    for arm, (x, y) in ARMS.items():
        ET.SubElement(nodes, "node", id=arm, x=str(x), y=str(y), type="priority")
    edges = ET.Element("edges")
    for arm in ARMS:
        ET.SubElement(edges, "edge", id=f"{arm}_in", attrib={"from": arm, "to": "C", "numLanes": "1", "speed": str(SPEED)})
        ET.SubElement(edges, "edge", id=f"{arm}_out", attrib={"from": "C", "to": arm, "numLanes": "1", "speed": str(SPEED)})
    connections = ET.Element("connections")
    for arm in ARMS:
        ET.SubElement(connections, "connection", attrib={"from": f"{arm}_in", "to": f"{OPPOSITE[arm]}_out"})
    for name, root in (("n.nod.xml", nodes), ("e.edg.xml", edges), ("c.con.xml", connections)):
        ET.ElementTree(root).write(work / name)
    net = work / "crossroads.net.xml"
    subprocess.run([sumo_tool("netconvert"), "--node-files", str(work / "n.nod.xml"), "--edge-files", str(work / "e.edg.xml"),
                    "--connection-files", str(work / "c.con.xml"), "--no-turnarounds", "true", "-o", str(net)],
                   check=True, capture_output=True)
    return net


def link_indices(net: Path) -> dict[str, list[int]]:
    """The traffic light's link indices of each approach arm."""
    links: dict[str, list[int]] = {}
    for c in ET.parse(net).getroot().iter("connection"):
        if c.get("tl") == "C":
            links.setdefault(c.get("from").removesuffix("_in"), []).append(int(c.get("linkIndex")))
    return links


def write_program(path: Path, links: dict[str, list[int]], phases: list[tuple[float, dict[str, str]]]) -> None:
    """A static tlLogic: each phase a duration and the signal of each arm (G, y or r)."""
    size = 1 + max(i for idx in links.values() for i in idx)
    root = ET.Element("additional")
    logic = ET.SubElement(root, "tlLogic", id="C", type="static", programID="citytwin", offset="0")
    for duration, signals in phases:
        state = ["r"] * size
        for arm, idx in links.items():
            for i in idx:
                state[i] = signals.get(arm, "r")
        ET.SubElement(logic, "phase", duration=f"{duration:g}", state="".join(state))
    ET.ElementTree(root).write(path)


def plan_phases(plan: dict) -> list[tuple[float, dict[str, str]]]:
    """The phases of a CityTwin plan (`citytwin signal plan --json`): green, amber, all-red per stage."""
    phases = []
    for stage in plan["stages"]:
        arms = stage["approaches"]
        phases.append((stage["green_s"], {a: "G" for a in arms}))
        phases.append((stage["amber_s"], {a: "y" for a in arms}))
        if stage["all_red_s"] > 0:
            phases.append((stage["all_red_s"], {}))
    return [(d, s) for d, s in phases if d > 0]


@dataclass
class Vehicle:
    id: str
    arm: str
    depart: float


def poisson_vehicles(flows: dict[str, float], seed: int, end: float = MEASURE_END + 300) -> list[Vehicle]:
    """Poisson arrivals per arm (veh/h) until `end` s."""
    rng = random.Random(seed)
    vehicles = []
    for arm in sorted(flows):
        rate = flows[arm] / 3600.0
        t, n = 0.0, 0
        while rate > 0:
            t += rng.expovariate(rate)
            if t >= end:
                break
            vehicles.append(Vehicle(f"{arm}_{n}", arm, round(t, 2)))
            n += 1
    return sorted(vehicles, key=lambda v: v.depart)


def write_routes(path: Path, vehicles: list[Vehicle]) -> None:
    root = ET.Element("routes")
    for arm in ARMS:
        ET.SubElement(root, "route", id=f"r_{arm}", edges=f"{arm}_in {OPPOSITE[arm]}_out")
    for v in vehicles:
        ET.SubElement(root, "vehicle", id=v.id, route=f"r_{v.arm}", depart=f"{v.depart:.2f}", departLane="best")
    ET.ElementTree(root).write(path)


def run(net: Path, routes: Path, program: Path, seed: int, work: Path, tag: str) -> dict[str, float]:
    """timeLoss (s) of every vehicle that finished its trip."""
    trips = work / f"trips-{tag}.xml"
    subprocess.run([sumo_tool("sumo"), "-n", str(net), "-r", str(routes), "-a", str(program), "--seed", str(seed),
                    "--tripinfo-output", str(trips), "--time-to-teleport", "-1", "--no-step-log", "true",
                    "--no-warnings", "true", "--duration-log.disable", "true"], check=True, capture_output=True)
    return {t.get("id"): float(t.get("timeLoss")) for t in ET.parse(trips).getroot().iter("tripinfo")}


def signal_delay(plan: dict, flows: dict[str, float], seed: int, work: Path) -> dict[str, float]:
    """Baseline-corrected SUMO delay (s/veh) per arm under `plan` for Poisson demand `flows`."""
    work.mkdir(parents=True, exist_ok=True)
    net = build_network(work)
    links = link_indices(net)
    vehicles = poisson_vehicles(flows, seed)
    routes = work / "all.rou.xml"
    write_routes(routes, vehicles)
    program = work / "plan.add.xml"
    write_program(program, links, plan_phases(plan))
    signalled = run(net, routes, program, seed, work, "plan")
    baseline: dict[str, float] = {}
    for stage in plan["stages"]:
        axis = set(stage["approaches"])
        axis_routes = work / f"axis-{'-'.join(sorted(axis))}.rou.xml"
        write_routes(axis_routes, [v for v in vehicles if v.arm in axis])
        green = work / f"green-{'-'.join(sorted(axis))}.add.xml"
        write_program(green, links, [(100000, {a: "G" for a in axis})])
        baseline.update(run(net, axis_routes, green, seed, work, "base-" + "-".join(sorted(axis))))
    delays: dict[str, list[float]] = {}
    for v in vehicles:
        if WARM_UP <= v.depart < MEASURE_END and v.id in signalled and v.id in baseline:
            delays.setdefault(v.arm, []).append(signalled[v.id] - baseline[v.id])
    return {arm: sum(d) / len(d) for arm, d in delays.items() if d}

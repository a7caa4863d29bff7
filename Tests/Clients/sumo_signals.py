"""SUMO scenarios for checking CityTwin's signal plans in an independent simulator (SUMO 1.28, PyPI
`eclipse-sumo`), following the measured method of shared/reference/signals.md §8:

- one intersection, four 400 m single-lane approaches, through movements only (the reference's scope; with
  `turns`, every lane also carries left and right turns, as netconvert connects them, for measuring beyond it);
- Poisson arrivals generated here (the same vehicles in every run of a seed);
- delay = time lost under the plan minus time lost by the same vehicles in a baseline run where their
  axis is permanently green and the crossing axis is empty, so acceleration and dawdling losses that the
  signal does not cause cancel out; time lost is tripinfo `timeLoss` plus `departDelay` (the wait to enter
  an approach a queue has filled, which `timeLoss` leaves out; zero while queues stay on the approach);
- vehicles departing in the measurement window 600-4200 s;
- queues: each cycle's back of queue from SUMO's queue output, between an approach's red and its next red.

The network and routes are written here, not by CityTwin, so the check stays independent of
CityTwin's own SUMO export.
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import random
import sys
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ARMS = {"N": (0, 400), "S": (0, -400), "E": (400, 0), "W": (-400, 0)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
# Driving on the right: the arm each movement from an arm leaves by (as SumoExport.exit).
EXIT = {"N": {"through": "S", "left": "E", "right": "W"}, "S": {"through": "N", "left": "W", "right": "E"},
        "E": {"through": "W", "left": "S", "right": "N"}, "W": {"through": "E", "left": "N", "right": "S"}}
SPEED = 13.89
WARM_UP, MEASURE_END = 600.0, 4200.0


def write_xml(root: ET.Element, path: Path) -> None:
    """One element per line: SUMO's tools read route files with line-based parsers (sumolib parse_fast)."""
    ET.indent(root)
    ET.ElementTree(root).write(path)


def sumo_home() -> Path:
    """eclipse-sumo's SUMO_HOME, found without importing the package: its __init__ points PROJ_LIB and
    PROJ_DATA at SUMO's own proj.db for the whole process, which breaks GDAL and CityTwin's PROJ in
    every later subprocess of the test run."""
    spec = importlib.util.find_spec("sumo")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("eclipse-sumo is not installed (Scripts/requirements.txt)")
    return Path(list(spec.submodule_search_locations)[0])


def sumo_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        venv = Path(__file__).resolve().parents[2] / ".venv" / "bin" / name
        if venv.exists():
            return str(venv)
        raise RuntimeError(f"{name} not found: install eclipse-sumo (Scripts/requirements.txt)")
    return path


def run_citytwin(binary: str, *args: str) -> str:
    """Runs the CityTwin CLI with SUMO's tools on PATH, as a user with eclipse-sumo installed has them."""
    tools = str(Path(sumo_tool("netconvert")).parent)
    env = {**os.environ, "PATH": tools + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run([binary, *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, f"citytwin {' '.join(args)}: {done.stderr}"
    return done.stdout


def build_network(work: Path, turns: bool = False) -> Path:
    """An isolated crossroads with a traffic light at C and through-only connections (`turns`: netconvert's own
    connections, every movement from the one lane)."""
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
    files = [("n.nod.xml", nodes), ("e.edg.xml", edges)] + ([] if turns else [("c.con.xml", connections)])
    for name, root in files:
        write_xml(root, work / name)
    net = work / "crossroads.net.xml"
    args = [sumo_tool("netconvert"), "--node-files", str(work / "n.nod.xml"), "--edge-files", str(work / "e.edg.xml")]
    if not turns:
        args += ["--connection-files", str(work / "c.con.xml")]
    subprocess.run(args + ["--no-turnarounds", "true", "-o", str(net)], check=True, capture_output=True)
    return net


def link_indices(net: Path) -> dict[str, list[int]]:
    """The traffic light's link indices of each approach arm."""
    links: dict[str, list[int]] = {}
    for c in ET.parse(net).getroot().iter("connection"):
        if c.get("tl") == "C":
            links.setdefault(c.get("from").removesuffix("_in"), []).append(int(c.get("linkIndex")))
    return links


def minor_links(net: Path) -> set[int]:
    """Link indices netconvert's own program of C gives a minor green ('g': yield to foes, e.g. a permitted left)."""
    logic = next(t for t in ET.parse(net).getroot().iter("tlLogic") if t.get("id") == "C")
    return {i for phase in logic.iter("phase") for i, c in enumerate(phase.get("state")) if c == "g"}


def write_program(path: Path, links: dict[str, list[int]], phases: list[tuple[float, dict[str, str]]],
                  minor: set[int] = frozenset()) -> None:
    """A static tlLogic: each phase a duration and the signal of each arm (G, y or r); a green on a `minor` link
    is 'g', as netconvert writes it, where another arm is green beside it (alone, nothing crosses it)."""
    size = 1 + max(i for idx in links.values() for i in idx)
    root = ET.Element("additional")
    logic = ET.SubElement(root, "tlLogic", id="C", type="static", programID="citytwin", offset="0")
    for duration, signals in phases:
        state = ["r"] * size
        opposed = sum(1 for s in signals.values() if s == "G") > 1
        for arm, idx in links.items():
            for i in idx:
                state[i] = signals.get(arm, "r")
                if state[i] == "G" and i in minor and opposed:
                    state[i] = "g"
        ET.SubElement(logic, "phase", duration=f"{duration:g}", state="".join(state))
    write_xml(root, path)


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
    movement: str = "through"


Flows = dict[str, float] | dict[str, dict[str, float]]


def movement_flows(flows: Flows) -> dict[str, dict[str, float]]:
    """Flows per arm and movement (veh/h): a bare number per arm is its through flow."""
    return {arm: (dict(q) if isinstance(q, dict) else {"through": q}) for arm, q in flows.items()}


def poisson_vehicles(flows: Flows, seed: int, end: float = MEASURE_END + 300) -> list[Vehicle]:
    """Poisson arrivals per arm and movement (veh/h) until `end` s (through-only flows keep the vehicles, ids and
    random draws they always had)."""
    rng = random.Random(seed)
    vehicles = []
    for arm, movements in sorted(movement_flows(flows).items()):
        for movement in sorted(movements, key=lambda m: (m != "through", m)):
            rate = movements[movement] / 3600.0
            prefix = arm if movement == "through" else f"{arm}{movement[0]}"
            t, n = 0.0, 0
            while rate > 0:
                t += rng.expovariate(rate)
                if t >= end:
                    break
                vehicles.append(Vehicle(f"{prefix}_{n}", arm, round(t, 2), movement))
                n += 1
    return sorted(vehicles, key=lambda v: v.depart)


def write_routes(path: Path, vehicles: list[Vehicle]) -> None:
    root = ET.Element("routes")
    for arm in ARMS:
        ET.SubElement(root, "route", id=f"r_{arm}", edges=f"{arm}_in {OPPOSITE[arm]}_out")
        for movement in ("left", "right"):
            ET.SubElement(root, "route", id=f"r_{arm}_{movement}", edges=f"{arm}_in {EXIT[arm][movement]}_out")
    for v in vehicles:
        route = f"r_{v.arm}" if v.movement == "through" else f"r_{v.arm}_{v.movement}"
        ET.SubElement(root, "vehicle", id=v.id, route=route, depart=f"{v.depart:.2f}", departLane="best")
    write_xml(root, path)


def trips(net: Path, routes: Path, program: Path, seed: int, work: Path, tag: str) -> dict[str, ET.Element]:
    """The tripinfo (timeLoss, waitingCount, ...) of every vehicle that finished its trip, by vehicle id."""
    out = work / f"trips-{tag}.xml"
    subprocess.run([sumo_tool("sumo"), "-n", str(net), "-r", str(routes), "-a", str(program), "--seed", str(seed),
                    "--tripinfo-output", str(out), "--time-to-teleport", "-1", "--no-step-log", "true",
                    "--no-warnings", "true", "--duration-log.disable", "true"], check=True, capture_output=True)
    return {t.get("id"): t for t in ET.parse(out).getroot().iter("tripinfo")}


def time_lost(trip: ET.Element) -> float:
    """A trip's time lost (s): `timeLoss` on the road plus `departDelay` waiting to enter it."""
    return float(trip.get("timeLoss")) + float(trip.get("departDelay") or 0)


def run(net: Path, routes: Path, program: Path, seed: int, work: Path, tag: str) -> dict[str, float]:
    """Time lost (s) of every vehicle that finished its trip."""
    return {i: time_lost(t) for i, t in trips(net, routes, program, seed, work, tag).items()}


def signal_delay(plan: dict, flows: Flows, seed: int, work: Path) -> dict[str, float]:
    """Baseline-corrected SUMO delay (s/veh) per arm under `plan` for Poisson demand `flows` (per arm, or per arm
    and movement: with any turning flow the network connects every movement)."""
    work.mkdir(parents=True, exist_ok=True)
    turns = any(q > 0 for m in movement_flows(flows).values() for name, q in m.items() if name != "through")
    net = build_network(work, turns)
    links = link_indices(net)
    minor = minor_links(net)
    vehicles = poisson_vehicles(flows, seed)
    routes = work / "all.rou.xml"
    write_routes(routes, vehicles)
    program = work / "plan.add.xml"
    write_program(program, links, plan_phases(plan), minor)
    signalled = run(net, routes, program, seed, work, "plan")
    baseline: dict[str, float] = {}
    for stage in plan["stages"]:
        axis = set(stage["approaches"])
        axis_routes = work / f"axis-{'-'.join(sorted(axis))}.rou.xml"
        write_routes(axis_routes, [v for v in vehicles if v.arm in axis])
        green = work / f"green-{'-'.join(sorted(axis))}.add.xml"
        write_program(green, links, [(100000, {a: "G" for a in axis})], minor)
        baseline.update(run(net, axis_routes, green, seed, work, "base-" + "-".join(sorted(axis))))
    delays: dict[str, list[float]] = {}
    for v in vehicles:
        if WARM_UP <= v.depart < MEASURE_END and v.id in signalled and v.id in baseline:
            delays.setdefault(v.arm, []).append(signalled[v.id] - baseline[v.id])
    return {arm: sum(d) / len(d) for arm, d in delays.items() if d}


# A queued car in SUMO: 5 m long, 2.5 m behind the one ahead.
QUEUE_SPACING_M, QUEUE_GAP_M = 7.5, 2.5


def red_starts(plan: dict) -> tuple[float, dict[str, float]]:
    """The programme's cycle (s) and, per approach, when its red starts within it (after its green and amber)."""
    start, reds = 0.0, {}
    for stage in plan["stages"]:
        for arm in stage["approaches"]:
            reds[arm] = start + stage["green_s"] + stage["amber_s"]
        start += stage["green_s"] + stage["amber_s"] + stage["all_red_s"]
    return start, reds


def cycle_queues(plan: dict, flows: dict, seed: int, work: Path) -> dict[str, dict[str, list[int]]]:
    """Per approach and reading: each measured cycle's back of queue (veh), the longest queue SUMO's queue output
    gives between the start of the approach's red and the start of its next red (one queue's build-up and
    discharge), in vehicles. `halting` reads the queue to the last vehicle slower than 5 km/h
    (`queueing_length_experimental`, near HCM's "queued"), `standing` to the last standing one."""
    work.mkdir(parents=True, exist_ok=True)
    net = build_network(work)
    links, minor = link_indices(net), minor_links(net)
    routes, program, out = work / "all.rou.xml", work / "plan.add.xml", work / "queue.xml"
    write_routes(routes, poisson_vehicles(flows, seed))
    write_program(program, links, plan_phases(plan), minor)
    subprocess.run([sumo_tool("sumo"), "-n", str(net), "-r", str(routes), "-a", str(program), "--seed", str(seed),
                    "--queue-output", str(out), "--time-to-teleport", "-1", "--end", str(MEASURE_END + 300),
                    "--no-step-log", "true", "--no-warnings", "true", "--duration-log.disable", "true"],
                   check=True, capture_output=True)
    cycle, reds = red_starts(plan)
    longest: dict[tuple[str, str, int], float] = {}
    for _, element in ET.iterparse(out, events=("end",)):
        if element.tag != "data":
            continue
        t = float(element.get("timestep"))
        for lane in element.iter("lane"):
            arm = lane.get("id").split("_")[0]
            if not lane.get("id").startswith(f"{arm}_in") or arm not in reds:
                continue
            k = math.floor((t - reds[arm]) / cycle)
            if WARM_UP <= reds[arm] + k * cycle and reds[arm] + (k + 1) * cycle <= MEASURE_END:
                for reading, attribute in (("halting", "queueing_length_experimental"), ("standing", "queueing_length")):
                    key = (arm, reading, k)
                    longest[key] = max(longest.get(key, 0.0), float(lane.get(attribute)))
        element.clear()
    out.unlink()
    result: dict[str, dict[str, list[int]]] = {arm: {"halting": [], "standing": []} for arm in reds}
    for arm, red in reds.items():
        first = math.ceil((WARM_UP - red) / cycle)
        last = math.floor((MEASURE_END - red) / cycle) - 1
        for k in range(first, last + 1):
            for reading in ("halting", "standing"):
                metres = longest.get((arm, reading, k), 0.0)
                result[arm][reading].append(round((metres + QUEUE_GAP_M) / QUEUE_SPACING_M) if metres > 0 else 0)
    return result


def percentile(values: list[int], p: float) -> int:
    """The smallest value at least a share p of the values do not exceed."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p * len(ordered)) - 1)]


# --- A coordinated corridor: signals J1..Jn on an east-west arterial, side streets north-south ---

def build_corridor(work: Path, spacing: float, count: int) -> Path:
    """Signals J1..Jn `spacing` m apart; 400 m approach roads at both ends and on every side street."""
    nodes = ET.Element("nodes")
    edges = ET.Element("edges")
    connections = ET.Element("connections")
    xs = [i * spacing for i in range(count)]
    ET.SubElement(nodes, "node", id="W", x=str(-400), y="0", type="priority")
    ET.SubElement(nodes, "node", id="E", x=str(xs[-1] + 400), y="0", type="priority")
    main = ["W"] + [f"J{i + 1}" for i in range(count)] + ["E"]

    def edge(a: str, b: str) -> str:
        ET.SubElement(edges, "edge", id=f"{a}_{b}", attrib={"from": a, "to": b, "numLanes": "1", "speed": str(SPEED)})
        return f"{a}_{b}"

    for i, x in enumerate(xs):
        j = f"J{i + 1}"
        ET.SubElement(nodes, "node", id=j, x=str(x), y="0", type="traffic_light")
        ET.SubElement(nodes, "node", id=f"N{i + 1}", x=str(x), y="400", type="priority")
        ET.SubElement(nodes, "node", id=f"S{i + 1}", x=str(x), y="-400", type="priority")
    for a, b in zip(main[:-1], main[1:]):
        edge(a, b)
        edge(b, a)
    for i in range(count):
        j, n, s = f"J{i + 1}", f"N{i + 1}", f"S{i + 1}"
        for a, b in ((n, j), (j, n), (s, j), (j, s)):
            edge(a, b)
        west, east = main[i], main[i + 2]
        for f, t in ((f"{west}_{j}", f"{j}_{east}"), (f"{east}_{j}", f"{j}_{west}"), (f"{n}_{j}", f"{j}_{s}"), (f"{s}_{j}", f"{j}_{n}")):
            ET.SubElement(connections, "connection", attrib={"from": f, "to": t})
    for name, root in (("n.nod.xml", nodes), ("e.edg.xml", edges), ("c.con.xml", connections)):
        write_xml(root, work / name)
    net = work / "corridor.net.xml"
    subprocess.run([sumo_tool("netconvert"), "--node-files", str(work / "n.nod.xml"), "--edge-files", str(work / "e.edg.xml"),
                    "--connection-files", str(work / "c.con.xml"), "--no-turnarounds", "true", "-o", str(net)],
                   check=True, capture_output=True)
    return net


def corridor_input(name: str, count: int, spacing: float, flows: dict[str, float],
                   saturation: float = 1859.0, lost: float = 3.8) -> dict:
    """`citytwin signal corridor --input` for `build_corridor`'s network: one through lane per arm (W, E, N, S),
    two stages, 3 s amber and 2 s all-red, SUMO's own saturation flow and lost time as the reference measured
    them; `flows` as for `corridor_vehicles`."""
    def intersection(i: int) -> dict:
        arms = (("W", flows["eastbound"]), ("E", flows["westbound"]), ("N", flows["side"]), ("S", flows["side"]))
        return {"intersection": {"id": f"J{i + 1}", "amber_s": 3, "all_red_s": 2, "startup_lost_s": lost,
                                 "approaches": [{"id": arm, "lanes": 1, "saturation_veh_h_lane": saturation,
                                                 "flows_veh_h": {"through": q}} for arm, q in arms],
                                 "stages": [["W", "E"], ["N", "S"]]},
                "outbound_approach": "W", "inbound_approach": "E"}
    return {"id": name, "intersections": [intersection(i) for i in range(count)],
            "links": [{"length_m": spacing, "outbound_speed_m_s": SPEED} for _ in range(count - 1)]}


def plan_corridor(binary: str, corridor: dict, work: Path, *args: str) -> dict:
    """`citytwin signal corridor --input <corridor> --json <args>`."""
    path = work / "corridor.json"
    path.write_text(json.dumps(corridor))
    return json.loads(run_citytwin(binary, "signal", "corridor", "--input", str(path), "--json", *args))


def offsets_of(additional: Path) -> list[float]:
    """The tlLogic offsets of an additional file (tlsCoordinator.py's output), in signal order."""
    return [float(e.get("offset")) for e in ET.parse(additional).getroot().iter("tlLogic")]


def corridor_links(net: Path, count: int) -> dict[str, dict[str, list[int]]]:
    """Per signal, the link indices of the arms W, E, N, S (the arm traffic arrives from)."""
    result: dict[str, dict[str, list[int]]] = {}
    for c in ET.parse(net).getroot().iter("connection"):
        tl = c.get("tl")
        if not tl:
            continue
        i = int(tl[1:])
        origin = c.get("from").split("_")[0]
        arm = "W" if origin in ("W", f"J{i - 1}") else "E" if origin in ("E", f"J{i + 1}") else origin[0]
        result.setdefault(tl, {}).setdefault(arm, []).append(int(c.get("linkIndex")))
    return result


def write_corridor_program(path: Path, links: dict[str, dict[str, list[int]]], plans: list[dict]) -> None:
    """One static tlLogic per signal from CityTwin's intersection reports, with their offsets."""
    root = ET.Element("additional")
    for i, plan in enumerate(plans):
        tl = f"J{i + 1}"
        arms = links[tl]
        size = 1 + max(k for idx in arms.values() for k in idx)
        logic = ET.SubElement(root, "tlLogic", id=tl, type="static", programID="citytwin", offset=f"{plan['offset_s']:.2f}")
        for duration, signals in plan_phases(plan):
            state = ["r"] * size
            for arm, idx in arms.items():
                for k in idx:
                    state[k] = signals.get(arm, "r")
            ET.SubElement(logic, "phase", duration=f"{duration:g}", state="".join(state))
    write_xml(root, path)


def corridor_vehicles(count: int, flows: dict[str, float], seed: int) -> tuple[list[tuple[Vehicle, str]], dict[str, str]]:
    """Poisson vehicles: `flows` has 'eastbound', 'westbound' and 'side' (each direction of each side street)."""
    main = ["W"] + [f"J{i + 1}" for i in range(count)] + ["E"]
    routes = {"eastbound": " ".join(f"{a}_{b}" for a, b in zip(main[:-1], main[1:])),
              "westbound": " ".join(f"{b}_{a}" for a, b in reversed(list(zip(main[:-1], main[1:]))))}
    demand = {"eastbound": flows["eastbound"], "westbound": flows["westbound"]}
    for i in range(count):
        j = f"J{i + 1}"
        routes[f"south{i + 1}"] = f"N{i + 1}_{j} {j}_S{i + 1}"
        routes[f"north{i + 1}"] = f"S{i + 1}_{j} {j}_N{i + 1}"
        demand[f"south{i + 1}"] = demand[f"north{i + 1}"] = flows["side"]
    vehicles = [(v, v.arm) for v in poisson_vehicles(demand, seed)]
    return vehicles, routes


def write_corridor_routes(path: Path, vehicles: list[tuple[Vehicle, str]], routes: dict[str, str]) -> None:
    root = ET.Element("routes")
    for name, edges in routes.items():
        ET.SubElement(root, "route", id=name, edges=edges)
    for v, route in vehicles:
        ET.SubElement(root, "vehicle", id=v.id, route=route, depart=f"{v.depart:.2f}", departLane="best")
    write_xml(root, path)


@dataclass
class CorridorMeasure:
    """One direction's through traffic in SUMO: baseline-corrected delay (s/veh) and stops per vehicle over the
    corridor (tripinfo waitingCount: the times a vehicle halted, below 0.1 m/s; raw, as the reference reports them)."""
    delay_s: float
    stops_per_veh: float


def corridor_delay(net: Path, plans: list[dict], offsets_file: Path | None, flows: dict[str, float], seed: int,
                   work: Path, tag: str, direction: str = "eastbound") -> float:
    """Baseline-corrected SUMO delay (s/veh) of `direction` under `plans` (with `offsets_file` replacing their offsets)."""
    return corridor_measure(net, plans, offsets_file, flows, seed, work, tag, direction).delay_s


def corridor_measure(net: Path, plans: list[dict], offsets_file: Path | None, flows: dict[str, float], seed: int,
                     work: Path, tag: str, direction: str = "eastbound") -> CorridorMeasure:
    """`direction`'s delay and stops under `plans` (with `offsets_file` replacing their offsets)."""
    count = len(plans)
    links = corridor_links(net, count)
    vehicles, routes = corridor_vehicles(count, flows, seed)
    routes_file = work / f"{tag}.rou.xml"
    write_corridor_routes(routes_file, vehicles, routes)
    program = work / f"{tag}.add.xml"
    write_corridor_program(program, links, [dict(p, offset_s=0) for p in plans] if offsets_file else plans)
    additional = str(program) + ("," + str(offsets_file) if offsets_file else "")
    signalled_trips = trips(net, routes_file, Path(additional), seed, work, tag)
    signalled = {i: time_lost(t) for i, t in signalled_trips.items()}
    # Baseline: only this direction's vehicles, every signal green for them.
    base_routes = work / f"{tag}-base.rou.xml"
    write_corridor_routes(base_routes, [(v, r) for v, r in vehicles if r == direction], routes)
    green = work / f"{tag}-green.add.xml"
    root = ET.Element("additional")
    for tl, arms in links.items():
        size = 1 + max(k for idx in arms.values() for k in idx)
        logic = ET.SubElement(root, "tlLogic", id=tl, type="static", programID="green", offset="0")
        ET.SubElement(logic, "phase", duration="100000", state="G" * size)
    write_xml(root, green)
    baseline = run(net, base_routes, green, seed, work, tag + "-base")
    measured = [v.id for v, r in vehicles
                if r == direction and WARM_UP <= v.depart < MEASURE_END and v.id in signalled and v.id in baseline]
    return CorridorMeasure(delay_s=sum(signalled[i] - baseline[i] for i in measured) / len(measured),
                           stops_per_veh=sum(int(signalled_trips[i].get("waitingCount")) for i in measured) / len(measured))


def tls_coordinator_offsets(net: Path, plans: list[dict], flows: dict[str, float], seed: int, work: Path) -> Path:
    """SUMO's own tools/tlsCoordinator.py offsets for the same plans and routes."""
    count = len(plans)
    links = corridor_links(net, count)
    vehicles, routes = corridor_vehicles(count, flows, seed)
    routes_file = work / "coordinator.rou.xml"
    write_corridor_routes(routes_file, vehicles, routes)
    program = work / "coordinator-plan.add.xml"
    write_corridor_program(program, links, [dict(p, offset_s=0) for p in plans])
    out = work / "coordinator-offsets.add.xml"
    tool = sumo_home() / "tools" / "tlsCoordinator.py"
    subprocess.run([sys.executable, str(tool), "-n", str(net), "-r", str(routes_file), "-a", str(program), "-o", str(out)],
                   check=True, capture_output=True)
    # The offsets apply to the replacement plans: load them after the plans.
    return out

"""Search time and extra vehicle-km of a SUMO parking run, measured the way CityTwin's simulation measures
them (`citytwin parking simulate`: `mean_cruise_s`, `extra_vehicle_km`), so the two can be compared:

- a vehicle's search time is the free-flow time of the route it drove (vehroute output) to the parking area
  it finally used, minus that of the fastest route from its departure edge to that parking area (SUMO has
  no in-lot search, so CityTwin's driving part `mean_cruise_s` is the figure to compare; the time to park
  as simulated, junction and acceleration losses included, is reported beside it);
- its extra distance is the length of that driven route minus the fastest route's.

The routes are computed here on the SUMO network itself (plain Dijkstra over `network.net.xml`'s edges and
connections), not taken from CityTwin, and nothing imports the `sumo` package (see sumo_signals.py).
"""
from __future__ import annotations

import heapq
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import sumo_signals


@dataclass
class Network:
    length: dict[str, float]
    speed: dict[str, float]
    successors: dict[str, set[str]]

    @staticmethod
    def read(path: Path) -> "Network":
        length, speed, successors = {}, {}, {}
        root = ET.parse(path).getroot()
        for e in root.iter("edge"):
            if e.get("function") == "internal":
                continue
            lanes = e.findall("lane")
            length[e.get("id")] = float(lanes[0].get("length"))
            speed[e.get("id")] = max(float(lane.get("speed")) for lane in lanes)
            successors[e.get("id")] = set()
        for c in root.iter("connection"):
            if c.get("from") in successors and c.get("to") in length:
                successors[c.get("from")].add(c.get("to"))
        return Network(length, speed, successors)

    def fastest(self, origin: str) -> dict[str, tuple[float, float]]:
        """From the start of `origin`: free-flow seconds and metres to the start of every edge along the
        fastest route (SUMO routes by travel time)."""
        best = {origin: (0.0, 0.0)}
        heap = [(0.0, 0.0, origin)]
        while heap:
            t, m, e = heapq.heappop(heap)
            if t > best[e][0]:
                continue
            for n in self.successors[e]:
                nt, nm = t + self.length[e] / self.speed[e], m + self.length[e]
                if nt < best.get(n, (float("inf"), 0.0))[0]:
                    best[n] = (nt, nm)
                    heapq.heappush(heap, (nt, nm, n))
        return best

    def drive(self, edges: list[str], end: float) -> tuple[float, float]:
        """Free-flow seconds and metres along `edges` to `end` metres into the last one."""
        t = sum(self.length[e] / self.speed[e] for e in edges[:-1]) + end / self.speed[edges[-1]]
        return t, sum(self.length[e] for e in edges[:-1]) + end


@dataclass
class Run:
    drivers: int
    parked: int
    #: Departure to the start of the parking stop, as simulated (junctions, acceleration and queues included).
    mean_time_to_park_s: float
    #: Free-flow time of the route driven to the parking area finally used, beyond the fastest route there.
    mean_search_s: float
    #: Distance driven to it beyond the fastest route there, all parked vehicles.
    extra_vehicle_km: float
    vehicle_km: float
    #: Vehicles that parked somewhere other than their first choice.
    parked_elsewhere: int
    #: Highest share of all berths taken at once.
    peak_occupancy: float


def simulate(scenario: Path, name: str, seed: int = 7) -> None:
    """Runs `name`.sumocfg, writing `name`-trips.xml, -stops.xml and -routes.xml beside it."""
    subprocess.run([sumo_signals.sumo_tool("sumo"), "-c", str(scenario / f"{name}.sumocfg"),
                    "--tripinfo-output", str(scenario / f"{name}-trips.xml"), "--stop-output", str(scenario / f"{name}-stops.xml"),
                    "--vehroute-output", str(scenario / f"{name}-routes.xml"),
                    "--seed", str(seed), "--time-to-teleport", "300", "--no-step-log", "true", "--no-warnings", "true",
                    "--duration-log.disable", "true"], check=True, capture_output=True)


def measure(scenario: Path, name: str, network: Network | None = None) -> Run:
    network = network or Network.read(scenario / "network.net.xml")
    areas, capacity = {}, 0
    for a in ET.parse(scenario / f"{name}.add.xml").getroot().iter("parkingArea"):
        areas[a.get("id")] = (a.get("lane").rsplit("_", 1)[0], float(a.get("endPos")))
        capacity += int(a.get("roadsideCapacity"))
    planned = {}
    for t in ET.parse(scenario / "routes.rou.xml").getroot().iter("trip"):
        planned[t.get("id")] = (t.get("from"), t.find("stop").get("parkingArea"))
    trips = {t.get("id"): t for t in ET.parse(scenario / f"{name}-trips.xml").getroot().iter("tripinfo")}
    driven = {}
    for v in ET.parse(scenario / f"{name}-routes.xml").getroot().iter("vehicle"):
        driven[v.get("id")] = v.findall(".//route")[-1].get("edges").split()
    started: dict[str, tuple[float, str]] = {}
    events = []
    for s in ET.parse(scenario / f"{name}-stops.xml").getroot().iter("stopinfo"):
        if s.get("parkingArea") and s.get("id") not in started:
            started[s.get("id")] = (float(s.get("started")), s.get("parkingArea"))
            events += [(float(s.get("started")), 1), (float(s.get("ended")), -1)]
    occupied = peak = 0
    for _, change in sorted(events):
        occupied += change
        peak = max(peak, occupied)
    cache: dict[str, dict[str, tuple[float, float]]] = {}
    search, extra, to_park, elsewhere = 0.0, 0.0, 0.0, 0
    for v, (start, area) in started.items():
        if v not in trips or v not in driven:
            continue
        origin = planned[v][0]
        if origin not in cache:
            cache[origin] = network.fastest(origin)
        edge, end = areas[area]
        direct_s, direct_m = cache[origin][edge]
        direct_s, direct_m = direct_s + end / network.speed[edge], direct_m + end
        # The route driven up to the parking area's edge (its last visit: a loop may pass it first).
        edges = driven[v]
        last = len(edges) - 1 - edges[::-1].index(edge)
        seconds, metres = network.drive(edges[:last + 1], end)
        to_park += start - float(trips[v].get("depart"))
        search += max(0.0, seconds - direct_s)
        extra += max(0.0, metres - direct_m)
        elsewhere += area != planned[v][1]
    n = max(1, len(started))
    return Run(drivers=len(planned), parked=len(started), mean_time_to_park_s=to_park / n, mean_search_s=search / n,
               extra_vehicle_km=extra / 1000, vehicle_km=sum(float(t.get("routeLength")) for t in trips.values()) / 1000,
               parked_elsewhere=elsewhere, peak_occupancy=peak / max(1, capacity))

"""`citytwin parking export-sumo` (issue 17 §4): the guided-vs-unguided parking day replayed in SUMO 1.28
on the district's own roads with the same trips. SUMO's guided drivers see every lot's occupancy at each
rerouter (`parkingAreaReroute visible="true"`, as a sign or an app does); its unguided ones learn that a
lot is full only on reaching it. SUMO must agree with `citytwin parking simulate` on the direction of
both effects: guidance cuts the search time (departure to the start of the parking stop) and the
vehicle-km driven to the lot finally used. A light day (3,000 trips instead of the 14,000 that fill the
lots to 90 %: the busiest lots near the hotspots still fill) keeps each SUMO run to about 20 s."""
from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import sumo_signals

BIN = os.environ.get("CITYTWIN_CLIENT_BIN", "")
STORE = os.environ.get("CITYTWIN_CLIENT_STORE", "")
pytestmark = pytest.mark.skipif(not BIN or not STORE, reason="CITYTWIN_CLIENT_BIN/STORE not set (Scripts/client_tests.sh sets them)")


def citytwin(*args: str) -> str:
    return sumo_signals.run_citytwin(BIN, *args)


def run(scenario: Path, name: str) -> dict[str, float]:
    """Mean search time (s) and vehicle-km to the lot used of one SUMO run; vehicles that parked."""
    trips, stops = scenario / f"{name}-trips.xml", scenario / f"{name}-stops.xml"
    subprocess.run([sumo_signals.sumo_tool("sumo"), "-c", str(scenario / f"{name}.sumocfg"), "--tripinfo-output", str(trips),
                    "--stop-output", str(stops), "--seed", "7", "--time-to-teleport", "300", "--no-step-log", "true",
                    "--no-warnings", "true", "--duration-log.disable", "true"], check=True, capture_output=True)
    departs = {t.get("id"): float(t.get("depart")) for t in ET.parse(trips).getroot().iter("tripinfo")}
    km = sum(float(t.get("routeLength")) for t in ET.parse(trips).getroot().iter("tripinfo")) / 1000
    started = {}
    for s in ET.parse(stops).getroot().iter("stopinfo"):
        if s.get("parkingArea"):
            started.setdefault(s.get("id"), float(s.get("started")))
    searched = [started[v] - departs[v] for v in started if v in departs]
    return {"search_s": sum(searched) / len(searched), "vehicle_km": km, "parked": len(searched), "arrived": len(departs)}


def test_sumo_agrees_on_the_direction_of_guidance(tmp_path: Path) -> None:
    drivers = "3000"
    out = tmp_path / "parking"
    printed = citytwin("parking", "export-sumo", "--out", str(out), "--drivers", drivers, "--store", STORE)
    assert "parking areas" in printed
    for name in ("network.net.xml", "routes.rou.xml", "guided.add.xml", "unguided.add.xml", "guided.sumocfg", "unguided.sumocfg"):
        assert (out / name).exists(), name
    guided_add = (out / "guided.add.xml").read_text()
    assert 'visible="true"' in guided_add and 'visible="false"' not in guided_add
    assert '<parkingArea id="pa_PK-001"' in guided_add
    assert 'visible="false"' in (out / "unguided.add.xml").read_text()

    ours = json.loads(citytwin("parking", "simulate", "--drivers", drivers, "--json", "--store", STORE))
    unguided, guided = run(out, "unguided"), run(out, "guided")
    print(f"CityTwin: search {ours['unguided']['mean_search_s']:.1f} -> {ours['guided']['mean_search_s']:.1f} s, "
          f"extra {ours['unguided']['extra_vehicle_km']:.1f} -> {ours['guided']['extra_vehicle_km']:.1f} veh-km; "
          f"SUMO: time to park {unguided['search_s']:.1f} -> {guided['search_s']:.1f} s, "
          f"{unguided['vehicle_km']:.1f} -> {guided['vehicle_km']:.1f} veh-km ({unguided['parked']}/{guided['parked']} parked)")
    assert unguided["parked"] > 0.9 * int(drivers) and guided["parked"] > 0.9 * int(drivers)
    assert ours["change"]["search_time"] < 0 and ours["change"]["extra_vehicle_km"] < 0
    assert guided["search_s"] < unguided["search_s"], "SUMO: guidance shortens the search"
    assert guided["vehicle_km"] < unguided["vehicle_km"], "SUMO: guidance cuts the vehicle-km"

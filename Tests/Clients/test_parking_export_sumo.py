"""`citytwin parking export-sumo` (issue 17 §4): the guided-vs-unguided parking day replayed in SUMO 1.28
on the district's own roads with the same trips, at the occupancy the issue asks about (85-95 %).

Both simulators run the same small day: every lot's berths scaled by 0.1 (`--capacity-scale`) and the
default demand sized from them (1,421 trips, a tenth of the full day's), so the lots peak near 90 % as on
the full day while the two SUMO runs take about 20 s of CPU together. SUMO's unguided drivers head for the lot
nearest their destination and learn that it is full only on reaching it (`parkingAreaReroute
visible="false"`); its guided ones see every lot's occupancy at the origin and at each lot
(`visible="true"`, as a sign or an app).

The two measure the same thing (sumo_parking.py): the time driven beyond the fastest route to the lot
finally used (CityTwin's `mean_cruise_s`: SUMO has no in-lot search, the other part of CityTwin's
`mean_search_s`) and the distance driven beyond it. SUMO must agree on the direction of both effects and
roughly on their size (see Benchmarks/README.md, "parking", for the figures and why they differ)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import sumo_parking
import sumo_signals

BIN = os.environ.get("CITYTWIN_CLIENT_BIN", "")
STORE = os.environ.get("CITYTWIN_CLIENT_STORE", "")
pytestmark = pytest.mark.skipif(not BIN or not STORE, reason="CITYTWIN_CLIENT_BIN/STORE not set (Scripts/client_tests.sh sets them)")

SCALE = "0.1"


def citytwin(*args: str) -> str:
    return sumo_signals.run_citytwin(BIN, *args)


def change(before: float, after: float) -> float:
    return (after - before) / before


def test_sumo_agrees_on_the_direction_and_size_of_guidance(tmp_path: Path) -> None:
    out = tmp_path / "parking"
    printed = citytwin("parking", "export-sumo", "--out", str(out), "--capacity-scale", SCALE, "--store", STORE)
    assert "parking areas" in printed
    for name in ("network.net.xml", "routes.rou.xml", "guided.add.xml", "unguided.add.xml", "guided.sumocfg", "unguided.sumocfg"):
        assert (out / name).exists(), name
    guided_add = (out / "guided.add.xml").read_text()
    assert 'visible="true"' in guided_add and 'visible="false"' not in guided_add
    assert '<parkingArea id="pa_PK-001"' in guided_add
    assert 'visible="false"' in (out / "unguided.add.xml").read_text()

    ours = json.loads(citytwin("parking", "simulate", "--capacity-scale", SCALE, "--json", "--store", STORE))
    network = sumo_parking.Network.read(out / "network.net.xml")
    runs = {}
    for name in ("unguided", "guided"):
        sumo_parking.simulate(out, name)
        runs[name] = sumo_parking.measure(out, name, network)
    u, g = runs["unguided"], runs["guided"]
    ou, og = ours["unguided"], ours["guided"]
    assert u.drivers == ou["drivers"] == og["drivers"]
    print(f"{u.drivers} trips. CityTwin: peak occupancy {ou['peak_occupancy']:.2f}/{og['peak_occupancy']:.2f}, "
          f"search {ou['mean_search_s']:.1f} -> {og['mean_search_s']:.1f} s, of which driving {ou['mean_cruise_s']:.1f} -> {og['mean_cruise_s']:.1f} s "
          f"({change(ou['mean_cruise_s'], og['mean_cruise_s']):+.0%}), extra {ou['extra_vehicle_km']:.1f} -> {og['extra_vehicle_km']:.1f} veh-km "
          f"({change(ou['extra_vehicle_km'], og['extra_vehicle_km']):+.0%}); SUMO: peak occupancy {u.peak_occupancy:.2f}/{g.peak_occupancy:.2f}, "
          f"search {u.mean_search_s:.1f} -> {g.mean_search_s:.1f} s ({change(u.mean_search_s, g.mean_search_s):+.0%}), "
          f"extra {u.extra_vehicle_km:.1f} -> {g.extra_vehicle_km:.1f} veh-km ({change(u.extra_vehicle_km, g.extra_vehicle_km):+.0%}), "
          f"time to park {u.mean_time_to_park_s:.1f} -> {g.mean_time_to_park_s:.1f} s, parked elsewhere {u.parked_elsewhere}/{g.parked_elsewhere}, "
          f"parked {u.parked}/{g.parked}")
    # The regime the issue asks about: the lots together near full at the peak, in both simulators (CityTwin's
    # unguided drivers give up after 6 full lots, so theirs peak lower; SUMO's keep looking).
    for peak in (og["peak_occupancy"], u.peak_occupancy, g.peak_occupancy):
        assert 0.8 <= peak <= 1.0, peak
    assert u.parked > 0.9 * u.drivers and g.parked > 0.9 * g.drivers
    # Direction: guidance cuts both, in both.
    assert og["mean_search_s"] < ou["mean_search_s"] and og["extra_vehicle_km"] < ou["extra_vehicle_km"]
    assert g.mean_search_s < u.mean_search_s, "SUMO: guidance shortens the search"
    assert g.extra_vehicle_km < u.extra_vehicle_km, "SUMO: guidance cuts the extra vehicle-km"
    # Size: the relative cuts of the same measure within 25 percentage points of each other.
    assert abs(change(u.mean_search_s, g.mean_search_s) - change(ou["mean_cruise_s"], og["mean_cruise_s"])) <= 0.25
    assert abs(change(u.extra_vehicle_km, g.extra_vehicle_km) - change(ou["extra_vehicle_km"], og["extra_vehicle_km"])) <= 0.25

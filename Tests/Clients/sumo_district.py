"""The whole district in SUMO on its road graph: CityTwin's SUMO export of a scenario run under fixed plans,
CityTwin's re-timed plans or SUMO's actuated control, and the total delay of each (the client test on a
short peak, Benchmarks/signals/district_day.py on the day). The single-intersection and corridor checks are
in sumo_signals.py.
"""
from __future__ import annotations
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from sumo_signals import run_citytwin, sumo_tool, time_lost

@dataclass
class ScenarioRun:
    """One SUMO run of a CityTwin scenario: demand, what SUMO made of it, and total delay."""
    control: str
    loaded: int          # vehicles the flows generated (the demand)
    inserted: int        # vehicles that entered the network
    finished: int        # tripinfos written (every vehicle run to its end)
    teleports: int
    delay_s: float       # Σ (timeLoss + departDelay): delay on the road plus waiting to enter it

    @property
    def mean_delay_s(self) -> float:
        return self.delay_s / max(1, self.finished)

    def line(self) -> str:
        return (f"{self.control:>9}: total delay {self.delay_s / 3600:8.1f} veh-h ({self.mean_delay_s:5.1f} s/veh), "
                f"{self.inserted}/{self.loaded} vehicles inserted, {self.finished} finished, {self.teleports} teleports")


def simulate_scenario(scenario: Path, control: str, seed: int = 7) -> ScenarioRun:
    """Runs CityTwin's `scenario.sumocfg` until every vehicle has arrived, with SUMO's default
    teleporting of vehicles stuck 300 s (counted, so gridlock shows instead of stalling the run)."""
    trips, stats = scenario / f"trips-{control}-{seed}.xml", scenario / f"stats-{control}-{seed}.xml"
    subprocess.run([sumo_tool("sumo"), "-c", str(scenario / "scenario.sumocfg"), "--tripinfo-output", str(trips),
                    "--statistic-output", str(stats), "--seed", str(seed), "--end", "-1", "--no-step-log", "true",
                    "--no-warnings", "true", "--duration-log.disable", "true"], check=True, capture_output=True)
    delay, finished = 0.0, 0
    for t in ET.parse(trips).getroot().iter("tripinfo"):
        delay += time_lost(t)
        finished += 1
    root = ET.parse(stats).getroot()
    vehicles, teleports = root.find("vehicles"), root.find("teleports")
    return ScenarioRun(control, int(vehicles.get("loaded")), int(vehicles.get("inserted")), finished,
                       int(teleports.get("total")), delay)


def district_scenarios(binary: str, store: Path, work: Path, period: str) -> dict[str, Path]:
    """The whole district on its road graph (`citytwin signal export-sumo` without --intersection or
    --corridor) over `period`, with the same time-varying 15-minute demand, exported three ways:

    - fixed: the plans the controllers run today (the stored all-day plans);
    - adaptive: CityTwin's re-timing from the day's counts (`citytwin signal plan --all --write`: one
      Webster plan per time-of-day period, switched by SUMO WAUTs at the periods' starts);
    - actuated: SUMO's gap-based `actuated` control on the same stages, each green between its
      minimum (vehicle or pedestrian) and the re-timed green + 30 s.

    `store` is written to (the re-timed plans): pass a copy."""
    fixed, adaptive, actuated = work / "fixed", work / "adaptive", work / "actuated"
    run_citytwin(binary, "signal", "export-sumo", "--out", str(fixed), "--period", period, "--store", str(store))
    run_citytwin(binary, "signal", "plan", "--all", "--write", "--store", str(store))
    run_citytwin(binary, "signal", "export-sumo", "--out", str(adaptive), "--period", period, "--store", str(store))
    run_citytwin(binary, "signal", "export-sumo", "--out", str(actuated), "--period", period, "--control", "actuated",
                 "--store", str(store))
    return {"fixed": fixed, "adaptive": adaptive, "actuated": actuated}


def district_day(binary: str, store: Path, work: Path, period: str, seed: int = 7) -> dict[str, ScenarioRun]:
    """`district_scenarios` run in SUMO on one seed: the three ways' runs by name."""
    return {control: simulate_scenario(scenario, control, seed)
            for control, scenario in district_scenarios(binary, store, work, period).items()}

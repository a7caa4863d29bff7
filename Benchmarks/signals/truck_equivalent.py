"""How many cars one of SUMO 1.28's default trucks is worth at a signal's stop line: the through-car equivalent
E_T that HCM 2000's heavy-vehicle factor f_HV = 1/(1 + P_HV(E_T - 1)) takes as 2 for real trucks, measured for the
trucks CityTwin's SUMO export drives a lane group's `heavy_vehicles_pct` as.

    python3 Benchmarks/signals/truck_equivalent.py CITYTWIN [--seeds 1,2] [--green 40]

The reference crossroads (`Models/signals/reference-crossroads.json`: one lane an arm, SUMO's own 1,859 veh/h and
3.8 s lost per phase) is exported by `citytwin signal export-sumo --input` under its Webster plan; the N arm's flow is
then replaced by a saturating one (1,800 veh/h, more than its green serves), all cars or all trucks, and the same
programme replayed (seeds as given, 1,200 s warm-up, 3,000 s counted). What N discharges per hour of green and amber
is its saturation flow under that plan; cars over trucks is the trucks' car equivalent."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WARM_UP, END = 1200, 4200
SATURATING = 1800.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("citytwin")
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--green", type=float, default=40, help="N's displayed green (s): the export's plan is set to it")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        out = work / "scenario"
        sumo_signals.run_citytwin(args.citytwin, "signal", "export-sumo", "--input", str(ROOT / "Models" / "signals" / "reference-crossroads.json"),
                                  "--out", str(out), "--period", "00:00-01:10")
        program = (out / "programs.add.xml").read_text()
        # N's green is the first phase; the cycle is the phases' sum.
        program = re.sub(r'(<phase duration=")[0-9.]+(" state="G)', lambda m: f"{m.group(1)}{args.green:g}{m.group(2)}", program, count=1)
        (out / "programs.add.xml").write_text(program)
        phases = [(float(d), s) for d, s in re.findall(r'<phase duration="([0-9.]+)" state="([^"]+)"', program)]
        cycle = sum(d for d, _ in phases)
        # N's link is the first of the state string (the export orders links N, E, S, W); its green and amber.
        open_time = sum(d for d, s in phases if s[0] in "Gy")
        routes = (out / "routes.rou.xml").read_text()
        served = {}
        for kind in ("car", "truck"):
            text = re.sub(r'(<flow id="N_through_[^"]*" type=")car(" [^>]*period="exp\()[0-9.e-]+',
                          lambda m: f"{m.group(1)}{kind}{m.group(2)}{SATURATING / 3600:.6f}", routes)
            path = work / f"{kind}.rou.xml"
            path.write_text(text)
            rates = []
            for seed in seeds:
                trips = work / f"{kind}-{seed}.xml"
                subprocess.run([sumo_signals.sumo_tool("sumo"), "-n", str(out / "network.net.xml"), "-a", str(out / "programs.add.xml"),
                                "-r", str(path), "--tripinfo-output", str(trips), "--seed", str(seed), "--end", str(END),
                                "--no-step-log", "true", "--no-warnings", "true", "--duration-log.disable", "true"],
                               check=True, capture_output=True)
                n = sum(1 for t in ET.parse(trips).getroot().iter("tripinfo")
                        if t.get("id").startswith("N_") and WARM_UP <= float(t.get("arrival")) < END)
                rates.append(n * 3600 / (END - WARM_UP) * cycle / open_time)
                print(f"{kind:5s} seed {seed}: N discharges {rates[-1]:.0f} veh per hour of green and amber "
                      f"({open_time:g} of a {cycle:g} s cycle)")
            served[kind] = sum(rates) / len(rates)
        print(f"a truck is worth {served['car'] / served['truck']:.2f} cars (HCM 2000's E_T for real trucks: 2.0)")


if __name__ == "__main__":
    main()

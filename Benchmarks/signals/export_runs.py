"""SUMO runs on CityTwin's own export of one intersection (`citytwin signal export-sumo`), with a
programme and flows of the benchmark's choosing: what `left_turns.py` and `saturation.py` measure with."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402

VTYPE = '<vType id="car" accel="2.6" decel="4.5" sigma="0.5" length="5" minGap="2.5" maxSpeed="13.89"/>'


def connections(net: Path, tls: str) -> dict[tuple[str, str], list[ET.Element]]:
    """The signal's connections by (incoming edge, direction s/l/r)."""
    out: dict[tuple[str, str], list[ET.Element]] = {}
    for c in ET.parse(net).getroot().iter("connection"):
        if c.get("tl") == tls:
            out.setdefault((c.get("from"), c.get("dir")), []).append(c)
    return out


def link_indices(net: Path, tls: str) -> dict[tuple[str, str], list[int]]:
    """The signal's link indices by (incoming edge, direction s/l/r)."""
    return {key: [int(c.get("linkIndex")) for c in cs] for key, cs in connections(net, tls).items()}


def run(work: Path, net: Path, tls: str, tag: str, phases: list[tuple[int, str]], flows: list[str], end: int,
        seed: int = 7) -> list[ET.Element]:
    """SUMO on `net` with `phases` (duration, state) as the signal's static programme and `flows`
    (<flow> elements of the `car` type); the tripinfo of every vehicle that arrived by `end`."""
    program = work / f"{tag}.add.xml"
    program.write_text(f'<additional><tlLogic id="{tls}" type="static" programID="m" offset="0">'
                       + "".join(f'<phase duration="{d}" state="{s}"/>' for d, s in phases) + "</tlLogic></additional>")
    routes = work / f"{tag}.rou.xml"
    routes.write_text("<routes>" + VTYPE + "".join(flows) + "</routes>")
    trips = work / f"{tag}.trips.xml"
    subprocess.run([sumo_signals.sumo_tool("sumo"), "-n", str(net), "-r", str(routes), "-a", str(program), "--tripinfo-output", str(trips),
                    "--seed", str(seed), "--end", str(end), "--no-step-log", "true", "--no-warnings", "true",
                    "--duration-log.disable", "true"], check=True, capture_output=True)
    return list(ET.parse(trips).getroot().iter("tripinfo"))

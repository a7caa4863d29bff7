"""Hot-start files (SWMM 5.2's [FILES] SAVE/USE HOTSTART) written and read by SWMM 5.2.4
(swmm-toolkit 0.17.0), for SWMMHotStartTests; with a CityTwin binary, also the other direction.

The model: inflow (a ramp to 1.2 m³/s) enters junction J1, runs through conduits C1, C2 (via J2)
into storage unit ST1, which orifice OR1 drains to outfall O1 and weir W1 to outfall O2 (dynamic wave, CMS).
HS_SAVE runs the first hour and saves the state at its end; HS_USE starts from that state and
runs the next hour (the inflow goes on as a time series shifted to the new start).

Writes Tests/FloodSimTests/Fixtures/swmm/hotstart/: HS_SAVE.inp, HS_USE.inp, HS_SAVE.swmm.hsf
(what SWMM saved), and hotstart.json ({"use": SWMM's results of HS_USE started from its own
file: {"flooding_m3" (node flooding summary), "outflow_m3", "max_depth_m": {node: m}}, "saved": {"node_depth_m": {node: m},
"link_flow_m3s": {link: m³/s}} at the end of HS_SAVE from SWMM's binary output}).

With `--citytwin BINARY`, also runs HS_SAVE through CityTwin (saving its own hot-start file) and
HS_USE through SWMM from CityTwin's file, and prints SWMM's results beside those from its own file.

Run: .venv/bin/python Scripts/reference/make_swmm_hotstart_fixtures.py [--citytwin .build/debug/citytwin]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import run_quietly, summarize  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "hotstart")

MODEL = """[TITLE]
Hot start case {name} (make_swmm_hotstart_fixtures.py)

[OPTIONS]
FLOW_UNITS           CMS
FLOW_ROUTING         DYNWAVE
START_DATE           01/01/2020
START_TIME           {start}
REPORT_START_DATE    01/01/2020
REPORT_START_TIME    {start}
END_DATE             01/01/2020
END_TIME             {end}
REPORT_STEP          00:05:00
ROUTING_STEP         5
INERTIAL_DAMPING     PARTIAL
NORMAL_FLOW_LIMITED  BOTH

[FILES]
{files}

[JUNCTIONS]
J1   10.0  3.0  0  0  0
J2    9.5  3.0  0  0  0

[OUTFALLS]
O1    7.0  FREE  NO
O2    7.0  FREE  NO

[STORAGE]
ST1   9.0  3.0  0  FUNCTIONAL  0  0  200  0  0

[CONDUITS]
C1   J1   J2   300  0.013  0  0  0  0
C2   J2   ST1  300  0.013  0  0  0  0

[ORIFICES]
OR1  ST1  O1  BOTTOM  0  0.65  NO  0

[WEIRS]
W1   ST1  O2  TRANSVERSE  1.8  1.84  NO  0  0  YES

[XSECTIONS]
C1   CIRCULAR    0.9  0  0  0  1
C2   CIRCULAR    0.9  0  0  0  1
OR1  CIRCULAR    0.4  0  0  0
W1   RECT_OPEN   0.6  1.5  0  0

[INFLOWS]
J1   FLOW  Q1  FLOW  1  1

[TIMESERIES]
Q1   01/01/2020  00:00  0
Q1   01/01/2020  00:40  1.2
Q1   01/01/2020  01:20  1.2
Q1   01/01/2020  02:00  0.2

[REPORT]
NODES ALL
LINKS ALL
"""


def write_models(hsf_for_use):
    save = MODEL.format(name="HS_SAVE", start="00:00:00", end="01:00:00", files='SAVE HOTSTART "HS_SAVE.hsf"')
    use = MODEL.format(name="HS_USE", start="01:00:00", end="02:00:00", files=f'USE HOTSTART "{hsf_for_use}"')
    return save, use


def swmm_in(work, text, name):
    path = os.path.join(work, name + ".inp")
    with open(path, "w") as f:
        f.write(text)
    here = os.getcwd()
    os.chdir(work)  # SWMM resolves the hot-start file names against the working folder
    try:
        rpt, out, err = run_quietly(path)
    finally:
        os.chdir(here)
    if err is not None:
        raise SystemExit(f"SWMM failed on {name}: {err}: " + open(rpt).read()[-800:])
    return summarize(rpt), out


def use_summary(summary):
    # Flooding from the Node Flooding Summary (1 m³ resolution; the continuity table's is 10 m³).
    flooded = sum(v.get("flood_volume_m3", 0.0) for v in summary["nodes"].values())
    return {"flooding_m3": flooded, "outflow_m3": summary["routing_continuity"]["outflow_m3"],
            "max_depth_m": {k: v["max_depth_m"] for k, v in summary["nodes"].items()}}


def final_state(out):
    from swmm.toolkit import output, shared_enum
    handle = output.init()
    output.open(handle, out)
    n = output.get_times(handle, shared_enum.Time.NUM_PERIODS)
    nodes = {output.get_elem_name(handle, shared_enum.ElementType.NODE, i):
             output.get_node_series(handle, i, shared_enum.NodeAttribute.INVERT_DEPTH, n - 1, n - 1)[-1] for i in range(5)}
    links = {output.get_elem_name(handle, shared_enum.ElementType.LINK, j):
             output.get_link_series(handle, j, shared_enum.LinkAttribute.FLOW_RATE, n - 1, n - 1)[-1] for j in range(4)}
    output.close(handle)
    return {"node_depth_m": nodes, "link_flow_m3s": links}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--citytwin", help="a citytwin binary: also check SWMM reading CityTwin's hot-start file")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    save_text, use_text = write_models("HS_SAVE.swmm.hsf")
    for name, text in [("HS_SAVE", save_text), ("HS_USE", use_text)]:
        with open(os.path.join(OUT, name + ".inp"), "w") as f:
            f.write(text)
    work = tempfile.mkdtemp()
    _, out = swmm_in(work, save_text, "HS_SAVE")
    saved = final_state(out)
    shutil.copy(os.path.join(work, "HS_SAVE.hsf"), os.path.join(work, "HS_SAVE.swmm.hsf"))
    shutil.copy(os.path.join(work, "HS_SAVE.hsf"), os.path.join(OUT, "HS_SAVE.swmm.hsf"))
    from_swmm, _ = swmm_in(work, use_text, "HS_USE")
    table = {"use": use_summary(from_swmm), "saved": saved}
    with open(os.path.join(OUT, "hotstart.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    print("SWMM from its own file:     ", json.dumps(table["use"], sort_keys=True))
    if args.citytwin:
        ct = tempfile.mkdtemp()
        with open(os.path.join(ct, "HS_SAVE.inp"), "w") as f:
            f.write(save_text)
        p = subprocess.run([os.path.abspath(args.citytwin), "simulate", "drainage", "HS_SAVE.inp", "--json"], cwd=ct,
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit("citytwin failed: " + p.stderr[-800:])
        shutil.copy(os.path.join(ct, "HS_SAVE.hsf"), os.path.join(work, "HS_SAVE.citytwin.hsf"))
        _, use_ct = write_models("HS_SAVE.citytwin.hsf")
        from_citytwin, _ = swmm_in(work, use_ct, "HS_USE_CT")
        print("SWMM from CityTwin's file:  ", json.dumps(use_summary(from_citytwin), sort_keys=True))
        shutil.rmtree(ct)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()

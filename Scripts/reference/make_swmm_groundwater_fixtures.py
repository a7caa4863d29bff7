"""Small models with groundwater (SWMM 5.2's [AQUIFERS] and [GROUNDWATER]) run through SWMM 5.2.4
(swmm-toolkit 0.17.0) for the groundwater parity test (SWMMGroundwaterParityTests).

Each model: one subcatchment on rain gage RG1 (a six-hour storm, then dry days) draining to
outfall O1; its aquifer drains laterally to junction J1, which conduit C1 carries to O1
(kinematic wave). The cases vary what the two-zone model does: evaporation from the upper and
lower zones, a power flow law above a threshold, a fixed surface-water depth with the A3 term,
an aquifer that fills to the surface (infiltration limited by the upper zone), Green-Ampt
infiltration, US units with per-subcatchment overrides, LID units over the aquifer (an
infiltration trench over a nearly full aquifer; a rain garden and rain barrels, of which only
the garden seeps), and EPA's Example5.

Writes Tests/FloodSimTests/Fixtures/swmm/groundwater/<CASE>.inp and groundwater.json
({case: {"continuity_mm": {SWMM's Groundwater Continuity table as depths over the aquifer area,
mm: initial_storage, infiltration, upper_et, lower_et, deep_percolation, groundwater_flow,
final_storage}, "final_upper_moisture", "final_water_table_m" (SWMM's binary output at the
last report time), "groundwater_inflow_m3" (Flow Routing Continuity), "outflow_m3",
"flooding_m3", and for the LID cases "lid": SWMM's LID Performance Summary rows, mm}}).

Run: .venv/bin/python Scripts/reference/make_swmm_groundwater_fixtures.py
"""
import json
import os
import shutil
import sys

from swmm.toolkit import output, shared_enum

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import continuity, run_quietly  # noqa: E402
from make_swmm_lid_fixtures import report as lid_report  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "groundwater")
EXAMPLE5 = os.path.join(HERE, "..", "..", "..", "shared", "data", "swmm", "Example5.inp")
if not os.path.exists(EXAMPLE5):
    EXAMPLE5 = "/work/shared/data/swmm/Example5.inp"

TEMPLATE = """[TITLE]
Groundwater case {name} (make_swmm_groundwater_fixtures.py)

[OPTIONS]
FLOW_UNITS           {units}
INFILTRATION         {infil_method}
FLOW_ROUTING         KINWAVE
START_DATE           06/01/2021
START_TIME           00:00:00
REPORT_START_DATE    06/01/2021
REPORT_START_TIME    00:00:00
END_DATE             06/{end_day:02d}/2021
END_TIME             00:00:00
REPORT_STEP          01:00:00
WET_STEP             00:05:00
DRY_STEP             00:15:00
ROUTING_STEP         0:00:30

[EVAPORATION]
{evaporation}
DRY_ONLY         {dry_only}

[RAINGAGES]
RG1  INTENSITY  1:00  1.0  TIMESERIES  Storm

[SUBCATCHMENTS]
S1  RG1  O1  {area}  {imperv}  {width}  1.0  0

[SUBAREAS]
S1  0.015  0.15  {dimp}  {dperv}  25  OUTLET

[INFILTRATION]
S1  {infil}

[AQUIFERS]
A1  {aquifer}

[GROUNDWATER]
S1  A1  J1  {groundwater}
{lids}
[JUNCTIONS]
J1  {j1_invert}  2.0  0  0  0

[OUTFALLS]
O1  0  FREE  NO

[CONDUITS]
C1  J1  O1  200  0.013  0  0  0  0

[XSECTIONS]
C1  CIRCULAR  0.6  0  0  0  1

[TIMESERIES]
{storm}

[REPORT]
SUBCATCHMENTS ALL
NODES ALL
LINKS ALL
"""


def storm(peak, unit_scale=1.0):
    shape = [0.2, 0.5, 1.0, 0.7, 0.4, 0.2]
    rows = [f"Storm  06/01/2021  {h:02d}:00  {peak * f * unit_scale:.3f}" for h, f in enumerate(shape)]
    rows.append("Storm  06/01/2021  06:00  0")
    return "\n".join(rows)


SI = dict(units="CMS", infil_method="HORTON", end_day=8, evaporation="CONSTANT  3.0", dry_only="NO",
          area=2.0, imperv=0, width=100, dimp=2, dperv=5, infil="60  6  4  7  0",
          aquifer="0.5  0.15  0.30  2.5  12  15  0.35  4.0  0.05  0  3.0  0.35",
          groundwater="5.0  0.02  1  0  0  0  0  *", j1_invert=2.5, storm=storm(25), lids="")

# LID units over the aquifer: their seepage into native soil is capped by the upper zone's room
# and feeds it; evaporation from units that seep counts as surface evaporation; their pervious
# area counts in the aquifer's pervious share (SWMM's lid.c, subcatch_getFracPerv).
TRENCH = """
[LID_CONTROLS]
IT1  IT
IT1  SURFACE  20  0  0  0  5
IT1  STORAGE  900  0.6  200  0
IT1  DRAIN  5  0.5  600  6

[LID_USAGE]
S1  IT1  4  100  0  0  60  0
"""
GARDEN_BARREL = """
[LID_CONTROLS]
RG1  RG
RG1  SURFACE  200  0.0  0  0  0
RG1  SOIL  300  0.45  0.2  0.08  20  8  80
RG1  STORAGE  0  0.75  8  0
RB1  RB
RB1  STORAGE  1200  0.75  0  0
RB1  DRAIN  10  0.5  0  6

[LID_USAGE]
S1  RG1  3  200  0  0  30  0
S1  RB1  20  2  0  0  10  0
"""

CASES = {
    "BASE": {},
    "EVAPORATION": dict(evaporation="CONSTANT  6.0", end_day=15, storm=storm(8),
                        aquifer="0.45  0.12  0.25  1.5  10  8  0.5  1.5  0.02  0  4.2  0.30",
                        groundwater="5.0  0.01  1  0  0  0  0  *"),
    "POWER_LAW": dict(imperv=30, dry_only="YES", storm=storm(40),
                      groundwater="5.0  0.004  2.0  0  0  0  0  2.0"),
    "FIXED_DEPTH": dict(infil_method="GREEN_AMPT", infil="100  15  0.3",
                        groundwater="5.0  0.02  1  0  0  0.0005  0.3  *"),
    "FULL_AQUIFER": dict(storm=storm(60), aquifer="0.4  0.10  0.20  1.0  10  10  0.35  1.0  0.0  0  4.6  0.38",
                         groundwater="5.0  0.005  1.5  0  0  0  0  *"),
    "LID_TRENCH": dict(imperv=40, storm=storm(60), lids=TRENCH,
                       aquifer="0.4  0.10  0.20  0.2  10  10  0.35  0.2  0.0  0  4.6  0.395",
                       groundwater="5.0  0.005  1.5  0  0  0  0  *"),
    "LID_GARDEN_BARREL": dict(imperv=30, evaporation="CONSTANT  6.0", end_day=10, lids=GARDEN_BARREL),
    "US_OVERRIDES": dict(units="CFS", area=5, width=140, dimp=0.05, dperv=0.1, infil="1.2  0.1  2  7  0",
                         evaporation="MONTHLY  0.1 0.1 0.1 0.1 0.15 0.2 0.2 0.15 0.1 0.1 0.1 0.1",
                         aquifer="0.5  0.15  0.30  0.1  12  15.0  0.35  14.0  0.002  0.0  3.5  0.40",
                         groundwater="6  0.1  1  0  0  0  0  4.5  -1.0  4.0  0.36", j1_invert=4.0, storm=storm(1.0)),
}


def depth_column(values, key):
    return values.get(key, (0.0, 0.0))[1] or 0.0


def reference(inp):
    rpt, out, err = run_quietly(inp)
    if err is not None:
        raise SystemExit(f"SWMM failed on {inp}: {err}")
    lines = open(rpt).read().splitlines()
    units = next((l.split()[-1] for l in lines if "Flow Units" in l), "CFS")
    us = units in ("CFS", "GPM", "MGD")
    to_mm = 25.4 if us else 1.0
    vol = 1233.48183754752 if us else 10000.0
    gc = continuity(lines, "Groundwater Continuity")
    fc = continuity(lines, "Flow Routing Continuity")
    keys = {"initial_storage": "Initial Storage", "infiltration": "Infiltration", "upper_et": "Upper Zone ET",
            "lower_et": "Lower Zone ET", "deep_percolation": "Deep Percolation", "groundwater_flow": "Groundwater Flow",
            "final_storage": "Final Storage"}
    lids = lid_report(rpt, 25.4 if us else 1.0)[0] if "[LID_USAGE]" in open(inp).read() else None
    handle = output.init()
    output.open(handle, out)
    periods = output.get_times(handle, shared_enum.Time.NUM_PERIODS)
    theta = output.get_subcatch_series(handle, 0, shared_enum.SubcatchAttribute.SOIL_MOISTURE, 0, periods - 1)[-1]
    table = output.get_subcatch_series(handle, 0, shared_enum.SubcatchAttribute.GW_TABLE_ELEV, 0, periods - 1)[-1]
    output.close(handle)
    shutil.rmtree(os.path.dirname(rpt), ignore_errors=True)
    result = {
        "continuity_mm": {k: depth_column(gc, v) * to_mm for k, v in keys.items()},
        "final_upper_moisture": float(theta),
        "final_water_table_m": float(table) * (0.3048 if us else 1.0),
        "groundwater_inflow_m3": fc.get("Groundwater Inflow", (0, 0))[0] * vol,
        "outflow_m3": fc.get("External Outflow", (0, 0))[0] * vol,
        "flooding_m3": fc.get("Flooding Loss", (0, 0))[0] * vol,
    }
    if lids is not None:
        result["lid"] = lids  # SWMM's LID Performance Summary (mm over each usage's area)
    return result


def main():
    os.makedirs(OUT, exist_ok=True)
    table = {}
    for name, changes in CASES.items():
        params = dict(SI, name=name)
        params.update(changes)
        path = os.path.join(OUT, name + ".inp")
        with open(path, "w") as f:
            f.write(TEMPLATE.format(**params))
        table[name] = reference(path)
    shutil.copy(EXAMPLE5, os.path.join(OUT, "Example5.inp"))
    table["Example5"] = reference(os.path.join(OUT, "Example5.inp"))
    with open(os.path.join(OUT, "groundwater.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    for name, r in table.items():
        c = r["continuity_mm"]
        print(f"{name:14s} infil {c['infiltration']:8.3f} uET {c['upper_et']:7.3f} lET {c['lower_et']:7.3f} "
              f"deep {c['deep_percolation']:7.3f} gw {c['groundwater_flow']:8.3f} theta {r['final_upper_moisture']:.4f} "
              f"wt {r['final_water_table_m']:.4f} m")


if __name__ == "__main__":
    main()

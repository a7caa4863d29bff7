"""Surcharged networks under SWMM 5.2's Preissmann slot (SURCHARGE_METHOD SLOT), run through SWMM
5.2.4 (swmm-toolkit 0.17.0) for SWMMSlotParityTests (issue 53 §1, §3).

With the slot, a closed conduit whose depth passes 98.5257 % of its full depth carries a narrow
slot above its crown (Sjoberg's width 0.5423 wMax exp(-(y/yFull)^2.4), 1 % of wMax above 1.78 full
depths): its flow area grows by the slot's width times the depth above the crown and it lends the
slot's width to its end nodes' surface area; nodes are never head-iterated the EXTRAN way.

Cases (CMS, metres):
  CIRC_STORM     three 0.6 m circular sewers under deep manholes, a 1-hour storm on three
                 subcatchments surcharges them without flooding (fixed 5 s step);
  CIRC_STORM_VS  the same with a variable step (VARIABLE_STEP 0.75, ROUTING_STEP 10);
  RECT_BOX       closed rectangular box culverts 1.0 x 0.8 m surcharged by inflow hydrographs;
  CIRC_FLOOD     the storm network with 1 m manholes: nodes flood (no ponding);
  CIRC_PONDED    the flooding network with ALLOW_PONDING YES and 200 m2 ponded areas;
  OPEN_MIXED     a closed circular sewer discharging into a trapezoidal open channel that
                 overtops its full depth, under a closed culvert (slot + open sections);
  Example2_SLOT, extran1_SLOT
                 the EPA examples (Tests/FloodSimTests/Fixtures/swmm) with SURCHARGE_METHOD SLOT.

Writes Tests/FloodSimTests/Fixtures/swmm/slot/<CASE>.inp and slot.json ({case: {"flooding_m3",
"routing_error_pct", "not_converging_pct", "average_iterations", "inflow_m3", "outflow_m3",
"max_depth_m": {node: SWMM's maximum depth at full precision}, "extran": the same figures with
SURCHARGE_METHOD EXTRAN (for the README's comparison)}}).

Run: .venv/bin/python Scripts/reference/make_swmm_slot_fixtures.py
"""
import json
import os
import re
import sys

from swmm.toolkit import shared_enum, solver

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import FIXTURES, run_quietly, stepped_run  # noqa: E402

OUT = os.path.join(FIXTURES, "slot")
FT = 0.3048

STORM = """[TITLE]
Preissmann slot parity: {case}

[OPTIONS]
FLOW_UNITS CMS
INFILTRATION HORTON
FLOW_ROUTING DYNWAVE
SURCHARGE_METHOD {method}
ALLOW_PONDING {ponding}
START_DATE 01/01/2020
START_TIME 00:00:00
END_DATE 01/01/2020
END_TIME 04:00:00
REPORT_STEP 00:01:00
WET_STEP 00:01:00
DRY_STEP 00:05:00
ROUTING_STEP {step}
VARIABLE_STEP {vstep}
MINIMUM_STEP 0.5

[RAINGAGES]
RG1 INTENSITY 0:05 1.0 TIMESERIES STORM

[SUBCATCHMENTS]
S1 RG1 J1 4 65 250 1 0
S2 RG1 J2 3.5 65 220 1 0
S3 RG1 J3 3.5 65 220 1 0

[SUBAREAS]
S1 0.013 0.1 1.5 5 25 OUTLET
S2 0.013 0.1 1.5 5 25 OUTLET
S3 0.013 0.1 1.5 5 25 OUTLET

[INFILTRATION]
S1 50 5 4 7 0
S2 50 5 4 7 0
S3 50 5 4 7 0

[JUNCTIONS]
J1 10.0 {depth} 0 0 {ponded}
J2 9.8 {depth} 0 0 {ponded}
J3 9.6 {depth} 0 0 {ponded}

[OUTFALLS]
O1 9.3 FREE NO

[CONDUITS]
C1 J1 J2 100 0.013 0 0 0 0
C2 J2 J3 100 0.013 0 0 0 0
C3 J3 O1 120 0.013 0 0 0 0

[XSECTIONS]
C1 CIRCULAR 0.6 0 0 0 1
C2 CIRCULAR 0.6 0 0 0 1
C3 CIRCULAR 0.75 0 0 0 1

[TIMESERIES]
STORM 0:00 0
STORM 0:10 10
STORM 0:20 40
STORM 0:30 80
STORM 0:40 55
STORM 0:50 25
STORM 1:00 10
STORM 1:10 0

[REPORT]
NODES ALL
LINKS ALL
"""

BOX = """[TITLE]
Preissmann slot parity: closed rectangular box culverts surcharged by inflow hydrographs

[OPTIONS]
FLOW_UNITS CMS
FLOW_ROUTING DYNWAVE
SURCHARGE_METHOD {method}
START_DATE 01/01/2020
START_TIME 00:00:00
END_DATE 01/01/2020
END_TIME 03:00:00
REPORT_STEP 00:01:00
WET_STEP 00:01:00
DRY_STEP 00:01:00
ROUTING_STEP 5
VARIABLE_STEP 0

[JUNCTIONS]
A 20.0 4 0 0 0
B 19.8 4 0 0 0
C 19.6 4 0 0 0
D 19.4 4 0 0 0

[OUTFALLS]
O 19.0 FIXED 19.9 NO

[CONDUITS]
K1 A B 150 0.014 0 0 0 0
K2 B C 150 0.014 0 0 0 0
K3 C D 150 0.014 0 0 0 0
K4 D O 80 0.014 0 0 0 0

[XSECTIONS]
K1 RECT_CLOSED 0.8 1.0 0 0 1
K2 RECT_CLOSED 0.8 1.0 0 0 1
K3 RECT_CLOSED 0.8 1.0 0 0 1
K4 RECT_CLOSED 0.8 1.2 0 0 1

[INFLOWS]
A FLOW HA FLOW 1 1 0
C FLOW HC FLOW 1 1 0

[TIMESERIES]
HA 0 0
HA 0.5 1.3
HA 1.0 1.3
HA 1.5 0
HA 3 0
HC 0 0
HC 0.4 0.7
HC 1.2 0.7
HC 1.6 0
HC 3 0

[REPORT]
NODES ALL
LINKS ALL
"""

OPEN = """[TITLE]
Preissmann slot parity: a closed sewer into a trapezoidal channel that overtops, under a culvert

[OPTIONS]
FLOW_UNITS CMS
FLOW_ROUTING DYNWAVE
SURCHARGE_METHOD {method}
START_DATE 01/01/2020
START_TIME 00:00:00
END_DATE 01/01/2020
END_TIME 03:00:00
REPORT_STEP 00:01:00
WET_STEP 00:01:00
DRY_STEP 00:01:00
ROUTING_STEP 5
VARIABLE_STEP 0

[JUNCTIONS]
P1 30.0 4 0 0 0
P2 29.7 4 0 0 0
CH1 29.4 3 0 0 0
CH2 29.2 3 0 0 0

[OUTFALLS]
OUT 28.8 FREE NO

[CONDUITS]
S1 P1 P2 120 0.013 0 0 0 0
S2 P2 CH1 100 0.013 0 0 0 0
T1 CH1 CH2 200 0.03 0 0 0 0
V1 CH2 OUT 30 0.015 0 0 0 0

[XSECTIONS]
S1 CIRCULAR 0.9 0 0 0 1
S2 CIRCULAR 0.9 0 0 0 1
T1 TRAPEZOIDAL 0.6 1.0 1.5 1.5 1
V1 CIRCULAR 0.7 0 0 0 1

[INFLOWS]
P1 FLOW HP FLOW 1 1 0

[TIMESERIES]
HP 0 0
HP 0.5 1.5
HP 1.2 1.5
HP 1.7 0
HP 3 0

[REPORT]
NODES ALL
LINKS ALL
"""


def storm(case, method):
    vstep = "0.75" if case.endswith("_VS") else "0"
    step = "10" if case.endswith("_VS") else "5"
    flood = case in ("CIRC_FLOOD", "CIRC_PONDED")
    ponding = "YES" if case == "CIRC_PONDED" else "NO"
    return STORM.format(case=case, method=method, ponding=ponding, step=step, vstep=vstep,
                        depth="1.0" if flood else "4", ponded="200" if case == "CIRC_PONDED" else "0")


def example(name, method):
    text = open(os.path.join(FIXTURES, name + ".inp")).read()
    text = re.sub(r"(\[OPTIONS\][^\n]*\n)", r"\1SURCHARGE_METHOD     " + method + "\n", text, count=1)
    return text


CASES = {
    "CIRC_STORM": lambda m: storm("CIRC_STORM", m),
    "CIRC_STORM_VS": lambda m: storm("CIRC_STORM_VS", m),
    "RECT_BOX": lambda m: BOX.format(method=m),
    "CIRC_FLOOD": lambda m: storm("CIRC_FLOOD", m),
    "CIRC_PONDED": lambda m: storm("CIRC_PONDED", m),
    "OPEN_MIXED": lambda m: OPEN.format(method=m),
    "Example2_SLOT": lambda m: example("Example2", m),
    "extran1_SLOT": lambda m: example("extran1", m),
}


def stepped(path, length):
    """Steps SWMM through `path` (scratch directory, progress lines off our stdout): each node's
    maximum depth at full precision (m) and the routing totals at the end (volumes in m3; the
    .rpt prints flooding to 0.001 ha-m, 10 m3, too coarse for these networks)."""
    with stepped_run(path):
        kind = shared_enum.ObjectType.NODE
        count = solver.project_get_count(kind)
        deepest = [0.0] * count
        while solver.swmm_step() > 0:
            for i in range(count):
                deepest[i] = max(deepest[i], solver.node_get_result(i, shared_enum.NodeResult.DEPTH))
        t = solver.system_get_routing_totals()
        v = length ** 3
        totals = {"flooding_m3": t.flooding * v,
                  "inflow_m3": (t.dwInflow + t.wwInflow + t.gwInflow + t.iiInflow + t.exInflow) * v,
                  "outflow_m3": t.outflow * v}
        depths = {solver.project_get_id(kind, i): deepest[i] * length for i in range(count)}
        return depths, totals


def figures(path):
    rpt, _, error = run_quietly(path)
    if error:
        raise error
    lines = open(rpt).read().splitlines()
    units = next((l.split()[-1] for l in lines if "Flow Units" in l), "CFS")
    us = units in ("CFS", "GPM", "MGD")

    def stat(label):
        for l in lines:
            if l.strip().startswith(label):
                return float(l.split(":")[-1].strip().split()[0])
        return 0.0

    def report_error():
        seen = False
        for l in lines:
            seen = seen or "Flow Routing Continuity" in l
            if seen and l.strip().startswith("Continuity Error (%)"):
                return float(l.split()[-1])
        return 0.0

    depths, totals = stepped(path, FT if us else 1.0)
    totals["routing_error_pct"] = report_error()
    return dict(totals, not_converging_pct=stat("% of Steps Not Converging"),
                average_iterations=stat("Average Iterations per Step"), max_depth_m=depths)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    scratch = os.path.join(OUT, "extran.tmp.inp")
    result = {}
    for case, text in CASES.items():
        path = os.path.join(OUT, case + ".inp")
        open(path, "w").write(text("SLOT"))
        result[case] = r = figures(path)
        open(scratch, "w").write(text("EXTRAN"))
        e = figures(scratch)
        r["extran"] = {k: e[k] for k in ("flooding_m3", "routing_error_pct", "not_converging_pct")}
        print(f"{case:15} SLOT flooded {r['flooding_m3']:9.1f} m3, error {r['routing_error_pct']:6.2f} %, "
              f"not converging {r['not_converging_pct']:5.2f} %, max depth {max(r['max_depth_m'].values()):.3f} m | "
              f"EXTRAN flooded {e['flooding_m3']:9.1f} m3, not converging {e['not_converging_pct']:5.2f} %")
    os.remove(scratch)
    with open(os.path.join(OUT, "slot.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)

"""One-pump models, one per SWMM 5.2 pump type (TYPE1..TYPE4, IDEAL, and TYPE2 with startup and
shutoff depths), run through SWMM 5.2.4 (swmm-toolkit 0.17.0) for the pump parity test
(SWMMPumpParityTests).

A 50 m² wet well (storage unit, invert 10 m, 5 m deep) receives a triangular inflow (0 → 0.25 m³/s
over an hour, back to 0 over the next) and one pump lifts it to a free outfall at 14 m. Every
curve has several points, so a lookup that picks the neighbouring point (the stepwise TYPE1/TYPE2
curves) changes the pumped flow and the wet well's depth. Fixed 5 s routing steps, reported every
5 s, so the maxima read from SWMM's binary output are those of every routing step.

Writes Tests/FloodSimTests/Fixtures/swmm/pumps/<CASE>.inp and pumps.json
({case: {"max_depth_m": the wet well's largest depth, "max_flow_m3s": the pump's largest flow,
"pumped_m3": the volume the outfall received, "flooding_m3": SWMM's flooding loss}}).

Run: .venv/bin/python Scripts/reference/make_swmm_pump_fixtures.py
"""
import json
import os
import sys

from swmm.toolkit import output, shared_enum

HERE = os.path.dirname(os.path.abspath(__file__))

sys.path.insert(0, HERE)
from make_swmm_fixtures import run_quietly  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "pumps")

# Case: (curve type or None for IDEAL, curve points, startup depth, shutoff depth).
CASES = {
    # x: wet-well volume, m³ (50 m² → 25 m³ per half metre).
    "TYPE1": ("PUMP1", [(20, 0.02), (60, 0.07), (110, 0.13), (160, 0.2)], 0, 0),
    # x: wet-well depth, m.
    "TYPE2": ("PUMP2", [(0.5, 0.02), (1.0, 0.06), (2.0, 0.12), (3.0, 0.2)], 0, 0),
    "TYPE2_ONOFF": ("PUMP2", [(0.5, 0.02), (1.0, 0.06), (2.0, 0.12), (3.0, 0.2)], 1.2, 0.4),
    # x: head the pump lifts against, m (outfall at 14 m, wet well invert 10 m).
    "TYPE3": ("PUMP3", [(0, 0.3), (2, 0.2), (3, 0.12), (4, 0.05), (6, 0.0)], 0, 0),
    # x: wet-well depth, m, interpolated.
    "TYPE4": ("PUMP4", [(0, 0.0), (1.0, 0.05), (2.0, 0.12), (3.0, 0.2)], 0, 0),
    "IDEAL": (None, [], 0, 0),
}

MODEL = """[TITLE]
One {case} pump lifting a wet well to an outfall (SWMM 5.2 pump parity).

[OPTIONS]
FLOW_UNITS CMS
FLOW_ROUTING DYNWAVE
START_DATE 01/01/2020
START_TIME 00:00:00
END_DATE 01/01/2020
END_TIME 04:00:00
REPORT_STEP 00:00:05
ROUTING_STEP 5
VARIABLE_STEP 0

[STORAGE]
WW 10 5 0 FUNCTIONAL 0 0 50 0 0

[OUTFALLS]
O1 14 FREE

[PUMPS]
P1 WW O1 {curve} ON {startup} {shutoff}

{curves}[INFLOWS]
WW FLOW HYDRO FLOW 1 1 0

[TIMESERIES]
HYDRO 0 0
HYDRO 1 0.25
HYDRO 2 0
HYDRO 4 0

[REPORT]
NODES ALL
LINKS ALL
"""


def model_text(case):
    kind, points, startup, shutoff = CASES[case]
    curves = ""
    if kind:
        rows = [f"PC {kind if i == 0 else ''} {x} {y}" for i, (x, y) in enumerate(points)]
        curves = "[CURVES]\n" + "\n".join(r.replace("  ", " ") for r in rows) + "\n\n"
    return MODEL.format(case=case, curve="PC" if kind else "*", startup=startup, shutoff=shutoff, curves=curves)


def run(path):
    rpt, out, error = run_quietly(path)
    if error:
        raise error
    lines = open(rpt).read().splitlines()
    # Flooding Loss of the Flow Routing Continuity table, 10^6 ltr (its last column).
    flooding = next(float(l.split()[-1]) * 1e3 for l in lines if l.strip().startswith("Flooding Loss"))
    h = output.init()
    output.open(h, out)
    periods = output.get_times(h, shared_enum.Time.NUM_PERIODS)
    step = output.get_times(h, shared_enum.Time.REPORT_STEP)
    depth = output.get_node_series(h, 0, shared_enum.NodeAttribute.INVERT_DEPTH, 0, periods - 1)
    flow = output.get_link_series(h, 0, shared_enum.LinkAttribute.FLOW_RATE, 0, periods - 1)
    output.close(h)
    # The outfall receives exactly the pump's flow: its volume is the flow series integrated
    # (trapezoids over the report steps, the first from the zero flow at the start).
    pumped = sum(0.5 * (a + b) * step for a, b in zip([0.0] + list(flow[:-1]), flow))
    return {"max_depth_m": max(depth), "max_flow_m3s": max(flow), "pumped_m3": pumped, "flooding_m3": flooding}


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    result = {}
    for case in CASES:
        path = os.path.join(OUT, case + ".inp")
        open(path, "w").write(model_text(case))
        result[case] = run(path)
        r = result[case]
        print(f"{case:12} depth {r['max_depth_m']:.3f} m, flow {r['max_flow_m3s']:.4f} m3/s, "
              f"pumped {r['pumped_m3']:.1f} m3, flooded {r['flooding_m3']:.1f} m3")
    with open(os.path.join(OUT, "pumps.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)

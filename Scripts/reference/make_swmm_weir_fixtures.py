"""Partly open V-notch and trapezoidal weirs under control rules, run through SWMM 5.2.4
(swmm-toolkit 0.17.0) for SWMMWeirParityTests.

SWMM's weir_getFlow treats a V-notch weir whose setting is below 1 as a trapezoidal one: the crest
is raised by (1 - setting) of the weir's height, the rectangular part is as wide as the notch at
that height (2·slope·y, slope = top width / height / 2) with the weir's coefficient, and the end
triangles use the end coefficient; a trapezoidal weir's rectangular part is the trapezoid's width
at the raised crest. Villemonte's submergence exponent stays the weir type's (2.5 for a V-notch).

The network: a 40 m² wet well WW (storage, 3 m deep, invert 10) takes a hydrograph (0 → 0.3 m³/s
over an hour and back, then nothing) and spills over weir W1 (crest 0.3 m above the invert,
opening 1 m high) into outfall O1 (FREE, invert 9.5) or, for the _SUBMERGED cases, into junction
J2 drained by a conduit to O1, a fixed-stage outfall (10.75) that backs water over the raised
crest (well and junction start 0.75 m deep). Each
case sets the weir partly open by a time rule (0.6 between 0:30 and 2:30) or by a control curve
on the well's depth (a modulated setting that moves every step).

Writes Tests/FloodSimTests/Fixtures/swmm/weirs/<CASE>.inp and weirs.json ({case: {"flow_m3s":
[W1's flow at each report minute], "depth_m": [WW's depth at each report minute], "settings":
[W1's setting], "max_depth_m": WW's maximum depth (SWMM's node statistics, full precision),
"flooding_m3": SWMM's flooding loss, "actions": SWMM's control-action count}}).

Run: .venv/bin/python Scripts/reference/make_swmm_weir_fixtures.py
"""
import json
import os
import sys

from swmm.toolkit import output, shared_enum

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import exact_max_depths, run_quietly  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "weirs")

TIMED = "RULE R1\nIF SIMULATION TIME > 0.5\nAND SIMULATION TIME < 2.5\nTHEN WEIR W1 SETTING = 0.6\nELSE WEIR W1 SETTING = 1"
CURVED = "RULE R1\nIF NODE WW DEPTH >= 0\nTHEN WEIR W1 SETTING = CURVE OC"

# case: (weir type, cross-section, coefficient, end coefficient, rules, submerged downstream)
CASES = {
    "VNOTCH_TIMED": ("V-NOTCH", "TRIANGULAR 1 1.2 0 0", 1.38, 0, TIMED, False),
    "VNOTCH_ENDS": ("V-NOTCH", "TRIANGULAR 1 1.2 0 0", 1.38, 1.2, TIMED, False),
    "VNOTCH_CURVE": ("V-NOTCH", "TRIANGULAR 1 1.2 0 0", 1.38, 0.9, CURVED, False),
    "VNOTCH_SUBMERGED": ("V-NOTCH", "TRIANGULAR 1 1.2 0 0", 1.38, 0.9, TIMED, True),
    "TRAPEZOIDAL_TIMED": ("TRAPEZOIDAL", "TRAPEZOIDAL 1 0.4 0.5 0.5", 1.84, 1.38, TIMED, False),
    "TRAPEZOIDAL_CURVE": ("TRAPEZOIDAL", "TRAPEZOIDAL 1 0.4 0.5 0.5", 1.84, 1.38, CURVED, False),
    "TRAPEZOIDAL_SUBMERGED": ("TRAPEZOIDAL", "TRAPEZOIDAL 1 0.4 0.5 0.5", 1.84, 1.38, TIMED, True),
    # A roadway weir ignores a partial setting (roadway_getInflow runs before the crest is raised).
    "ROADWAY_TIMED": ("ROADWAY", "RECT_OPEN 1 1.5 0 0", 1.6, "0 NO 8 PAVED", TIMED, False),
}

MODEL = """[TITLE]
Partly open weirs: {case} (SWMM 5.2 weir parity).

[OPTIONS]
FLOW_UNITS CMS
FLOW_ROUTING DYNWAVE
START_DATE 01/01/2020
START_TIME 00:00:00
END_DATE 01/01/2020
END_TIME 04:00:00
REPORT_STEP 00:01:00
WET_STEP 00:01:00
DRY_STEP 00:01:00
ROUTING_STEP 5
VARIABLE_STEP 0

[STORAGE]
WW 10 3 {init} FUNCTIONAL 0 0 40 0 0
{junctions}
[OUTFALLS]
{outfall}

[WEIRS]
W1 WW {to} {kind} 0.3 {cd} NO 0 {tail}
{conduits}
[XSECTIONS]
W1 {xsect}
{conduit_xsect}
[CURVES]
OC CONTROL 0 1
OC 0.5 0.9
OC 0.9 0.5
OC 1.3 0.3
OC 3 0.3

[INFLOWS]
WW FLOW HYDRO FLOW 1 1 0

[TIMESERIES]
HYDRO 0 0
HYDRO 1 0.3
HYDRO 2 0
HYDRO 4 0

[CONTROLS]
{controls}

[REPORT]
CONTROLS YES
NODES ALL
LINKS ALL
"""


def model_text(case):
    kind, xsect, cd, cd2, controls, submerged = CASES[case]
    if submerged:
        extra = dict(junctions="\n[JUNCTIONS]\nJ2 10 3 0.75 0 0\n", outfall="O1 9.5 FIXED 10.75", to="J2", init=0.75,
                     conduits="\n[CONDUITS]\nC1 J2 O1 100 0.013 0 0 0 0\n", conduit_xsect="C1 RECT_OPEN 2 2 0 0\n")
    else:
        extra = dict(junctions="", outfall="O1 9.5 FREE", to="O1", conduits="", conduit_xsect="", init=0)
    tail = cd2 if isinstance(cd2, str) else f"{cd2} YES"  # end coefficient, surcharge (or a road's fields)
    return MODEL.format(case=case, kind=kind, xsect=xsect, cd=cd, tail=tail, controls=controls, **extra)


def run(path):
    rpt, out, error = run_quietly(path)
    if error:
        raise error
    lines = open(rpt).read().splitlines()
    flooding = next(float(l.split()[-1]) * 1e3 for l in lines if l.strip().startswith("Flooding Loss"))
    actions = sum(1 for l in lines if "setting changed to" in l)
    h = output.init()
    output.open(h, out)
    periods = output.get_times(h, shared_enum.Time.NUM_PERIODS)
    links = [output.get_elem_name(h, shared_enum.ElementType.LINK, k) for k in range(2 if "C1 J2" in open(path).read() else 1)]
    nodes = [output.get_elem_name(h, shared_enum.ElementType.NODE, k) for k in range(3 if "C1 J2" in open(path).read() else 2)]
    w1, ww = links.index("W1"), nodes.index("WW")
    flow = list(output.get_link_series(h, w1, shared_enum.LinkAttribute.FLOW_RATE, 0, periods - 1))
    setting = list(output.get_link_series(h, w1, shared_enum.LinkAttribute.CAPACITY, 0, periods - 1))
    depth = list(output.get_node_series(h, ww, shared_enum.NodeAttribute.INVERT_DEPTH, 0, periods - 1))
    output.close(h)
    return {"flow_m3s": flow, "depth_m": depth, "settings": setting, "report_step_s": 60,
            "max_depth_m": exact_max_depths(path, 1.0)["WW"], "flooding_m3": flooding, "actions": actions}


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    result = {}
    for case in CASES:
        path = os.path.join(OUT, case + ".inp")
        open(path, "w").write(model_text(case))
        result[case] = r = run(path)
        print(f"{case:22} {r['actions']} actions, peak flow {max(r['flow_m3s']):.4f} m3/s, WW max depth "
              f"{r['max_depth_m']:.4f} m, setting min {min(r['settings']):.3f}, flooded {r['flooding_m3']:.1f} m3")
    with open(os.path.join(OUT, "weirs.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)

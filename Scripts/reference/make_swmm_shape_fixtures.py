"""One-conduit models, one per SWMM 5.2 cross-section shape, run through SWMM 5.2.4 (swmm-toolkit
0.17.0) for the shape parity test (SWMMShapeParityTests): a 500 m conduit at 0.2 % slope carrying
an inflow rising over 30 minutes to half its full-flow capacity (SWMM's own Max/Full Flow, found by
a first run) and held for 2.5 hours, dynamic wave, so the upstream node settles at the normal
depth. (A step inflow into the dry node would test the start-up surge instead of the shape.)

Writes Tests/FloodSimTests/Fixtures/swmm/shapes/<SHAPE>.inp and shapes.json
({shape: {"depth_m": the upstream node's depth, "flow_m3s": the conduit's flow, at the last reported step}}).

Run: .venv/bin/python Scripts/reference/make_swmm_shape_fixtures.py
"""
import json
import os
import sys

from swmm.toolkit import output, shared_enum

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import run_quietly, table  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "shapes")

# Shape: XSECTIONS geometry (metres; FORCE_MAIN's second value is its Hazen-Williams C).
SHAPES = {
    "CIRCULAR": "1.0 0 0 0", "FORCE_MAIN": "1.0 130 0 0", "FILLED_CIRCULAR": "1.0 0.2 0 0",
    "RECT_CLOSED": "1.0 1.5 0 0", "RECT_OPEN": "1.0 1.5 0 0", "TRAPEZOIDAL": "1.0 1.0 1 1",
    "TRIANGULAR": "1.0 2.0 0 0", "PARABOLIC": "1.0 2.0 0 0",
    "EGG": "1.5 0 0 0", "HORSESHOE": "1.2 0 0 0", "GOTHIC": "1.5 0 0 0", "CATENARY": "1.5 0 0 0",
    "SEMIELLIPTICAL": "1.2 0 0 0", "BASKETHANDLE": "1.5 0 0 0", "SEMICIRCULAR": "0.8 0 0 0",
    "HORIZ_ELLIPSE": "1.0 1.6 0 0", "VERT_ELLIPSE": "1.6 1.0 0 0", "ARCH": "1.0 1.5 0 0",
    "RECT_TRIANGULAR": "1.2 1.5 0.4 0", "RECT_ROUND": "1.2 1.5 1.0 0", "MODBASKETHANDLE": "1.2 1.5 1.0 0",
    "POWER": "1.0 2.0 2 0",
}

MODEL = """[TITLE]
One {shape} conduit at 0.2 % slope carrying half its full-flow capacity, reached over 30 minutes (SWMM 5.2 shape parity).

[OPTIONS]
FLOW_UNITS CMS
FLOW_ROUTING DYNWAVE
START_DATE 01/01/2020
START_TIME 00:00:00
END_DATE 01/01/2020
END_TIME 03:00:00
REPORT_STEP 00:05:00
ROUTING_STEP 5

[JUNCTIONS]
J1 11 6 0

[OUTFALLS]
O1 10 FREE

[CONDUITS]
C1 J1 O1 500 0.015 0 0

[XSECTIONS]
C1 {shape} {geometry} 1

[INFLOWS]
J1 FLOW RAMP FLOW 1 1 0

[TIMESERIES]
RAMP 0 0
RAMP 0.5 {flow}
RAMP 3 {flow}

[REPORT]
NODES ALL
LINKS ALL
"""


def run(path):
    rpt, out, error = run_quietly(path)
    if error:
        raise error
    lines = open(rpt).read().splitlines()
    link = next(r for r in table(lines, "Link Flow Summary") if r[0] == "C1")
    # The report rounds depths to 1 cm: read the last reported step (steady by then) from the
    # binary output at full precision.
    h = output.init()
    output.open(h, out)
    last = output.get_times(h, shared_enum.Time.NUM_PERIODS) - 1
    depth = output.get_node_result(h, last, 0)[shared_enum.NodeAttribute.INVERT_DEPTH.value]
    flow = output.get_link_result(h, last, 0)[shared_enum.LinkAttribute.FLOW_RATE.value]
    output.close(h)
    return depth, flow, float(link[6])  # steady depth at J1, flow in C1, SWMM's max/full flow


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    out = {}
    for shape, geometry in SHAPES.items():
        path = os.path.join(OUT, shape + ".inp")
        open(path, "w").write(MODEL.format(shape=shape, geometry=geometry, flow=0.1))
        _, _, ratio = run(path)
        full = 0.1 / ratio
        open(path, "w").write(MODEL.format(shape=shape, geometry=geometry, flow=f"{0.5 * full:.4f}"))
        depth, q, ratio = run(path)
        out[shape] = {"depth_m": depth, "flow_m3s": q}
        print(f"{shape:16} full {full:.3f} m3/s, flow {q:.4f}, depth {depth:.3f} m (max/full {ratio})")
    with open(os.path.join(OUT, "shapes.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)

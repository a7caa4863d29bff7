"""Natural channels (IRREGULAR transects), a CUSTOM shape and culverts under inlet control, run
through SWMM 5.2.4 (swmm-toolkit 0.17.0) for SWMMTransectParityTests.

- Channels and the custom shape: one 500 m conduit at 0.2 % slope, as make_swmm_shape_fixtures.py
  does, carrying a given share of its full-flow capacity (SWMM's own Max/Full Flow, found by a
  first run), reached over 30 minutes and held, so the upstream node settles at the normal depth.
  Transects: a single-n channel, a compound channel with rougher overbanks and bank stations, the
  same with station and elevation modifiers and a meander modifier; each at a share that keeps the
  flow in the channel and one that spills onto the overbanks.
- Culverts: one 30 m barrel at 1 % slope with a culvert code, fed by an inflow rising over two
  hours to about twice its inlet's submerged capacity, so the headwater passes through the
  unsubmerged, transition and submerged forms of the FHWA HDS-5 inlet equations.

Writes Tests/FloodSimTests/Fixtures/swmm/transects/<CASE>.inp and transects.json:
{case: {"depth_m", "flow_m3s": at the last reported step, "max_depth_m": J1's largest depth,
"depths_m": J1's depth at every reported step}} (full precision, from the binary output).

Run: .venv/bin/python Scripts/reference/make_swmm_transect_fixtures.py
"""
import json
import os
import sys

from swmm.toolkit import output, shared_enum

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import run_quietly  # noqa: E402
from make_swmm_shape_fixtures import run as steady_run  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "transects")

# Transects in HEC-2 layout (metres): NC left/right/channel n; X1 name, stations, left bank,
# right bank, 0, 0, meander, station factor, elevation offset; GR elevation-station pairs.
TRANSECTS = {
    "SINGLE": """NC 0 0 0.035
X1 SINGLE 6 0 0 0 0 0 0 0
GR 3.0 0 1.8 4 0.6 7 0.0 9 0.5 12 3.0 16""",
    "OVERBANK": """NC 0.08 0.06 0.035
X1 OVERBANK 9 20 32 0 0 0 0 0
GR 3.0 0 2.0 6 1.6 20 0.4 23 0.0 26 0.3 29 1.5 32 1.8 45 3.0 50""",
    "MODIFIED": """NC 0.1 0.05 0.03
X1 MODIFIED 9 20 32 0 0 1.25 1.2 0.5
GR 3.0 0 2.0 6 1.6 20 0.4 23 0.0 26 0.3 29 1.5 32 1.8 45 3.0 50""",
}
# Case: (XSECTIONS line after the link name, transect or curve, share of full-flow capacity).
CHANNELS = {
    "SINGLE-30": ("IRREGULAR SINGLE 0 0 0 1", "SINGLE", 0.3),
    "SINGLE-80": ("IRREGULAR SINGLE 0 0 0 1", "SINGLE", 0.8),
    "OVERBANK-05": ("IRREGULAR OVERBANK 0 0 0 1", "OVERBANK", 0.05),
    "OVERBANK-50": ("IRREGULAR OVERBANK 0 0 0 1", "OVERBANK", 0.5),
    "MODIFIED-05": ("IRREGULAR MODIFIED 0 0 0 1", "MODIFIED", 0.05),
    "MODIFIED-50": ("IRREGULAR MODIFIED 0 0 0 1", "MODIFIED", 0.5),
    "CUSTOM-50": ("CUSTOM 1.2 POD 0 0 1", None, 0.5),
    "CUSTOM-90": ("CUSTOM 1.2 POD 0 0 1", None, 0.9),
    "STREET-20": ("STREET ROAD 0 0 0 1", "STREETS", 0.2),
    "STREET-60": ("STREET ROAD 0 0 0 1", "STREETS", 0.6),
    "BACKED-20": ("STREET BACKED 0 0 0 1", "STREETS", 0.2),
    "BACKED-60": ("STREET BACKED 0 0 0 1", "STREETS", 0.6),
}
# Streets (metres, %): crown width, curb height, cross slope, road n, gutter depression and width,
# sides, backing width, slope and n.
STREETS = "ROAD 6 0.15 2 0.016 0.05 0.6 2\nBACKED 5 0.15 2 0.016 0.05 0.6 1 3 4 0.05"
SHAPE_CURVE = """POD SHAPE 0.0 0.5
POD 0.1 0.8
POD 0.3 1.0
POD 0.8 1.0
POD 1.0 0.4"""

# Case: (shape and geometry, culvert code, peak inflow m3/s).
CULVERTS = {
    "CULVERT-01": ("CIRCULAR 0.9 0 0 0", 1, 4.0),
    "CULVERT-05": ("CIRCULAR 0.9 0 0 0", 5, 4.0),
    "CULVERT-48": ("CIRCULAR 0.9 0 0 0", 48, 4.0),
    "CULVERT-09": ("RECT_CLOSED 0.9 1.2 0 0", 9, 5.0),
    "CULVERT-14": ("RECT_CLOSED 0.9 1.2 0 0", 14, 5.0),
}

MODEL = """[TITLE]
{title}

[OPTIONS]
FLOW_UNITS CMS
FLOW_ROUTING DYNWAVE
START_DATE 01/01/2020
START_TIME 00:00:00
END_DATE 01/01/2020
END_TIME 03:00:00
REPORT_STEP 00:05:00
ROUTING_STEP {step}

[JUNCTIONS]
J1 {junction}

[OUTFALLS]
O1 {outfall} FREE

[CONDUITS]
C1 J1 O1 {conduit} 0 0

[XSECTIONS]
C1 {xsection}
{sections}
[INFLOWS]
J1 FLOW INFLOW FLOW 1 1 0

[TIMESERIES]
INFLOW 0 0
INFLOW {rise} {flow}
INFLOW 3 {flow}

[REPORT]
NODES ALL
LINKS ALL
"""


def run(path):
    """SWMM's steady depth and flow at the last step (and its Max/Full Flow), then J1's depth at
    every reported step from the binary output."""
    depth, flow, ratio = steady_run(path)
    _, out, error = run_quietly(path)
    if error:
        raise error
    h = output.init()
    output.open(h, out)
    count = output.get_times(h, shared_enum.Time.NUM_PERIODS)
    depths = [output.get_node_result(h, i, 0)[shared_enum.NodeAttribute.INVERT_DEPTH.value] for i in range(count)]
    output.close(h)
    return {"depth_m": depth, "flow_m3s": flow, "max_depth_m": max(depths), "depths_m": depths}, ratio


def channel_text(case, xsection, transect, share, flow):
    if transect == "STREETS":
        sections = "\n[STREETS]\n" + STREETS + "\n"
    else:
        sections = "\n[TRANSECTS]\n" + TRANSECTS[transect] + "\n" if transect else "\n[CURVES]\n" + SHAPE_CURVE + "\n"
    title = f"One {case} conduit at 0.2 % slope carrying {share:.0%} of its full-flow capacity (SWMM 5.2 transect parity)."
    return MODEL.format(title=title, step=5, junction="11 10 0", outfall=10, conduit="500 0.015", xsection=xsection,
                        sections=sections, rise=0.5, flow=flow)


def culvert_text(code, xsection, flow):
    title = f"A 30 m culvert (code {code}) at 1 % slope under an inflow rising to {flow} m3/s (SWMM 5.2 culvert parity)."
    return MODEL.format(title=title, step=2, junction="10 8 0 0 0", outfall=9.7, conduit="30 0.013",
                        xsection=f"{xsection} 1 {code}", sections="", rise=2, flow=flow)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    results = {}
    for case, (xsection, transect, share) in CHANNELS.items():
        path = os.path.join(OUT, case + ".inp")
        probe = 0.1
        while True:  # a probe flow large enough for the report's two-decimal Max/Full Flow
            open(path, "w").write(channel_text(case, xsection, transect, share, probe))
            _, ratio = run(path)
            if ratio >= 0.1:
                break
            probe *= 10
        full = probe / ratio
        open(path, "w").write(channel_text(case, xsection, transect, share, f"{share * full:.4f}"))
        r, _ = run(path)
        results[case] = r
        print(f"{case:12} full {full:.3f} m3/s, flow {r['flow_m3s']:.4f}, depth {r['depth_m']:.3f} m")
    for case, (xsection, code, flow) in CULVERTS.items():
        path = os.path.join(OUT, case + ".inp")
        open(path, "w").write(culvert_text(code, xsection, flow))
        r, _ = run(path)
        results[case] = r
        print(f"{case:12} peak depth {r['max_depth_m']:.3f} m, last flow {r['flow_m3s']:.3f} m3/s")
    with open(os.path.join(OUT, "transects.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)

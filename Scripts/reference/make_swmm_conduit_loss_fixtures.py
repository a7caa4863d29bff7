"""Conduit evaporation and seepage (SWMM 5.2.4 link.c conduit_getLossRate) and steady-flow routing,
run through SWMM 5.2.4 (swmm-toolkit 0.17.0) for SWMMConduitLossParityTests (issue 53 §1).

Each case routes a hydrograph (0 → peak over the first 1.5 h, back to 0 at 4 h, then nothing) from
junction J1 through channel C1 (1,500 m) to J2 and channel C2 (1,000 m) to a free outfall O1, by
the case's routing method and cross-section. The water a conduit loses:

- evaporation from an open conduit's surface (top width × length × the potential rate: CONSTANT
  with monthly [ADJUSTMENTS] EVAPORATION added, MONTHLY, or a TIMESERIES); closed conduits do not
  evaporate (SWMM 5.2.4 piles a TIMESERIES rate's adjustments up at each climate update, so that
  combination is refused, not compared);
- seepage through the wetted width ([LOSSES] Seepage, in/hr or mm/hr), the width taken at the depth
  capped at the section's widest;
both scaled down together to what the conduit carries, and counted as the routing continuity's
Evaporation Loss and Exfiltration Loss. Under dynamic wave the loss enters the momentum equation
(dwflow.c's dq6) and is drawn from the end nodes; under kinematic wave it enters the continuity
equation (kinwave.c's q3); under steady flow (STEADY) it is taken off the outflow. Three cases carry
a pollutant with first-order decay (one per routing method: seepage takes mass, evaporation
concentrates it); one is in US units.

Writes Tests/FloodSimTests/Fixtures/swmm/conduit_losses/<CASE>.inp and conduit_losses.json ({case: {
"max_depth_m": {node: maximum depth over all routing steps}, "max_flow_m3s": {link: maximum |flow|},
"flooding_m3", "evaporation_m3", "seepage_m3", "outflow_m3", "inflow_m3" (SWMM's routing totals),
"continuity_error_pct" (the report's row), and for the quality cases "quality": {"seepage_loss",
"outflow", "reacted", "flooding"} (the report's Quality Routing Continuity rows, kg)}}).

Run: .venv/bin/python Scripts/reference/make_swmm_conduit_loss_fixtures.py
"""
import json
import os
import sys

from swmm.toolkit import shared_enum, solver

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import continuity, run_quietly, stepped_run  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "conduit_losses")
FT = 0.3048
CFT = FT ** 3

TRAPEZOID = "TRAPEZOIDAL 1.5 2.0 2 2 1"
# case: routing, xsect (both channels), peak (model flow unit), evaporation lines, seepage per conduit
# (model rate unit; None: no [LOSSES] line), hours, units, adjustments, pollutant
CASES = {
    "KW_TRAPEZOID_EVAP_SEEP": dict(routing="KINWAVE", xsect=TRAPEZOID, peak=1.5, evap="CONSTANT 60", seep=(20, 12), hours=24),
    "KW_TRAPEZOID_SEEP_HIGH": dict(routing="KINWAVE", xsect=TRAPEZOID, peak=0.3, evap=None, seep=(400, 250), hours=12),
    "DW_RECT_OPEN_EVAP_MONTHLY_SEEP": dict(routing="DYNWAVE", xsect="RECT_OPEN 1.5 3 0 0 1", peak=1.5,
                                           evap="MONTHLY 10 20 80 40 50 60 70 80 90 100 110 120", seep=(15, 30), hours=36),
    "DW_TRAPEZOID_EVAP_SEEP": dict(routing="DYNWAVE", xsect=TRAPEZOID, peak=2.5, evap="CONSTANT 80", seep=(25, 10), hours=24),
    "DW_CIRCULAR_SEEP": dict(routing="DYNWAVE", xsect="CIRCULAR 1.2 0 0 0 1", peak=0.8, evap="CONSTANT 80", seep=(30, 30), hours=24),
    "DW_TIMESERIES_EVAP": dict(routing="DYNWAVE", xsect=TRAPEZOID, peak=1.5, evap="TIMESERIES EVAP_TS", seep=None, hours=48),
    "DW_CONSTANT_EVAP_ADJUSTED": dict(routing="DYNWAVE", xsect=TRAPEZOID, peak=1.5, evap="CONSTANT 30", seep=(10, 10), hours=48,
                                      adjust="EVAPORATION 5 5 40 25 5 5 5 5 5 5 5 5"),
    "SF_TRAPEZOID_EVAP_SEEP": dict(routing="STEADY", xsect=TRAPEZOID, peak=1.5, evap="CONSTANT 60", seep=(20, 12), hours=24),
    "SF_OVER_CAPACITY": dict(routing="STEADY", xsect="CIRCULAR 0.6 0 0 0 1", peak=1.2, evap=None, seep=None, hours=8),
    "KW_QUALITY_EVAP_SEEP": dict(routing="KINWAVE", xsect=TRAPEZOID, peak=1.5, evap="CONSTANT 60", seep=(20, 12), hours=24,
                                 pollutant=True),
    "DW_QUALITY_EVAP_SEEP": dict(routing="DYNWAVE", xsect=TRAPEZOID, peak=1.5, evap="CONSTANT 60", seep=(20, 12), hours=24,
                                 pollutant=True),
    "SF_QUALITY_EVAP_SEEP": dict(routing="STEADY", xsect=TRAPEZOID, peak=1.5, evap="CONSTANT 60", seep=(20, 12), hours=24,
                                 pollutant=True),
    "US_DW_TRAPEZOID_EVAP_SEEP": dict(routing="DYNWAVE", xsect="TRAPEZOIDAL 4.9 6.6 2 2 1", peak=53, evap="CONSTANT 2.4",
                                      seep=(0.8, 0.5), hours=24, units="CFS"),
}

MODEL = """[TITLE]
Conduit evaporation and seepage parity: {case} (SWMM 5.2 issue 53).

[OPTIONS]
FLOW_UNITS {units}
FLOW_ROUTING {routing}
START_DATE 03/30/2021
START_TIME 00:00:00
END_DATE {end_date}
END_TIME {end_time}
REPORT_STEP 00:05:00
WET_STEP 00:05:00
DRY_STEP 00:05:00
ROUTING_STEP {step}
VARIABLE_STEP 0
{evaporation}{adjustments}
[JUNCTIONS]
J1 {j1} {jdepth} 0 0 0
J2 {j2} {jdepth} 0 0 0

[OUTFALLS]
O1 {o1} FREE NO

[CONDUITS]
C1 J1 J2 {l1} 0.03 0 0 0 0
C2 J2 O1 {l2} 0.03 0 0 0 0

[XSECTIONS]
C1 {xsect}
C2 {xsect}
{losses}{pollutants}
[INFLOWS]
J1 FLOW HYDRO FLOW 1 1 0
{quality_inflow}
[TIMESERIES]
HYDRO 0 0
HYDRO 1.5 {peak}
HYDRO 4 0
HYDRO {hours} 0
EVAP_TS 03/30/2021 00:00 40
EVAP_TS 03/31/2021 00:00 90
EVAP_TS 04/01/2021 00:00 20
EVAP_TS 04/01/2021 12:00 60
{tss_series}
[REPORT]
NODES ALL
LINKS ALL
"""


def model_text(case):
    c = CASES[case]
    us = c.get("units", "CMS") == "CFS"
    L = 1 / FT if us else 1.0
    hours = c["hours"]
    days, hh = divmod(hours, 24)
    start_day = 30
    day = start_day + days
    end_date = f"03/{day:02d}/2021" if day <= 31 else f"04/{day - 31:02d}/2021"
    losses = ""
    if c.get("seep"):
        losses = "\n[LOSSES]\n" + "\n".join(f"C{k + 1} 0 0 0 NO {s}" for k, s in enumerate(c["seep"])) + "\n"
    pollutants = quality_inflow = ""
    if c.get("pollutant"):
        pollutants = "\n[POLLUTANTS]\nTSS MG/L 0 0 0 0.4 NO * 0 0 0\n"
        quality_inflow = "J1 TSS TSSC CONCEN 1 1 0\n"
    return MODEL.format(
        case=case, units="CFS" if us else "CMS", routing=c["routing"], peak=c["peak"], hours=hours,
        end_date=end_date, end_time=f"{hh:02d}:00:00", step=5 if c["routing"] == "DYNWAVE" else 30,
        evaporation=f"\n[EVAPORATION]\n{c['evap']}\nDRY_ONLY NO\n" if c.get("evap") else "",
        adjustments=f"\n[ADJUSTMENTS]\n{c['adjust']}\n" if c.get("adjust") else "",
        j1=round(20 * L, 3), j2=round(17 * L, 3), o1=round(15.5 * L, 3), jdepth=round(2.0 * L, 3),
        l1=round(1500 * L, 1), l2=round(1000 * L, 1), xsect=c["xsect"], losses=losses,
        pollutants=pollutants, quality_inflow=quality_inflow,
        tss_series=f"TSSC 0 120\nTSSC {hours} 120\n" if c.get("pollutant") else "")


def run(case, path):
    us = CASES[case].get("units", "CMS") == "CFS"
    length, volume, flow = (FT, CFT, CFT) if us else (1.0, 1.0, 1.0)
    rpt, _, error = run_quietly(path)
    if error:
        raise error
    lines = open(rpt).read().splitlines()
    rows = continuity(lines, "Flow Routing Continuity")
    with stepped_run(path):
        node, link = shared_enum.ObjectType.NODE, shared_enum.ObjectType.LINK
        nodes = [solver.project_get_id(node, i) for i in range(solver.project_get_count(node))]
        links = [solver.project_get_id(link, i) for i in range(solver.project_get_count(link))]
        depth = [0.0] * len(nodes)
        q = [0.0] * len(links)
        while solver.swmm_step() > 0:
            for i in range(len(nodes)):
                depth[i] = max(depth[i], solver.node_get_result(i, shared_enum.NodeResult.DEPTH))
            for j in range(len(links)):
                q[j] = max(q[j], abs(solver.link_get_result(j, shared_enum.LinkResult.FLOW)))
        totals = solver.system_get_routing_totals()
    result = {
        "max_depth_m": {n: d * length for n, d in zip(nodes, depth)},
        "max_flow_m3s": {l: v * flow for l, v in zip(links, q)},
        "flooding_m3": totals.flooding * volume, "evaporation_m3": totals.evapLoss * volume,
        "seepage_m3": totals.seepLoss * volume, "outflow_m3": totals.outflow * volume,
        "inflow_m3": (totals.dwInflow + totals.wwInflow + totals.gwInflow + totals.iiInflow + totals.exInflow) * volume,
        "continuity_error_pct": rows.get("Continuity Error (%)", (0.0, None))[0],
    }
    if CASES[case].get("pollutant"):
        qual = continuity(lines, "Quality Routing Continuity")
        pick = {"Exfiltration Loss": "seepage_loss", "External Outflow": "outflow", "Mass Reacted": "reacted",
                "Flooding Loss": "flooding", "External Inflow": "inflow", "Final Stored Mass": "final_storage"}
        result["quality"] = {v: qual[k][0] for k, v in pick.items() if k in qual}
    return result


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    table = {}
    for case in CASES:
        path = os.path.join(OUT, case + ".inp")
        open(path, "w").write(model_text(case))
        table[case] = r = run(case, path)
        print(f"{case:32} J1 {r['max_depth_m']['J1']:.4f} m, flooded {r['flooding_m3']:.1f}, evap {r['evaporation_m3']:.1f}, "
              f"seep {r['seepage_m3']:.1f}, out {r['outflow_m3']:.1f} m3, error {r['continuity_error_pct']} %"
              + (f", quality {r['quality']}" if "quality" in r else ""))
    with open(os.path.join(OUT, "conduit_losses.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)

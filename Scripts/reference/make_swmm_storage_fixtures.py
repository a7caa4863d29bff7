"""Storage units SWMM 5.2 simulates and weirs with a discharge-coefficient curve, run through
SWMM 5.2.4 (swmm-toolkit 0.17.0) step by step for SWMMStorageParityTests (issue 53 §1).

Each case is a small network: a storage unit ST (invert 10) takes a hydrograph (0 → peak over the
first hours and back, then nothing for the rest of the run) and drains through a conduit C1
(0.3 m circular, 200 m) to junction J1 and conduit C2 to a free outfall O1; what ST cannot hold
floods (or, with a surcharge depth, first surcharges above its full depth). The cases exercise:

- the analytical shapes (node.c storage_readParams): CONICAL (base L × W ellipse, side slope Z),
  PARABOLIC (top L × W at height Z) and PYRAMIDAL (base L × W, side slope Z);
- evaporation from the unit (storage_getLosses: the surface area × the step's evaporation rate ×
  Fevap, a CONSTANT or MONTHLY rate), counted as the routing's Evaporation Loss;
- seepage (exfil.c: a constant Ksat, or modified Green-Ampt through the bottom and the banks with
  suction, Ksat and initial deficit) counted as Exfiltration Loss, on functional, tabular and
  analytical shapes;
- a surcharge depth above the unit's full depth (dynwave.c setNodeDepth: a full unit with
  SurDepth > 0 rises by the links' dQ/dH, floods only above full + surcharge depth);
- a weir's discharge coefficient as a curve of head (link.c weir_getFlow's table_lookup on the
  head in the model's length unit), transverse and V-notch.
One case is in US units (CFS: feet, in/hr, inches, in/day) so the unit conversions are checked.

Writes Tests/FloodSimTests/Fixtures/swmm/storage/<CASE>.inp and storage.json ({case: {
"report_step_s", "depth_m": [ST's depth at each report step], "max_depth_m": {node: its maximum
depth over all routing steps, full precision}, "flooding_m3", "evaporation_m3", "exfiltration_m3",
"outflow_m3", "inflow_m3" (SWMM's routing totals, full precision, from system_get_routing_totals;
its "initial_storage_m3" and "final_storage_m3" are kept but do not match the report's stored
volumes, so tests use "report_rows" for those), "continuity_error_pct" (the report's row),
"storage": {"max_volume_m3", "avg_volume_m3", "evap_loss_m3", "exfil_loss_m3"} (ST's
storage_get_stats), "weir_flow_m3s": [W1's flow at each report step] for the weir cases}}).

Run: .venv/bin/python Scripts/reference/make_swmm_storage_fixtures.py
"""
import json
import os
import re
import sys

from swmm.toolkit import shared_enum, solver

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import continuity, run_quietly, stepped_run  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "storage")
FT = 0.3048
CFT = FT ** 3

# case: dict(storage=the [STORAGE] line's fields after the name, peak inflow (model flow unit),
#            hours of run, evaporation line or None, units "CMS"/"CFS", weir=[WEIRS] line or None)
CASES = {
    "CONICAL": dict(storage="10 3 0 CONICAL 20 12 1.5 0 0", peak=1.2, hours=8),
    "PARABOLIC": dict(storage="10 3 0 PARABOLIC 40 30 3 0 0", peak=1.2, hours=8),
    "PYRAMIDAL": dict(storage="10 3 0.5 PYRAMIDAL 15 10 2 0 0", peak=1.5, hours=8),
    "EVAP_CONSTANT": dict(storage="10 3 1.5 PYRAMIDAL 60 40 2 0 1", peak=0.4, hours=48, evap="CONSTANT 20"),
    "EVAP_MONTHLY": dict(storage="10 3 1.5 FUNCTIONAL 200 1 1500 0 0.7", peak=0.4, hours=48,
                         evap="MONTHLY 1 2 30 4 5 6 7 8 9 10 11 12"),
    "SEEP_KSAT": dict(storage="10 3 1.5 CONICAL 40 30 2 0 0 20", peak=0.4, hours=24),
    "SEEP_GREENAMPT_FUNCTIONAL": dict(storage="10 3 0 FUNCTIONAL 300 0.5 800 0 0 150 8 0.3", peak=0.6, hours=24),
    "SEEP_GREENAMPT_TABULAR": dict(storage="10 3 0 TABULAR POND 0 0 100 12 0.25", peak=0.6, hours=24),
    "SEEP_GREENAMPT_PYRAMIDAL": dict(storage="10 3 0.2 PYRAMIDAL 30 20 3 0 0 80 15 0.35", peak=0.6, hours=24),
    "EVAP_SEEP_TABULAR": dict(storage="10 3 1 TABULAR POND 0 1 60 6 0.2", peak=0.5, hours=36, evap="CONSTANT 15"),
    "SURCHARGE": dict(storage="10 2 0 PYRAMIDAL 10 8 0.5 1.5 0", peak=1.5, hours=8),
    "SURCHARGE_HOLDS": dict(storage="10 2 0 PYRAMIDAL 10 8 0.5 1.5 0", peak=0.2, hours=8),
    "SURCHARGE_FLOODS": dict(storage="10 2 0 CYLINDRICAL 12 10 0 0.6 0", peak=1.8, hours=8),
    "US_CONICAL_SEEP_EVAP": dict(storage="32.8 9.8 2 CONICAL 65 40 2 0 1 4 0.5 0.3", peak=35, hours=36,
                                 evap="CONSTANT 0.6", units="CFS"),
    "WEIR_CURVE_TRANSVERSE": dict(storage="10 3 0 FUNCTIONAL 0 0 150 0 0", peak=0.8, hours=8,
                                  weir="W1 ST O2 TRANSVERSE 1.2 1.84 NO 0 0 YES 0 0 CD"),
    "WEIR_CURVE_VNOTCH": dict(storage="10 3 0 FUNCTIONAL 0 0 150 0 0", peak=0.8, hours=8,
                              weir="W1 ST O2 V-NOTCH 1.2 1.38 NO 0 0 NO 0 0 CD"),
}

MODEL = """[TITLE]
Storage and weir parity: {case} (SWMM 5.2 issue 53).

[OPTIONS]
FLOW_UNITS {units}
FLOW_ROUTING DYNWAVE
START_DATE 03/01/2021
START_TIME 00:00:00
END_DATE {end_date}
END_TIME {end_time}
REPORT_STEP 00:05:00
WET_STEP 00:05:00
DRY_STEP 00:05:00
ROUTING_STEP 5
VARIABLE_STEP 0
{evaporation}
[JUNCTIONS]
J1 {j1} {jdepth} 0 0 0

[OUTFALLS]
O1 {o1} FREE NO
{o2}
[STORAGE]
ST {storage}

[CONDUITS]
C1 ST J1 200 0.013 0 0 0 0
C2 J1 O1 200 0.013 0 0 0 0
{weirs}
[XSECTIONS]
C1 CIRCULAR {dia} 0 0 0 1
C2 CIRCULAR {dia2} 0 0 0 1
{weir_xsect}
[CURVES]
POND STORAGE 0 {a0}
POND {d1} {a1}
POND {d2} {a2}
POND {d3} {a3}
CD WEIR 0 {c0}
CD {h1} {c1}
CD {h2} {c2}

[INFLOWS]
ST FLOW HYDRO FLOW 1 1 0

[TIMESERIES]
HYDRO 0 0
HYDRO 1.5 {peak}
HYDRO 4 0
HYDRO {hours} 0

[REPORT]
NODES ALL
LINKS ALL
"""


def model_text(case):
    c = CASES[case]
    us = c.get("units", "CMS") == "CFS"
    L = 1 / FT if us else 1.0  # model length per metre
    hours = c["hours"]
    days, hh = divmod(hours, 24)
    weir = c.get("weir")
    return MODEL.format(
        case=case, units="CFS" if us else "CMS", storage=c["storage"], peak=c["peak"], hours=hours,
        end_date=f"03/{1 + days:02d}/2021", end_time=f"{hh:02d}:00:00",
        evaporation=f"\n[EVAPORATION]\n{c['evap']}\n" if c.get("evap") else "",
        j1=round(9.6 * L, 3), jdepth=round(2.5 * L, 3), o1=round(9.2 * L, 3),
        o2=f"O2 {round(9 * L, 3)} FREE NO" if weir else "",
        weirs=f"\n[WEIRS]\n{weir}\n" if weir else "", weir_xsect="W1 RECT_OPEN 0.6 1.5 0 0" if weir and "TRANSVERSE" in weir else
        ("W1 TRIANGULAR 0.6 1.2 0 0" if weir else ""),
        dia=round(0.3 * L, 3), dia2=round(0.5 * L, 3),
        a0=round(300 * L * L), d1=round(0.5 * L, 3), a1=round(600 * L * L), d2=round(1.5 * L, 3), a2=round(900 * L * L),
        d3=round(3.0 * L, 3), a3=round(900 * L * L),
        c0=1.4, h1=0.2, c1=1.6, h2=0.6, c2=1.9)


def report_rows(rpt):
    lines = open(rpt).read().splitlines()
    fc = continuity(lines, "Flow Routing Continuity")
    return {k: v[0] for k, v in fc.items()}


def run(case, path):
    us = CASES[case].get("units", "CMS") == "CFS"
    length, volume, flow = (FT, CFT, CFT) if us else (1.0, 1.0, 1.0)
    rpt, _, error = run_quietly(path)
    if error:
        raise error
    rows = report_rows(rpt)
    with stepped_run(path):
        node, link = shared_enum.ObjectType.NODE, shared_enum.ObjectType.LINK
        count = solver.project_get_count(node)
        names = [solver.project_get_id(node, i) for i in range(count)]
        st = names.index("ST")
        w1 = solver.project_get_index(link, "W1") if CASES[case].get("weir") else None
        deepest = [solver.node_get_result(i, shared_enum.NodeResult.DEPTH) for i in range(count)]
        step, next_report, depths, weir_flows = 300.0, 300.0, [], []
        while True:
            t = solver.swmm_step()
            if t <= 0:
                break
            for i in range(count):
                deepest[i] = max(deepest[i], solver.node_get_result(i, shared_enum.NodeResult.DEPTH))
            elapsed = t * 86400.0
            if elapsed >= next_report - 1e-6:
                depths.append(solver.node_get_result(st, shared_enum.NodeResult.DEPTH) * length)
                if w1 is not None:
                    weir_flows.append(solver.link_get_result(w1, shared_enum.LinkResult.FLOW) * flow)
                next_report += step
        totals = solver.system_get_routing_totals()
        stats = solver.storage_get_stats(st)
        result = {
            "report_step_s": step, "depth_m": depths,
            "max_depth_m": {names[i]: deepest[i] * length for i in range(count)},
            "flooding_m3": totals.flooding * volume, "evaporation_m3": totals.evapLoss * volume,
            "exfiltration_m3": totals.seepLoss * volume, "outflow_m3": totals.outflow * volume,
            "inflow_m3": (totals.dwInflow + totals.wwInflow + totals.gwInflow + totals.iiInflow + totals.exInflow) * volume,
            "initial_storage_m3": totals.initStorage * volume, "final_storage_m3": totals.finalStorage * volume,
            "storage": {"max_volume_m3": stats.maxVol * volume, "avg_volume_m3": stats.avgVol * volume,
                        "evap_loss_m3": stats.evapLosses * volume, "exfil_loss_m3": stats.exfilLosses * volume},
        }
        if w1 is not None:
            result["weir_flow_m3s"] = weir_flows
    result["continuity_error_pct"] = rows.get("Continuity Error (%)", 0.0)
    result["report_rows"] = {k: v for k, v in rows.items() if k in (
        "External Inflow", "External Outflow", "Flooding Loss", "Evaporation Loss", "Exfiltration Loss",
        "Initial Stored Volume", "Final Stored Volume", "Continuity Error (%)")}
    return result


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    table = {}
    for case in CASES:
        path = os.path.join(OUT, case + ".inp")
        open(path, "w").write(model_text(case))
        table[case] = r = run(case, path)
        print(f"{case:28} ST max {r['max_depth_m']['ST']:.4f} m, flooded {r['flooding_m3']:.1f} m3, evap "
              f"{r['evaporation_m3']:.2f} m3, exfil {r['exfiltration_m3']:.2f} m3, out {r['outflow_m3']:.1f} m3, "
              f"error {r['continuity_error_pct']} %")
    with open(os.path.join(OUT, "storage.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)

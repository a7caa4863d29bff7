"""Sanitary sewers with rainfall-dependent infiltration/inflow (SWMM 5.2's [HYDROGRAPHS] and
[RDII]) run through SWMM 5.2.4 (swmm-toolkit 0.17.0) for the RDII parity test
(SWMMRDIIParityTests).

Each model is a small sanitary trunk sewer: RDII at several junctions from unit hydrograph
groups on two rain gages, and dry-weather flow and a subcatchment on a junction without RDII
(so each RDII junction's lateral inflow is its RDII alone). The runs span a month boundary (the hydrographs change with the month),
several storms separated by dry days (the initial abstraction is used up and recovers between
them), and a pipe too small for the wettest storm (flooding). The cases vary what the method
does:

- SI: two gages (15-minute intensities and hourly volumes), monthly SHORT/MEDIUM/LONG lines with
  Dmax, Drec and Do, an ALL line overridden by a month line, dynamic wave routing.
- US: US units, kinematic wave, SWMM 5.0's one-line format (nine R-T-K values and one IA set),
  two gages reading the same series (SWMM shares their rain state), a rain interval shorter than
  the wet step because a time to peak is (the hydrograph's own interval), and cumulative rain.
- POLLUTED: the SI case with a pollutant that RDII carries at its Crdii concentration.

Writes Tests/FloodSimTests/Fixtures/swmm/rdii/<CASE>.inp and rdii.json ({case: the summary of
make_swmm_fixtures.summarize (continuity, node depths at full precision, flooding, link flows),
plus "rdii": {"rdii_inflow_m3" (Flow Routing Continuity's RDII Inflow), "sewershed_rainfall_m3"
and "produced_m3" (the Rainfall Dependent I/I table), "nodes": {node: {"volume_m3", "peak_m3s"}}
(each RDII node's lateral inflow, which is its RDII alone, summed over SWMM's routing steps and
its largest value, from a step-by-step run)}, and for POLLUTED "quality": {pollutant:
{"rdii_kg", "outflow_kg"}} from the Quality Routing Continuity}).

Run: .venv/bin/python Scripts/reference/make_swmm_rdii_fixtures.py
"""
import json
import os
import shutil
import sys

from swmm.toolkit import shared_enum, solver

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import continuity, run_quietly, stepped_run, summarize  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "rdii")

RDII_NODES = ["J1", "J2", "J3", "J5"]

TEMPLATE = """[TITLE]
RDII case {name} (make_swmm_rdii_fixtures.py)

[OPTIONS]
FLOW_UNITS           {units}
INFILTRATION         HORTON
FLOW_ROUTING         {routing}
START_DATE           05/27/2021
START_TIME           00:00:00
REPORT_START_DATE    05/27/2021
REPORT_START_TIME    00:00:00
END_DATE             06/12/2021
END_TIME             00:00:00
REPORT_STEP          01:00:00
WET_STEP             00:05:00
DRY_STEP             00:15:00
ROUTING_STEP         0:00:20
{extra_options}
[RAINGAGES]
RG1  INTENSITY  0:15  1.0  TIMESERIES  Rain1
RG2  {rg2_format}  1:00  1.0  TIMESERIES  {rg2_series}
{extra_gage}

[SUBCATCHMENTS]
S1  RG1  J4  {s_area}  60  {s_width}  1.0  0

[SUBAREAS]
S1  0.015  0.15  {dimp}  {dperv}  25  OUTLET

[INFILTRATION]
S1  {infil}

[JUNCTIONS]
J1  {z1}  {dmax}  0  0  0
J2  {z2}  {dmax}  0  0  0
J3  {z3}  {dmax}  0  0  0
J4  {z4}  {dmax}  0  0  0
J5  {z5}  {dmax}  0  0  0

[OUTFALLS]
O1  {zo}  FREE  NO

[CONDUITS]
C1  J1  J3  {len}  0.013  0  0  0  0
C2  J2  J3  {len}  0.013  0  0  0  0
C3  J3  J4  {len}  0.013  0  0  0  0
C4  J4  J5  {len}  0.013  0  0  0  0
C5  J5  O1  {len}  0.013  0  0  0  0

[XSECTIONS]
C1  CIRCULAR  {d1}  0  0  0  1
C2  CIRCULAR  {d1}  0  0  0  1
C3  CIRCULAR  {d2}  0  0  0  1
C4  CIRCULAR  {d3}  0  0  0  1
C5  CIRCULAR  {d3}  0  0  0  1

[DWF]
J4  FLOW  {dwf}
{pollutants}
[HYDROGRAPHS]
{hydrographs}

[RDII]
{rdii}

[TIMESERIES]
{rain}

[REPORT]
NODES ALL
LINKS ALL
"""


def storms(peak1, peak2, scale=1.0, cumulative=False):
    """Rain1: 15-minute intensities; Rain2: hourly volumes (or cumulative depths). Storms on
    May 28 (small: mostly taken by the initial abstraction), May 30 (large), June 2 (after only
    two dry days: the abstraction has recovered only in part) and June 6 (the month's hydrographs)."""
    rows = []
    shape15 = [0.1, 0.3, 0.6, 1.0, 0.8, 0.5, 0.35, 0.25, 0.15, 0.1, 0.05, 0.05]
    for day, f in [(28, 0.15), (30, 1.0), (2, 0.6), (6, 0.8)]:
        month = 5 if day > 20 else 6
        for k, s in enumerate(shape15):
            h, m = divmod(6 * 60 + 15 * k, 60)
            rows.append(f"Rain1  {month:02d}/{day:02d}/2021  {h:02d}:{m:02d}  {peak1 * f * s * scale:.4f}")
        rows.append(f"Rain1  {month:02d}/{day:02d}/2021  09:00  0")
    total = 0.0
    shape60 = [0.3, 0.7, 1.0, 0.6, 0.3, 0.1]
    for day, f in [(28, 0.2), (30, 0.9), (2, 0.7), (7, 1.0)]:
        month = 5 if day > 20 else 6
        for k, s in enumerate(shape60):
            v = peak2 * f * s * scale
            total += v
            rows.append(f"Rain2  {month:02d}/{day:02d}/2021  {5 + k:02d}:00  {total if cumulative else v:.4f}")
    return "\n".join(rows)


SI_HYDROGRAPHS = """UH1  RG1
UH1  MAY  SHORT   0.04  0.5  2.0  6   1.5  2
UH1  MAY  MEDIUM  0.03  2.0  3.0  10  1.0  2
UH1  MAY  LONG    0.02  6.0  4.0  15  0.8  2
UH1  JUN  SHORT   0.06  0.75 2.0  4   2.0  0
UH1  JUN  MEDIUM  0.04  3.0  2.5  8   1.5  0
UH1  JUN  LONG    0.02  8.0  3.0  12  1.0  0
UH2  RG2
UH2  ALL  SHORT   0.05  1.0  1.5  3   1.0  0
UH2  ALL  MEDIUM  0.05  4.0  2.0  6   1.0  0
UH2  ALL  LONG    0.03  10   3.0  10  0.5  0
UH2  JUN  SHORT   0.08  1.5  1.5  2   2.0  0"""

SI = dict(units="CMS", routing="DYNWAVE", extra_options="", extra_gage="", rg2_format="VOLUME", rg2_series="Rain2",
          s_area=20, s_width=300, dimp=2, dperv=5, infil="60  6  4  7  0",
          z1=10.0, z2=10.2, z3=9.0, z4=8.2, z5=7.5, zo=6.8, dmax=2.5, len=400,
          d1=0.6, d2=0.8, d3=0.9, dwf=0.04, pollutants="", hydrographs=SI_HYDROGRAPHS,
          rdii="J1  UH1  150\nJ2  UH2  120\nJ3  UH1  80\nJ5  UH2  60",
          rain=storms(60, 25))

# SWMM 5.0's line: R, T, K of the short, medium and long responses, then Dmax, Drec, Do (inches).
US_HYDROGRAPHS = """UH1  RG1
UH1  ALL  0.03 0.05 3.0  0.04 2.0 3.0  0.03 6.0 4.0  0.3 0.05 0.1
UH1  JUN  0.05 0.25 2.0  0.04 3.0 2.5  0.02 8.0 3.0  0.2 0.08 0.0
UH2  RG3
UH2  ALL  SHORT   0.05  1.0  1.5
UH2  ALL  MEDIUM  0.05  4.0  2.0  0.2  0.04  0.1
UH2  ALL  LONG    0.03  10   3.0  0.4  0.02
UH3  RG2
UH3  ALL  SHORT   0.06  0.5  2.0  0.25  0.1  0
UH3  ALL  MEDIUM  0.05  3.0  2.0  0.25  0.1  0"""

US = dict(SI, units="CFS", routing="KINWAVE", rg2_format="CUMULATIVE", rg2_series="Rain2",
          extra_gage="RG3  INTENSITY  0:15  1.0  TIMESERIES  Rain1",
          s_area=50, s_width=900, dimp=0.08, dperv=0.2, infil="2.4  0.25  4  7  0",
          z1=33.0, z2=33.5, z3=29.5, z4=27.0, z5=24.6, zo=22.3, dmax=8.0, len=1300,
          d1=2.0, d2=2.6, d3=3.0, dwf=1.4, hydrographs=US_HYDROGRAPHS,
          rdii="J1  UH1  370\nJ2  UH3  300\nJ3  UH2  200\nJ5  UH2  150\nJ5  UH1  160",
          rain=storms(2.4, 1.0, cumulative=True))

POLLUTED = dict(SI, pollutants="""
[POLLUTANTS]
TSS  MG/L  0  0  25  0  NO  *  0  180
""")

CASES = {"SI": SI, "US": US, "POLLUTED": POLLUTED}


def lateral_inflows(inp, flow):
    """Each RDII node's lateral inflow over SWMM's routing steps: (volume m³, peak m³/s)."""
    with stepped_run(inp):
        kind = shared_enum.ObjectType.NODE
        index = {solver.project_get_id(kind, i): i for i in range(solver.project_get_count(kind))}
        volume = {n: 0.0 for n in RDII_NODES}
        peak = {n: 0.0 for n in RDII_NODES}
        last = 0.0
        while True:
            elapsed = solver.swmm_step()
            if elapsed <= 0:
                break
            dt = (elapsed - last) * 86400.0
            last = elapsed
            for n in RDII_NODES:
                q = solver.node_get_result(index[n], shared_enum.NodeResult.LATERAL_INFLOW) * flow
                volume[n] += q * dt
                peak[n] = max(peak[n], q)
        return {n: {"volume_m3": volume[n], "peak_m3s": peak[n]} for n in RDII_NODES}


def rdii_table(lines, vol):
    values = {}
    for i, line in enumerate(lines):
        if line.strip().startswith("Rainfall Dependent I/I"):
            for l in lines[i + 1:i + 8]:
                parts = l.split()
                if l.strip().startswith("Sewershed Rainfall"):
                    values["sewershed_rainfall_m3"] = float(parts[-2]) * vol
                elif l.strip().startswith("RDII Produced"):
                    values["produced_m3"] = float(parts[-2]) * vol
            break
    return values


def reference(inp):
    rpt, out, err = run_quietly(inp)
    if err is not None:
        raise SystemExit(f"SWMM failed on {inp}: {err}")
    result = summarize(rpt, inp)
    lines = open(rpt).read().splitlines()
    units = next((l.split()[-1] for l in lines if "Flow Units" in l), "CFS")
    us = units in ("CFS", "GPM", "MGD")
    vol = 1233.48183754752 if us else 10000.0
    flow = 0.028316846592 if us else 1.0
    fc = continuity(lines, "Flow Routing Continuity")
    rdii = {"rdii_inflow_m3": fc.get("RDII Inflow", (0, 0))[0] * vol}
    rdii.update(rdii_table(lines, vol))
    rdii["nodes"] = lateral_inflows(inp, flow)
    result["rdii"] = rdii
    if "[POLLUTANTS]" in open(inp).read():
        qc = continuity(lines, "Quality Routing Continuity")
        # Quality Routing Continuity in kg (one pollutant column).
        result["quality"] = {"TSS": {"rdii_kg": qc.get("RDII Inflow", (0, 0))[0],
                                     "outflow_kg": qc.get("External Outflow", (0, 0))[0]}}
    shutil.rmtree(os.path.dirname(rpt), ignore_errors=True)
    return result


def main():
    os.makedirs(OUT, exist_ok=True)
    table = {}
    for name, params in CASES.items():
        path = os.path.join(OUT, name + ".inp")
        with open(path, "w") as f:
            f.write(TEMPLATE.format(**dict(params, name=name)))
        table[name] = reference(path)
    with open(os.path.join(OUT, "rdii.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    for name, r in table.items():
        d = r["rdii"]
        print(f"{name:9s} rdii {d['rdii_inflow_m3']:9.1f} m3  produced {d.get('produced_m3', 0):9.1f}  rain {d.get('sewershed_rainfall_m3', 0):10.1f}  "
              f"flooding {r['routing_continuity']['flooding_m3']:8.1f}  "
              + "  ".join(f"{n} {v['volume_m3']:.0f}/{v['peak_m3s']:.4f}" for n, v in d["nodes"].items()))


if __name__ == "__main__":
    main()

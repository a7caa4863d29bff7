"""Water quality models run through SWMM 5.2.4 (swmm-toolkit 0.17.0) for the quality parity test
(SWMMQualityParityTests).

Models: EPA's Example1 with its pollutants (TSS buildup SAT, EXP washoff; Lead as a co-pollutant
of TSS), and a generated model MIX (SI units, kinematic wave): three subcatchments on two land
uses, every buildup function (POW, EXP, SAT, EXT with a time series; AREA and CURB normalisers;
an initial loading), every washoff function (EXP, RC, EMC) with street sweeping and BMP
removal, rain, dry-weather and initial concentrations, first-order decay, a co-pollutant, a storage unit,
external CONCEN and MASS inflows and a dry-weather flow with a pollutant pattern; MIX_DW is the
same model under dynamic wave; GW is the groundwater parity test's BASE model with pollutants in the
groundwater and the rain.

Writes Tests/FloodSimTests/Fixtures/swmm/quality/<MODEL>.inp and quality.json ({model:
{"pollutants": [names], "runoff_continuity": {pollutant: {row: kg}}, "routing_continuity":
{pollutant: {row: kg}}, "washoff": {subcatchment: {pollutant: kg}}, "outfalls": {outfall:
{pollutant: kg}}, "links": {link: {pollutant: kg}}, "flooding_m3", "outflow_m3"}}), masses in kg
(SWMM reports lbs for US units), counts for #/L pollutants.

Run: .venv/bin/python Scripts/reference/make_swmm_quality_fixtures.py
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import continuity, run_quietly  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "quality")
EXAMPLE1 = "/work/shared/data/swmm/Example1.inp"
LB = 0.45359237

MIX = """[TITLE]
Water quality mix (make_swmm_quality_fixtures.py)

[OPTIONS]
FLOW_UNITS           LPS
INFILTRATION         HORTON
FLOW_ROUTING         KINWAVE
START_DATE           05/01/2021
START_TIME           00:00:00
REPORT_START_DATE    05/01/2021
REPORT_START_TIME    00:00:00
END_DATE             05/05/2021
END_TIME             00:00:00
SWEEP_START          04/15
SWEEP_END            10/31
DRY_DAYS             4
REPORT_STEP          00:15:00
WET_STEP             00:05:00
DRY_STEP             01:00:00
ROUTING_STEP         0:00:30

[RAINGAGES]
RG1  INTENSITY  0:15  1.0  TIMESERIES  Storm

[SUBCATCHMENTS]
S1  RG1  J1  4.0   60  200  1.0  800
S2  RG1  J2  6.0   35  250  2.0  400
S3  RG1  S2  2.5   80  120  0.5  0

[SUBAREAS]
S1  0.015  0.15  1.5  4  25  OUTLET
S2  0.015  0.20  2.0  5  20  OUTLET
S3  0.013  0.15  1.0  4  10  OUTLET

[INFILTRATION]
S1  60  8  4  7  0
S2  75  10  4  7  0
S3  50  6  4  7  0

[JUNCTIONS]
J1  10.0  2.0  0  0  0
J2   9.0  2.0  0  0  0
J3   7.5  2.0  0  0  0

[OUTFALLS]
O1  5.0  FREE  NO

[STORAGE]
ST1  8.0  3.0  0.2  FUNCTIONAL  0  0  400  0  0

[CONDUITS]
C1  J1   J2   300  0.013  0  0  0  0
C2  J2   ST1  250  0.013  0  0  0  0
C3  ST1  J3   200  0.013  0  0  0  0
C4  J3   O1   250  0.013  0  0  0  0

[XSECTIONS]
C1  CIRCULAR  0.6  0  0  0  1
C2  CIRCULAR  0.8  0  0  0  1
C3  CIRCULAR  0.5  0  0  0  1
C4  CIRCULAR  0.8  0  0  0  1

[POLLUTANTS]
;;Name  Units  Crain  Cgw  Crdii  Kdecay  SnowOnly  CoPollut  CoFrac  Cdwf  Cinit
TSS   MG/L  2.0  0  0  0.3  NO  *    0.0   40  15
COD   MG/L  0.0  0  0  0.0  NO  *    0.0   0   0
LEAD  UG/L  0.0  0  0  0.1  NO  TSS  20    0   0
FC    #/L   0.0  0  0  0.8  NO  *    0.0   0   0

[LANDUSES]
RES   0  0    0
COM   2  0.6  1

[COVERAGES]
S1  RES  70  COM  30
S2  RES  100
S3  COM  100

[LOADINGS]
S3  COD  12

[BUILDUP]
RES  TSS   POW  80   20   0.5  AREA
RES  COD   EXP  40   0.4  0    AREA
RES  LEAD  NONE 0    0    0    AREA
RES  FC    SAT  1e6  0    2    AREA
COM  TSS   SAT  0.12 0    1.5  CURB
COM  COD   EXT  30   1.0  CodRate  AREA
COM  LEAD  NONE 0    0    0    AREA
COM  FC    POW  5e5  1e5  1.0  AREA

[WASHOFF]
RES  TSS   EXP  0.15  1.4  0    0
RES  COD   RC   0.02  1.1  0    10
RES  LEAD  EMC  3     0    0    0
RES  FC    EXP  0.2   1.0  0    0
COM  TSS   EXP  0.12  1.2  60   20
COM  COD   EMC  45    0    30   0
COM  LEAD  EMC  0     0    0    0
COM  FC    RC   50    1.0  0    0

[INFLOWS]
J1   FLOW  Base  FLOW  1.0  1.0  5
J1   TSS   Conc  CONCEN  1.0  1.0  20
J3   COD   Load  MASS  1.0  1.0  0

[DWF]
J2   FLOW  3.0  ""  "" ""
J2   COD   80   DayCycle

[PATTERNS]
DayCycle  HOURLY  0.6 0.5 0.5 0.5 0.6 0.8 1.2 1.4 1.3 1.2 1.1 1.1
DayCycle          1.1 1.0 1.0 1.0 1.1 1.2 1.3 1.2 1.1 1.0 0.8 0.7

[TIMESERIES]
Storm    05/01/2021  02:00  0
Storm    05/01/2021  02:15  8
Storm    05/01/2021  02:30  25
Storm    05/01/2021  02:45  40
Storm    05/01/2021  03:00  18
Storm    05/01/2021  03:15  6
Storm    05/01/2021  03:30  0
Storm    05/03/2021  18:00  0
Storm    05/03/2021  18:15  12
Storm    05/03/2021  18:30  20
Storm    05/03/2021  18:45  5
Storm    05/03/2021  19:00  0
Base     05/01/2021  00:00  0
Base     05/05/2021  00:00  4
Conc     05/01/2021  00:00  10
Conc     05/05/2021  00:00  30
Load     05/01/2021  00:00  0
Load     05/01/2021  06:00  500
Load     05/01/2021  12:00  0
CodRate  05/01/2021  00:00  2
CodRate  05/05/2021  00:00  6

[REPORT]
SUBCATCHMENTS ALL
NODES ALL
LINKS ALL
"""

RUNOFF_ROWS = {"Initial Buildup": "initial_buildup", "Surface Buildup": "surface_buildup", "Wet Deposition": "wet_deposition",
               "Sweeping Removal": "sweeping_removal", "Infiltration Loss": "infiltration_loss", "BMP Removal": "bmp_removal",
               "Surface Runoff": "surface_runoff", "Remaining Buildup": "remaining_buildup", "Continuity Error (%)": "error_pct"}
ROUTING_ROWS = {"Dry Weather Inflow": "dry_weather_inflow", "Wet Weather Inflow": "wet_weather_inflow",
                "Groundwater Inflow": "groundwater_inflow", "External Inflow": "external_inflow",
                "External Outflow": "external_outflow", "Flooding Loss": "flooding_loss", "Mass Reacted": "mass_reacted",
                "Initial Stored Mass": "initial_stored", "Final Stored Mass": "final_stored", "Continuity Error (%)": "error_pct"}


def quality_table(lines, title, rows, factors):
    """A quality continuity table: one column per pollutant."""
    out = {}
    for i, line in enumerate(lines):
        if line.strip().startswith(title):
            for l in lines[i + 2:i + 20]:
                if "...." not in l:
                    if out:
                        break
                    continue
                label, values = l.split("..")[0].strip(), l.split()[-len(factors):]
                if label in rows:
                    key = rows[label]
                    for k, v in enumerate(values):
                        f = 1.0 if key == "error_pct" else factors[k]
                        out.setdefault(k, {})[key] = float(v) * f
            break
    return out


def summary_rows(lines, title, columns):
    """Rows (name, last `columns` numbers) of a summary table after its title and dashed header."""
    for i, line in enumerate(lines):
        if line.strip() == title:
            rows, dashes = [], 0
            for l in lines[i + 2:]:
                if l.strip().startswith("----"):
                    dashes += 1
                    if dashes == 3:
                        break
                    continue
                if dashes == 2 and l.strip():
                    parts = l.split()
                    rows.append((parts[0], [float(x) for x in parts[-columns:]]))
                elif dashes == 2 and not l.strip():
                    break
            return rows
    return []


def reference(inp):
    rpt, out, err = run_quietly(inp)
    if err is not None:
        raise SystemExit(f"SWMM failed on {inp}: {err}")
    lines = open(rpt).read().splitlines()
    units = next((l.split()[-1] for l in lines if "Flow Units" in l), "CFS")
    us = units in ("CFS", "GPM", "MGD")
    header = next(i for i, l in enumerate(lines) if l.strip().startswith("Runoff Quality Continuity"))
    names = lines[header - 1].split()[1:]
    mass_units = lines[header].split()[3:]
    factors = [1.0 if u.upper().startswith("LOG") or u == "#" else (LB if u == "lbs" else 1.0) for u in mass_units]
    counts = [u.upper().startswith("LOG") for u in mass_units]
    rc = quality_table(lines, "Runoff Quality Continuity", RUNOFF_ROWS, factors)
    qc = quality_table(lines, "Quality Routing Continuity", ROUTING_ROWS, factors)

    def by_name(rows, n_first=0):
        table = {}
        for name, values in rows:
            table[name] = {p: (10 ** v if counts[k] else v * factors[k]) for k, (p, v) in enumerate(zip(names, values[n_first:]))}
        return table
    n = len(names)
    fc = continuity(lines, "Flow Routing Continuity")
    vol = 1233.48183754752 if us else 10000.0
    result = {
        "pollutants": names,
        "runoff_continuity": {names[k]: v for k, v in rc.items()},
        "routing_continuity": {names[k]: v for k, v in qc.items()},
        "washoff": by_name([r for r in summary_rows(lines, "Subcatchment Washoff Summary", n) if r[0] != "System"]),
        "outfalls": by_name([r for r in summary_rows(lines, "Outfall Loading Summary", n) if r[0] != "System"]),
        "links": by_name(summary_rows(lines, "Link Pollutant Load Summary", n)),
        "flooding_m3": fc.get("Flooding Loss", (0, 0))[0] * vol,
        "outflow_m3": fc.get("External Outflow", (0, 0))[0] * vol,
        "counts": [names[k] for k in range(n) if counts[k]],
    }
    # Count pollutants: the continuity tables give log10(count).
    for table in (result["runoff_continuity"], result["routing_continuity"]):
        for p in result["counts"]:
            for key, v in table.get(p, {}).items():
                if key != "error_pct":
                    table[p][key] = 10 ** v if v != 0 else 0.0
    shutil.rmtree(os.path.dirname(rpt), ignore_errors=True)
    return result


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "MIX.inp"), "w") as f:
        f.write(MIX)
    with open(os.path.join(OUT, "MIX_DW.inp"), "w") as f:
        f.write(MIX.replace("KINWAVE", "DYNWAVE").replace("Water quality mix", "Water quality mix, dynamic wave"))
    # GW: the groundwater parity test's BASE model (an aquifer draining to J1) with pollutants in
    # the groundwater (Cgw) and the rain (Crain) and no land uses.
    with open(os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "groundwater", "BASE.inp")) as f:
        base = f.read()
    with open(os.path.join(OUT, "GW.inp"), "w") as f:
        f.write(base.replace("[REPORT]", "[POLLUTANTS]\nNO3  MG/L  0.5  8.0  0  0.05\nBAC  #/L  0  200  0  0\n\n[REPORT]"))
    shutil.copy(EXAMPLE1, os.path.join(OUT, "Example1.inp"))
    table = {name: reference(os.path.join(OUT, name + ".inp")) for name in ("Example1", "MIX", "MIX_DW", "GW")}
    with open(os.path.join(OUT, "quality.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    for name, r in table.items():
        for p in r["pollutants"]:
            c, q = r["runoff_continuity"][p], r["routing_continuity"][p]
            print(f"{name:9s} {p:5s} runoff {c['surface_runoff']:12.4f} err {c['error_pct']:6.3f} | "
                  f"outflow {q['external_outflow']:12.4f} flood {q['flooding_loss']:10.4f} err {q['error_pct']:6.3f}")


if __name__ == "__main__":
    main()

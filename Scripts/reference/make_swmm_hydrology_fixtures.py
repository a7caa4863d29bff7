"""Small models with the hydrology inputs of issue 53 §1 that CityTwin refused until branch hydro53,
run through SWMM 5.2.4 (swmm-toolkit 0.17.0) for SWMMHydrologyParityTests:

- EVAP_TIMESERIES: `[EVAPORATION] TIMESERIES` (a daily series of rates; SWMM's climate.c holds
  each entry's rate from its date on and ends runoff steps at each change), storms separated by
  dry days so that ponded water and depression storage evaporate at different rates.
- EVAP_TIMESERIES_DRYONLY: the same with DRY_ONLY YES and an hourly series starting before the
  simulation (SWMM then starts from the first entry on or after the start).
- RECOVERY_HORTON, RECOVERY_MODHORTON, RECOVERY_GREENAMPT, RECOVERY_CN: `[EVAPORATION] RECOVERY`,
  a monthly pattern scaling the infiltration capacity's dry-weather recovery (SWMM's
  Evap.recoveryFactor in infil.c), over a month boundary with storms before and after.
- ADJUSTMENTS: `[ADJUSTMENTS]` monthly EVAPORATION (added to the rate), RAINFALL (multiplying
  the gage's) and CONDUCTIVITY (scaling Horton's f0 and fmin), and TEMPERATURE (no effect here),
  over a month boundary; ADJUSTMENTS_GREENAMPT the same on Green-Ampt (Ks and the upper zone).
- ADJUST_SUBCATCH: SWMM 5.2's per-subcatchment N-PERV, DSTORE and INFIL monthly patterns.
- IGNORE_RAINFALL: IGNORE_RAINFALL YES with external inflows (rain is zero, runoff still runs).
- RAIN_FILE, RAIN_FILE_CUMULATIVE: a FILE rain gage reading <CASE>.dat beside the model, SWMM's
  user-prepared format (a header, another station's lines, 15-minute records with dry gaps), as
  intensities in mm/h and as a cumulative total in inches that is reset between storms.
- INFLOW_PATTERN: `[INFLOWS]` FLOW baselines scaled by HOURLY, DAILY, MONTHLY and WEEKEND
  patterns (SWMM's inflow_getExtInflow), with a time series on one of them, and rain.

Each model: three subcatchments on rain gage RG1 draining to junctions J1..J3 of a small sewer
(J1 -> J2 -> J3 -> O1, kinematic wave, the last pipe small enough to flood).

Writes Tests/FloodSimTests/Fixtures/swmm/hydrology/<CASE>.inp and hydrology.json:
  {case: {"runoff_continuity_mm": {rainfall, evaporation, infiltration, runoff, final_storage}
          (SWMM's Runoff Quantity Continuity, its depth column over the 9 ha of subcatchments),
          "subcatchments": {id: {"runoff_mm", "peak_m3s", "evaporation_mm", "infiltration_mm"}}
          (SWMM's Subcatchment Runoff Summary),
          "routing": {"external_inflow_m3", "wet_weather_inflow_m3", "flooding_m3", "outflow_m3"}
          (Flow Routing Continuity),
          "nodes": {id: max_depth_m} (SWMM's own maximum at full precision, exact_max_depths),
          "without": {"runoff_continuity_mm", "routing"} of the same model without the feature}}

Run: .venv/bin/python Scripts/reference/make_swmm_hydrology_fixtures.py
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import continuity, exact_max_depths, run_quietly, table  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "hydrology")

TEMPLATE = """[TITLE]
Hydrology case {name} (make_swmm_hydrology_fixtures.py)

[OPTIONS]
FLOW_UNITS           CMS
INFILTRATION         {infil_method}
FLOW_ROUTING         KINWAVE
START_DATE           {start}
START_TIME           00:00:00
REPORT_START_DATE    {start}
REPORT_START_TIME    00:00:00
END_DATE             {end}
END_TIME             00:00:00
REPORT_STEP          01:00:00
WET_STEP             00:05:00
DRY_STEP             01:00:00
ROUTING_STEP         0:00:30
{extra_options}

[EVAPORATION]
{evaporation}

[RAINGAGES]
{gage}

[SUBCATCHMENTS]
S1  RG1  J1  4.0  40  200  1.0  0
S2  RG1  J2  3.0  20  150  2.0  0
S3  RG1  J3  2.0  65  120  0.5  0

[SUBAREAS]
S1  0.015  0.15  2.0  6.0  25  OUTLET
S2  0.013  0.20  1.5  8.0  10  OUTLET
S3  0.015  0.12  2.5  5.0  40  PERVIOUS  60

[INFILTRATION]
S1  {infil1}
S2  {infil2}
S3  {infil3}

[JUNCTIONS]
J1  10.0  2.0  0  0  0
J2   9.0  2.0  0  0  0
J3   8.0  1.5  0  0  0

[OUTFALLS]
O1  7.0  FREE  NO

[CONDUITS]
C1  J1  J2  300  0.013  0  0  0  0
C2  J2  J3  300  0.013  0  0  0  0
C3  J3  O1  200  0.013  0  0  0  0

[XSECTIONS]
C1  CIRCULAR  0.8  0  0  0  1
C2  CIRCULAR  0.8  0  0  0  1
C3  CIRCULAR  {c3}  0  0  0  1
{inflows}{adjustments}
[TIMESERIES]
{storm}
{series}
[PATTERNS]
Recovery  MONTHLY  1.0 1.0 1.0 1.0 0.2 4.0 1.0 1.0 1.0 1.0 1.0 1.0
Hourly    HOURLY   0.5 0.4 0.3 0.3 0.4 0.6 1.0 1.5 1.8 1.6 1.3 1.2
Hourly             1.1 1.0 1.0 1.1 1.3 1.6 1.8 1.5 1.2 1.0 0.8 0.6
Daily     DAILY    0.6 1.0 1.1 1.2 1.2 1.1 0.7
Monthly   MONTHLY  1.0 1.0 1.0 1.0 0.5 2.0 1.0 1.0 1.0 1.0 1.0 1.0
Weekend   WEEKEND  0.3 0.3 0.3 0.3 0.3 0.3 0.5 0.8 1.2 1.5 1.8 2.0
Weekend            2.0 2.0 1.8 1.5 1.2 1.0 0.9 0.8 0.6 0.5 0.4 0.3
Rough     MONTHLY  1 1 1 1 3.0 0.5 1 1 1 1 1 1
Store     MONTHLY  1 1 1 1 0.2 2.5 1 1 1 1 1 1
Soak      MONTHLY  1 1 1 1 0.3 2.0 1 1 1 1 1 1

[REPORT]
SUBCATCHMENTS ALL
NODES ALL
LINKS ALL
"""


def storms(days, peak):
    """Six-hour storms starting at midnight on each (month, day) of `days`."""
    shape = [0.2, 0.5, 1.0, 0.7, 0.4, 0.2]
    rows = []
    for (month, day), scale in days:
        date = f"{month:02d}/{day:02d}/2021"
        rows += [f"Storm  {date}  {h:02d}:00  {peak * scale * f:.3f}" for h, f in enumerate(shape)]
        rows.append(f"Storm  {date}  06:00  0")
    return "\n".join(rows)


def daily_evaporation(start_month, start_day, rates):
    rows = []
    month, day = start_month, start_day
    for r in rates:
        rows.append(f"Evap  {month:02d}/{day:02d}/2021  00:00  {r}")
        day += 1
        if day > (31 if month in (1, 3, 5, 7, 8, 10, 12) else 30):
            month, day = month + 1, 1
    return "\n".join(rows)


def hourly_evaporation():
    # From the day before the start (ignored but for the entry at the start), every 6 hours.
    rows = []
    for k in range(4 * 12):
        day, hour = 9 + k // 4, (k % 4) * 6
        rows.append(f"Evap  06/{day:02d}/2021  {hour:02d}:00  {[2.0, 9.0, 14.0, 4.0][k % 4] + 0.25 * (k % 7)}")
    return "\n".join(rows)


HORTON = dict(infil_method="HORTON", infil1="50  5  4  7  0", infil2="75  8  3  5  0", infil3="40  3  5  3  0")
BASE = dict(HORTON, start="06/01/2021", end="06/12/2021", c3=0.45, inflows="", series="", adjustments="", extra_options="",
            gage="RG1  INTENSITY  1:00  1.0  TIMESERIES  Storm", rain_file=None,
            evaporation="CONSTANT  3.0",
            storm=storms([((6, 1), 1.0), ((6, 4), 0.6), ((6, 9), 1.2)], 30))

CASES = {
    "EVAP_TIMESERIES": dict(BASE, evaporation="TIMESERIES  Evap",
                            series=daily_evaporation(6, 1, [4.0, 6.5, 9.0, 12.0, 3.0, 7.5, 10.0, 11.0, 5.0, 8.0, 6.0, 4.0])),
    "EVAP_TIMESERIES_DRYONLY": dict(BASE, start="06/10/2021", end="06/20/2021", evaporation="TIMESERIES  Evap\nDRY_ONLY  YES",
                                    series=hourly_evaporation(),
                                    storm=storms([((6, 10), 0.8), ((6, 13), 1.0), ((6, 17), 0.7)], 30)),
    "RECOVERY_HORTON": dict(BASE, start="05/26/2021", end="06/10/2021", evaporation="CONSTANT  3.0\nRECOVERY  Recovery",
                            storm=storms([((5, 26), 1.0), ((5, 29), 0.8), ((6, 3), 1.0), ((6, 6), 1.0)], 30)),
}
CASES["RECOVERY_MODHORTON"] = dict(CASES["RECOVERY_HORTON"], infil_method="MODIFIED_HORTON")
CASES["RECOVERY_GREENAMPT"] = dict(CASES["RECOVERY_HORTON"], infil_method="GREEN_AMPT",
                                   infil1="100  10  0.25", infil2="150  5  0.3", infil3="80  20  0.2")
CASES["RECOVERY_CN"] = dict(CASES["RECOVERY_HORTON"], infil_method="CURVE_NUMBER",
                            infil1="75  0  4", infil2="68  0  6", infil3="82  0  3")
ADJUST = """
[ADJUSTMENTS]
TEMPERATURE   0 0 0 0 1.5 2.0 0 0 0 0 0 0
EVAPORATION   0 0 0 0 1.0 4.0 0 0 0 0 0 0
RAINFALL      1 1 1 1 0.7 1.4 1 1 1 1 1 1
CONDUCTIVITY  1 1 1 1 1.6 0.5 1 1 1 1 1 1
"""
CASES["ADJUSTMENTS"] = dict(CASES["RECOVERY_HORTON"], evaporation="CONSTANT  3.0", adjustments=ADJUST)
CASES["ADJUSTMENTS_GREENAMPT"] = dict(CASES["ADJUSTMENTS"], infil_method="GREEN_AMPT",
                                      infil1="100  10  0.25", infil2="150  5  0.3", infil3="80  20  0.2")
CASES["ADJUST_SUBCATCH"] = dict(CASES["RECOVERY_HORTON"], evaporation="CONSTANT  3.0", adjustments="""
[ADJUSTMENTS]
N-PERV   S1  Rough
DSTORE   S2  Store
INFIL    S3  Soak
CONDUCTIVITY  1 1 1 1 1.5 1.5 1 1 1 1 1 1
""")
CASES["INFLOW_PATTERN"] = dict(BASE, start="05/28/2021", end="06/06/2021", c3=0.5,
                               storm=storms([((5, 29), 0.8), ((6, 2), 1.0)], 30),
                               series="Extra  05/30/2021  00:00  0\nExtra  05/30/2021  06:00  0.05\nExtra  05/30/2021  12:00  0",
                               inflows="""
[INFLOWS]
J1  FLOW  ""     FLOW  1.0  1.0  0.03  Hourly
J2  FLOW  Extra  FLOW  1.0  1.0  0.02  Daily
J2  FLOW  ""     FLOW  1.0  1.0  0.01  Weekend
J3  FLOW  ""     FLOW  1.0  1.0  0.02  Monthly
""")

# IGNORE_RAINFALL YES: SWMM 5.2.4 sets every gage's rainfall to 0 (gage.c) but still runs runoff
# (evaporation, infiltration) and routes the external inflows.
CASES["IGNORE_RAINFALL"] = dict(CASES["INFLOW_PATTERN"], extra_options="IGNORE_RAINFALL      YES", inflows="""
[INFLOWS]
J1  FLOW  ""     FLOW  1.0  1.0  0.25
J2  FLOW  Extra  FLOW  1.0  1.0  0.05
""")


def rain_file(fmt):
    """A rain file in SWMM's user-prepared format: a header, a second station to skip, 15-minute
    records of station STA01 with dry gaps; INTENSITY in mm/h or CUMULATIVE inches."""
    rows = ["; user-prepared rain file (make_swmm_hydrology_fixtures.py)", "Station Year Month Day Hour Minute Value"]
    shape = [2, 6, 14, 30, 44, 36, 22, 12, 6, 3]
    total = 0.0
    for day, scale in ((1, 1.0), (4, 0.5), (9, 1.3)):
        for k, v in enumerate(shape):
            minute = 15 * k
            value = v * scale
            rows.append(f"STA02  2021  6  {day}  {minute // 60}  {minute % 60}  {value * 3:.2f}")
            if fmt == "INTENSITY":
                rows.append(f"STA01  2021  6  {day}  {minute // 60}  {minute % 60}  {value:.2f}")
            else:
                total += value / 4 / 25.4
                rows.append(f"STA01  2021  6  {day}  {minute // 60}  {minute % 60}  {total:.4f}")
        if fmt == "CUMULATIVE" and day == 4:
            total = 0.0  # the gauge was reset: SWMM restarts the total when a value falls
    return "\n".join(rows) + "\n"


CASES["RAIN_FILE"] = dict(BASE, gage='RG1  INTENSITY  0:15  1.0  FILE  "RAIN_FILE.dat"  STA01  MM', rain_file=rain_file("INTENSITY"))
CASES["RAIN_FILE_CUMULATIVE"] = dict(BASE, gage='RG1  CUMULATIVE  0:15  1.0  FILE  "RAIN_FILE_CUMULATIVE.dat"  STA01  IN',
                                     rain_file=rain_file("CUMULATIVE"))


def reference(inp):
    rpt, _, err = run_quietly(inp)
    if err is not None:
        raise SystemExit(f"SWMM failed on {inp}: {err}")
    lines = open(rpt).read().splitlines()
    vol = 10000.0  # ha-m
    rc = continuity(lines, "Runoff Quantity Continuity")
    fc = continuity(lines, "Flow Routing Continuity")
    subs = {}
    # Subcatchment, Precip, Runon, Evap, Infil, Imperv Runoff, Perv Runoff, Total Runoff (mm),
    # Total Runoff (10^6 ltr), Peak Runoff (CMS), Runoff Coeff
    for row in table(lines, "Subcatchment Runoff Summary"):
        subs[row[0]] = {"evaporation_mm": float(row[3]), "infiltration_mm": float(row[4]),
                        "runoff_mm": float(row[7]), "peak_m3s": float(row[9])}
    shutil.rmtree(os.path.dirname(rpt), ignore_errors=True)
    return {
        # The depth column (mm, three decimals) is finer than the volumes' (ha-m, 10 m3 here).
        "runoff_continuity_mm": {
            "rainfall": rc.get("Total Precipitation", (0, 0))[1],
            "evaporation": rc.get("Evaporation Loss", (0, 0))[1],
            "infiltration": rc.get("Infiltration Loss", (0, 0))[1],
            "runoff": rc.get("Surface Runoff", (0, 0))[1],
            "final_storage": rc.get("Final Storage", (0, 0))[1],
        },
        "subcatchments": subs,
        "routing": {
            "external_inflow_m3": fc.get("External Inflow", (0, 0))[0] * vol,
            "wet_weather_inflow_m3": fc.get("Wet Weather Inflow", (0, 0))[0] * vol,
            "flooding_m3": fc.get("Flooding Loss", (0, 0))[0] * vol,
            "outflow_m3": fc.get("External Outflow", (0, 0))[0] * vol,
        },
        "nodes": exact_max_depths(inp, 1.0),
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    results = {}
    for name, params in CASES.items():
        inp = os.path.join(OUT, name + ".inp")
        if params.get("rain_file"):
            with open(os.path.join(OUT, name + ".dat"), "w") as f:
                f.write(params["rain_file"])
        with open(inp, "w") as f:
            f.write(TEMPLATE.format(name=name, **params))
        results[name] = reference(inp)
        r = results[name]
        c = r["runoff_continuity_mm"]
        print(name, "runoff mm", c["runoff"], "evaporation mm", c["evaporation"], "infiltration mm", c["infiltration"],
              "flooding m3", round(r["routing"]["flooding_m3"], 1), "external inflow m3", round(r["routing"]["external_inflow_m3"], 1))
        # What the feature changes: the same model without it ("without": SWMM's answer with a
        # CONSTANT 3 mm/day rate for the series, no RECOVERY, no [ADJUSTMENTS], no baseline
        # patterns), for the test that the engine moves as SWMM does.
        plain = os.path.join(OUT, name + ".without.inp")
        text = TEMPLATE.format(name=name, **params)
        text = text.replace("TIMESERIES  Evap", "CONSTANT  3.0").replace("RECOVERY  Recovery", "").replace("IGNORE_RAINFALL      YES", "")
        for p in ("Hourly", "Daily", "Weekend", "Monthly"):
            text = text.replace("  " + p + "\n", "\n")
        text = text.replace(params.get("adjustments", ""), "") if params.get("adjustments") else text
        open(plain, "w").write(text)
        w = reference(plain)
        os.remove(plain)
        r["without"] = {"runoff_continuity_mm": w["runoff_continuity_mm"], "routing": w["routing"]}
        print("   without the feature: runoff mm", w["runoff_continuity_mm"]["runoff"], "evaporation mm",
              w["runoff_continuity_mm"]["evaporation"], "infiltration mm", w["runoff_continuity_mm"]["infiltration"],
              "flooding m3", round(w["routing"]["flooding_m3"], 1))
    with open(os.path.join(OUT, "hydrology.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

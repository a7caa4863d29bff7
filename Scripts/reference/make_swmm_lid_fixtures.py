"""Small models with LID controls run through SWMM 5.2.4 (swmm-toolkit 0.17.0) for the LID parity
test (SWMMLIDParityTests): one model per LID kind (BC, RG, GR, IT, PP, RB, RD, VS) under a 2-hour
design storm, one event model mixing usages (outflow returned to the pervious area, pervious runoff
treated, an underdrain to another node and to another subcatchment, a subcatchment wholly LID
receiving run-on, initial saturation), and a 10-day continuous model (three storms, evaporation,
dry-weather drawdown, a rain barrel's drain delay). SI units (CMS), so SWMM's LID Performance
Summary prints millimetres to 2 decimals. Also EPA's Example4 (US units, six LID controls in eight
usages, copied from ../shared/data/swmm), whose report prints inches: "mm_per_unit" says which.

Writes Tests/FloodSimTests/Fixtures/swmm/lid/<name>.inp and lid.json:
{name: {"lid": [{"subcatchment", "control", "inflow_mm", "evaporation_mm", "infiltration_mm",
"surface_outflow_mm", "drain_outflow_mm", "initial_storage_mm", "final_storage_mm", "error_pct"}],
"runoff": {"rainfall_mm", "evaporation_mm", "infiltration_mm", "runoff_mm", "drains_mm",
"final_storage_mm", "error_pct"} (SWMM's Runoff Quantity Continuity, mm over the model's area),
"mm_per_unit": 1 or 25.4}.

Run: .venv/bin/python Scripts/reference/make_swmm_lid_fixtures.py
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import run_quietly  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "lid")
EXAMPLE4 = os.path.join(HERE, "..", "..", "..", "shared", "data", "swmm", "Example4.inp")

# A 2-hour storm (mm/h per 5 minutes, 45.6 mm in all) and a 10-day record of three storms.
STORM = [6, 8, 10, 14, 20, 30, 60, 40, 24, 16, 12, 10, 8, 7, 6, 5, 5, 4, 4, 3, 3, 2, 2, 2]
CONTINUOUS = [(d, h, v) for d, pattern in ((0, [4, 12, 25, 8, 3]), (3, [2, 6, 10, 6, 2, 1]), (7, [10, 30, 15, 5]))
              for h, v in enumerate(pattern, start=6)]

# LID controls: name -> lines after the name (SI: mm, mm/h).
CONTROLS = {
    "BC": ["BC", "SURFACE 150 0.1 0.1 1.0 5", "SOIL 500 0.5 0.2 0.1 12.7 10 89", "STORAGE 300 0.75 5 0", "DRAIN 2 0.5 50 6"],
    "RG": ["RG", "SURFACE 200 0.0 0 0 0", "SOIL 300 0.45 0.2 0.08 20 8 80", "STORAGE 0 0.75 8 0"],
    "GR": ["GR", "SURFACE 25 0 0.1 1.0 5", "SOIL 100 0.5 0.3 0.1 50 10 50", "DRAINMAT 25 0.5 0.1"],
    "IT": ["IT", "SURFACE 20 0 0 0 5", "STORAGE 900 0.6 10 0", "DRAIN 5 0.5 600 6"],
    "PP": ["PP", "SURFACE 5 0 0.02 1.0 5", "PAVEMENT 100 0.15 0 250 0", "STORAGE 300 0.75 2 0", "DRAIN 3 0.5 50 6"],
    "RB": ["RB", "STORAGE 1200 0.75 0 0", "DRAIN 10 0.5 0 6"],
    "RD": ["RD", "SURFACE 2 0 0.015 1.0 0", "DRAIN 20 0 0 0"],
    "VS": ["VS", "SURFACE 300 0.1 0.24 1.0 5"],
}

HEAD = """[TITLE]
{title}

[OPTIONS]
FLOW_UNITS CMS
INFILTRATION {infiltration}
FLOW_ROUTING KINWAVE
START_DATE 01/01/2020
START_TIME 00:00:00
REPORT_START_DATE 01/01/2020
REPORT_START_TIME 00:00:00
END_DATE {end}
END_TIME {end_time}
WET_STEP {wet}
DRY_STEP 01:00:00
REPORT_STEP 00:15:00
ROUTING_STEP 60
DRY_DAYS 2

[EVAPORATION]
CONSTANT {evap}
DRY_ONLY NO

[RAINGAGES]
G1 INTENSITY {interval} 1.0 TIMESERIES R1

[OUTFALLS]
O1 0 FREE NO
O2 0 FREE NO

[TIMESERIES]
{series}
"""


def storm_series():
    return "\n".join(f"R1 01/01/2020 {k * 5 // 60:02d}:{k * 5 % 60:02d} {v}" for k, v in enumerate(STORM)) + \
        "\nR1 01/01/2020 02:00 0"


def continuous_series():
    rows = []
    for d, h, v in CONTINUOUS:
        rows.append(f"R1 01/{d + 1:02d}/2020 {h:02d}:00 {v}")
        rows.append(f"R1 01/{d + 1:02d}/2020 {h + 1:02d}:00 0")
    # Keep the zero rows only where the next hour is not itself a storm hour.
    kept, hours = [], {(d, h) for d, h, _ in CONTINUOUS}
    for r in rows:
        _, date, clock, v = r.split()
        d, h = int(date.split("/")[1]) - 1, int(clock[:2])
        if v == "0" and (d, h) in hours:
            continue
        kept.append(r)
    return "\n".join(kept)


def controls(names):
    return "[LID_CONTROLS]\n" + "\n".join(f"{n} {line}" for n in names for line in CONTROLS[n]) + "\n"


def single(kind):
    """One 1 ha subcatchment, half impervious, with one usage of `kind`."""
    infil = "GREEN_AMPT" if kind == "VS" else "HORTON"
    params = "S1 90 12 0.3" if kind == "VS" else "S1 75 6 4 7 0"
    usage = {
        "BC": "S1 BC 2 150 10 10 50 0 * * 0",
        "RG": "S1 RG 1 200 0 0 30 0 * * 20",
        "GR": "S1 GR 1 1500 30 0 0 0",
        "IT": "S1 IT 1 100 0 0 40 0",
        "PP": "S1 PP 1 1000 30 0 20 0",
        "RB": "S1 RB 10 2 0 0 10 1",
        "RD": "S1 RD 1 1000 20 0 0 0",
        "VS": "S1 VS 1 300 5 0 30 0",
    }[kind]
    text = HEAD.format(title=f"One {kind} LID in a 1 ha subcatchment under a 2-hour storm (SWMM 5.2 LID parity).",
                       infiltration=infil, end="01/01/2020", end_time="12:00:00", wet="00:01:00", evap=3, interval="0:05",
                       series=storm_series())
    text += f"""
[SUBCATCHMENTS]
S1 G1 O1 1.0 50 100 1.0 0

[SUBAREAS]
S1 0.015 0.15 2 5 25 OUTLET

[INFILTRATION]
{params}

{controls([kind])}
[LID_USAGE]
{usage}
"""
    return text


def mixed(continuous):
    """Four subcatchments: S1 with BC (drain to node O2) and PP returning outflow to its pervious
    area; S2 with a rain barrel and an infiltration trench draining onto S3; S3 wholly a rain
    garden receiving S2's runoff; S4 with a green roof and rooftop disconnection treating pervious
    runoff, initially 30 % saturated."""
    head = HEAD.format(
        title=("Four subcatchments mixing LID usages over 10 days of three storms" if continuous
               else "Four subcatchments mixing LID usages under a 2-hour storm") + " (SWMM 5.2 LID parity).",
        infiltration="HORTON", end="01/11/2020" if continuous else "01/01/2020",
        end_time="00:00:00" if continuous else "12:00:00", wet="00:05:00" if continuous else "00:01:00",
        evap=5 if continuous else 3, interval="1:00" if continuous else "0:05",
        series=continuous_series() if continuous else storm_series())
    return head + f"""
[SUBCATCHMENTS]
S1 G1 O1 2.0 60 150 1.5 0
S2 G1 S3 1.0 70 80 2.0 0
S3 G1 O1 0.04 0 20 1.0 0
S4 G1 O2 0.5 40 60 1.0 0

[SUBAREAS]
S1 0.015 0.15 2 5 25 OUTLET
S2 0.015 0.15 2 5 25 OUTLET
S3 0.015 0.15 2 5 25 OUTLET
S4 0.015 0.15 2 5 25 PERVIOUS 50

[INFILTRATION]
S1 75 6 4 7 0
S2 75 6 4 7 0
S3 75 6 4 7 0
S4 75 6 4 7 0

{controls(["BC", "PP", "RB", "IT", "RG", "GR", "RD"])}
[LID_USAGE]
S1 BC 3 200 10 0 40 0 * O2 0
S1 PP 1 1500 40 0 20 1 * * 10
S2 RB 20 2 0 0 10 0
S2 IT 2 80 0 0 30 0 * S3 0
S3 RG 1 400 0 0 0 0
S4 GR 1 800 25 30 0 0
S4 RD 1 600 20 30 0 0 * * 15
"""


def report(rpt, scale=1.0):
    lines = open(rpt).read().splitlines()
    lids, runoff = [], {}
    for i, l in enumerate(lines):
        if l.strip() == "LID Performance Summary":
            k = i + 1
            dashes = 0
            while k < len(lines) and dashes < 2:
                dashes += lines[k].strip().startswith("---")
                k += 1
            while k < len(lines) and lines[k].strip():
                t = lines[k].split()
                v = [float(x) * scale for x in t[2:9]] + [float(t[9])]
                lids.append({"subcatchment": t[0], "control": t[1], "inflow_mm": v[0], "evaporation_mm": v[1],
                             "infiltration_mm": v[2], "surface_outflow_mm": v[3], "drain_outflow_mm": v[4],
                             "initial_storage_mm": v[5], "final_storage_mm": v[6], "error_pct": v[7]})
                k += 1
        if l.strip().startswith("Runoff Quantity Continuity"):
            keys = {"Total Precipitation": "rainfall_mm", "Evaporation Loss": "evaporation_mm",
                    "Infiltration Loss": "infiltration_mm", "Surface Runoff": "runoff_mm", "LID Drainage": "drains_mm",
                    "Final Storage": "final_storage_mm", "Initial Storage": "initial_storage_mm",
                    "Continuity Error": "error_pct"}
            for m in lines[i + 1:i + 16]:
                for label, key in keys.items():
                    if m.strip().startswith(label):
                        runoff[key] = float(m.split()[-1]) * (1 if key == "error_pct" else scale)
    return lids, runoff


def main():
    os.makedirs(OUT, exist_ok=True)
    models = {f"lid-{k.lower()}": single(k) for k in CONTROLS}
    models["lid-mixed-event"] = mixed(False)
    models["lid-mixed-continuous"] = mixed(True)
    models["Example4"] = open(EXAMPLE4).read()
    results = {}
    here = os.getcwd()
    for name, text in models.items():
        inp = os.path.abspath(os.path.join(OUT, name + ".inp"))
        open(inp, "w").write(text)
        # Example4 asks for detailed LID report files: SWMM writes them in a scratch directory.
        scratch = tempfile.mkdtemp()
        os.chdir(scratch)
        try:
            rpt, _, err = run_quietly(inp)
        finally:
            os.chdir(here)
        if err:
            sys.exit(f"{name}: SWMM failed: {err}\n" + open(rpt).read()[-2000:])
        scale = 25.4 if "FLOW_UNITS           CFS" in text else 1.0
        lids, runoff = report(rpt, scale)
        if not lids:
            sys.exit(f"{name}: no LID Performance Summary in the report")
        results[name] = {"lid": lids, "runoff": runoff, "mm_per_unit": scale}
        print(name, " ".join(f"{r['subcatchment']}/{r['control']} in {r['inflow_mm']} out {r['surface_outflow_mm']}"
                             f" drain {r['drain_outflow_mm']} infil {r['infiltration_mm']}" for r in lids))
    json.dump(results, open(os.path.join(OUT, "lid.json"), "w"), indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

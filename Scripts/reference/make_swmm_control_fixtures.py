"""Small models with control rules, one per premise and action kind of SWMM 5.2's [CONTROLS], run
through SWMM 5.2.4 (swmm-toolkit 0.17.0) for the control-rule parity test (SWMMControlParityTests).

The network: an inflow (triangular, 0 → 0.25 m³/s over an hour and back, then nothing) enters
junction J1, flows down conduit C1 into a 50 m² wet well WW (storage, 5 m deep), which pump P1
(a TYPE4 curve, initially OFF) lifts to outfall O1 and orifice OR1 (open at the start) drains to
outfall O2. The GAGE cases add a subcatchment on rain gage RG1 draining to J1. Each case adds one
[CONTROLS] block exercising one premise or action kind. Fixed 5 s routing steps, reported every
minute.

Writes Tests/FloodSimTests/Fixtures/swmm/controls/<CASE>.inp and controls.json
({case: {"actions": [[seconds from start, link, setting, rule], ...] from SWMM's control-action
report, "settings": {link: [setting at each report time]} for P1, OR1 and W1 or OU1 (SWMM's output gives
a pump's, orifice's, weir's or outlet's setting as its capacity), "report_step_s": 60, "flooding_m3": SWMM's
flooding loss}}).

Run: .venv/bin/python Scripts/reference/make_swmm_control_fixtures.py
"""
import json
import os
import re
import sys

from swmm.toolkit import output, shared_enum

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import run_quietly  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "controls")

ON_OFF = "THEN PUMP P1 STATUS = ON\nELSE PUMP P1 STATUS = OFF"

CASES = {
    "NODE_DEPTH": f"RULE R1\nIF NODE WW DEPTH > 1.5\n{ON_OFF}",
    "NODE_HEAD": "RULE R1\nIF NODE WW HEAD >= 11.8\nTHEN PUMP P1 STATUS = ON\n\n"
                 "RULE R2\nIF NODE WW HEAD < 10.6\nTHEN PUMP P1 STATUS = OFF",
    "NODE_VOLUME": f"RULE R1\nIF NODE WW VOLUME > 60\n{ON_OFF}",
    "NODE_INFLOW": f"RULE R1\nIF NODE J1 INFLOW > 0.1\n{ON_OFF}",
    "NODE_MAXDEPTH": f"RULE R1\nIF NODE WW DEPTH > 0.4\nAND NODE J1 MAXDEPTH > 2.9\n{ON_OFF}",
    "VALUE_VS_VALUE": f"RULE R1\nIF NODE WW HEAD > NODE J1 DEPTH\nAND NODE WW DEPTH > 0.8\n{ON_OFF}",
    "LINK_FLOW": f"RULE R1\nIF LINK C1 FLOW > 0.12\n{ON_OFF}",
    "CONDUIT_DEPTH": f"RULE R1\nIF CONDUIT C1 DEPTH > 0.25\nAND CONDUIT C1 FULLDEPTH > 0.99\n{ON_OFF}",
    "CONDUIT_VELOCITY": f"RULE R1\nIF CONDUIT C1 VELOCITY > 0.9\n{ON_OFF}",
    "CONDUIT_GEOMETRY": f"RULE R1\nIF CONDUIT C1 LENGTH > 299\nAND CONDUIT C1 SLOPE > 0.001\n"
                        f"AND LINK C1 FULLFLOW > 0.5\nAND NODE WW DEPTH > 1\n{ON_OFF}",
    "SIM_TIME": "RULE R1\nIF SIMULATION TIME > 0.75\nAND SIMULATION TIME < 02:30:00\n"
                "THEN PUMP P1 STATUS = ON\nELSE PUMP P1 STATUS = OFF",
    "SIM_CLOCKTIME": "RULE R1\nIF SIMULATION CLOCKTIME >= 01:10:00\nAND SIMULATION CLOCKTIME <= 02:20:00\n" + ON_OFF,
    "SIM_CLOCK_EQ": "RULE R1\nIF SIMULATION CLOCKTIME = 01:00:00\nTHEN PUMP P1 STATUS = ON\n\n"
                    "RULE R2\nIF SIMULATION TIME = 3\nTHEN PUMP P1 STATUS = OFF",
    "SIM_DATE": "RULE R1\nIF SIMULATION DATE = 01/01/2020\nAND SIMULATION MONTH = 1\nAND SIMULATION DAY = 4\n"
                "AND SIMULATION DAYOFYEAR = 1\nAND NODE WW DEPTH > 1.2\n" + ON_OFF,
    "PUMP_STATUS": "RULE R1\nIF NODE WW DEPTH > 1.4\nAND PUMP P1 STATUS = OFF\nTHEN PUMP P1 STATUS = ON\n\n"
                   "RULE R2\nIF NODE WW DEPTH < 0.5\nAND PUMP P1 STATUS = ON\nTHEN PUMP P1 STATUS = OFF",
    "TIMEOPEN": "RULE R1\nIF NODE WW DEPTH > 1.2\nTHEN PUMP P1 STATUS = ON\n\n"
                "RULE R2\nIF PUMP P1 TIMEOPEN > 0.4\nTHEN PUMP P1 STATUS = OFF\nPRIORITY 2\n\n"
                "RULE R3\nIF PUMP P1 TIMECLOSED >= 00:20:00\nAND NODE WW DEPTH > 0.3\nTHEN PUMP P1 STATUS = ON\nPRIORITY 1",
    "PRIORITY": "RULE R1\nIF NODE WW DEPTH > 1\nTHEN PUMP P1 STATUS = ON\nPRIORITY 1\n\n"
                "RULE R2\nIF NODE WW DEPTH > 2.2\nTHEN PUMP P1 STATUS = OFF\nPRIORITY 5\n\n"
                "RULE R3\nIF NODE WW DEPTH < 0.6\nTHEN PUMP P1 STATUS = OFF",
    "OR": "RULE R1\nIF SIMULATION TIME < 0.2\nOR NODE WW DEPTH > 1.5\nOR SIMULATION TIME > 3\n" + ON_OFF,
    "VARIABLE_EXPRESSION": "VARIABLE D = NODE WW DEPTH\nVARIABLE Q = LINK C1 FLOW\n"
                           "EXPRESSION E = D + 4*Q - SQRT(ABS(Q))\n"
                           "RULE R1\nIF E > 1.6\n" + ON_OFF + "\n\nRULE R2\nIF D > 2.5\nTHEN ORIFICE OR1 SETTING = 1",
    "CURVE": "RULE R1\nIF NODE WW DEPTH >= 0\nTHEN PUMP P1 SETTING = CURVE SC",
    "TIMESERIES": "RULE R1\nIF SIMULATION TIME > 0\nTHEN PUMP P1 SETTING = TIMESERIES TS",
    "PID": "RULE R1\nIF NODE WW DEPTH <> 1.5\nTHEN PUMP P1 SETTING = PID -0.2 30 0.5",
    "ORIFICE": "RULE R1\nIF NODE WW DEPTH > 1.8\nTHEN ORIFICE OR1 SETTING = 1\nELSE ORIFICE OR1 SETTING = 0",
    "ORIFICE_PARTIAL": "RULE R1\nIF NODE WW DEPTH > 1.2\nTHEN ORIFICE OR1 SETTING = 0.7\nELSE ORIFICE OR1 SETTING = 0.3",
    "ORIFICE_CURVE": "RULE R1\nIF NODE WW DEPTH > 0.2\nTHEN ORIFICE OR1 SETTING = CURVE OC\nELSE ORIFICE OR1 SETTING = 0",
    "ORIFICE_GRADUAL": "RULE R1\nIF NODE WW DEPTH > 1.5\nTHEN ORIFICE OR1 SETTING = 1\nELSE ORIFICE OR1 SETTING = 0",
    "OUTLET": "RULE R1\nIF NODE WW DEPTH > 1\nTHEN OUTLET OU1 SETTING = 0.5\nELSE OUTLET OU1 SETTING = 1\n\n"
              "RULE R2\nIF SIMULATION TIME > 2.5\nTHEN OUTLET OU1 SETTING = 0\nPRIORITY 3",
    "WEIR": "RULE R1\nIF NODE WW DEPTH > 0.45\nTHEN WEIR W1 SETTING = 0.4\nELSE WEIR W1 SETTING = 1\n\n"
            "RULE R2\nIF NODE WW DEPTH > 0.62\nTHEN WEIR W1 SETTING = CURVE OC\nPRIORITY 2",
    "CONDUIT_STATUS": "RULE R1\nIF SIMULATION TIME > 0.5\nAND SIMULATION TIME < 1.25\nTHEN CONDUIT C1 STATUS = CLOSED\n"
                      "ELSE CONDUIT C1 STATUS = OPEN\n\nRULE R2\nIF NODE WW DEPTH > 1\n" + ON_OFF,
    "GAGE": "RULE R1\nIF GAGE RG1 INTENSITY > 8\n" + ON_OFF,
    # Past rain: 10.5 mm falls in the first hour, 0.67 mm in the second; the 2-hour total reaches
    # 11.17 mm once the second hour is complete, the 1-hour total is then below 1 mm.
    "GAGE_PAST": "RULE R1\nIF GAGE RG1 2 >= 11\nAND GAGE RG1 1 < 1\n" + ON_OFF + "\n\n"
                 "RULE R2\nIF GAGE RG1 1 > 10\nTHEN ORIFICE OR1 SETTING = 0.5\nELSE ORIFICE OR1 SETTING = 1",
    "RULE_STEP": f"RULE R1\nIF NODE WW DEPTH > 1.5\n{ON_OFF}",
}

# Cases with other options, an orifice that opens and closes over time (hours), another link.
EXTRA_OPTIONS = {"RULE_STEP": "RULE_STEP 00:05:00\n"}
ORIFICE_TIME = {"ORIFICE_GRADUAL": 0.05}
OUTLETS = {"OUTLET": "[OUTLETS]\nOU1 WW O3 0.5 FUNCTIONAL/DEPTH 0.08 0.5 NO\n\n",
           "WEIR": "[WEIRS]\nW1 WW O3 TRANSVERSE 0.3 1.84 NO 0 0 YES\n\n"}
XSECTIONS = {"WEIR": "W1 RECT_OPEN 1.5 0.6 0 0\n"}

MODEL = """[TITLE]
Control rules: {case} (SWMM 5.2 control-rule parity).

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
{extra}
{gage}[JUNCTIONS]
J1 11 3 0 0 0

[STORAGE]
WW 10 5 0 FUNCTIONAL 0 0 50 0 0

[OUTFALLS]
O1 14 FREE
O2 9 FREE
{outfalls}
[CONDUITS]
C1 J1 WW 300 0.013 0 0 0 0

[PUMPS]
P1 WW O1 PC OFF 0 0

[ORIFICES]
OR1 WW O2 SIDE 0.2 0.6 NO {orifice_time}

{outlets}
[XSECTIONS]
C1 CIRCULAR 1 0 0 0 1
OR1 CIRCULAR 0.2 0 0 0
{xsections}
[CURVES]
PC PUMP4 0 0
PC 1 0.05
PC 2 0.12
PC 3 0.2
SC CONTROL 0 0
SC 0.5 0.2
SC 1.5 0.8
SC 3 1.2
OC CONTROL 0 0
OC 1 0.4
OC 2.5 1

[INFLOWS]
J1 FLOW HYDRO FLOW 1 1 0

[TIMESERIES]
HYDRO 0 0
HYDRO 1 0.25
HYDRO 2 0
HYDRO 4 0
TS 0 0
TS 1 0.5
TS 2 1.5
TS 3 0.2
{rain}
[CONTROLS]
{controls}

[REPORT]
CONTROLS YES
NODES ALL
LINKS ALL
"""

GAGE = """[RAINGAGES]
RG1 INTENSITY 0:10 1 TIMESERIES RAIN

[SUBCATCHMENTS]
S1 RG1 J1 20 60 400 1 0

[SUBAREAS]
S1 0.013 0.1 1 2 25 OUTLET

[INFILTRATION]
S1 80 5 4 7 0

"""

RAIN = """RAIN 0:00 2
RAIN 0:10 6
RAIN 0:20 12
RAIN 0:30 20
RAIN 0:40 14
RAIN 0:50 9
RAIN 1:00 4
RAIN 1:10 0
"""

ACTION = re.compile(r"(\d\d/\d\d/\d{4}):?\s+(\d\d):(\d\d):(\d\d):?\s+Link (\S+) setting changed to\s+(\S+) by Control (\S+)")


def model_text(case):
    gage = case.startswith("GAGE")
    return MODEL.format(case=case, extra=EXTRA_OPTIONS.get(case, ""), gage=GAGE if gage else "",
                        orifice_time=ORIFICE_TIME.get(case, 0), outlets=OUTLETS.get(case, ""),
                        outfalls="O3 9 FREE\n" if case in OUTLETS else "", xsections=XSECTIONS.get(case, ""),
                        rain=RAIN if gage else "", controls=CASES[case])


def run(path):
    rpt, out, error = run_quietly(path)
    if error:
        raise error
    lines = open(rpt).read().splitlines()
    flooding = next(float(l.split()[-1]) * 1e3 for l in lines if l.strip().startswith("Flooding Loss"))
    actions = []
    for l in lines:
        m = ACTION.search(l)
        if m:
            day, hh, mm, ss, link, value, rule = m.groups()
            assert day == "01/01/2020", l
            actions.append([int(hh) * 3600 + int(mm) * 60 + int(ss), link, float(value), rule])
    h = output.init()
    output.open(h, out)
    periods = output.get_times(h, shared_enum.Time.NUM_PERIODS)
    settings = {}
    # Link order in the output: C1, P1, OR1, then W1 or OU1 (conduits, pumps, orifices, weirs, outlets).
    extra = {"OUTLET": "OU1", "WEIR": "W1"}.get(os.path.basename(path)[:-4])
    links = [(1, "P1"), (2, "OR1")] + ([(3, extra)] if extra else [])
    for k, name in links:
        settings[name] = list(output.get_link_series(h, k, shared_enum.LinkAttribute.CAPACITY, 0, periods - 1))
    output.close(h)
    return {"actions": actions, "settings": settings, "report_step_s": 60, "flooding_m3": flooding}


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    result = {}
    for case in CASES:
        path = os.path.join(OUT, case + ".inp")
        open(path, "w").write(model_text(case))
        result[case] = run(path)
        r = result[case]
        print(f"{case:20} {len(r['actions'])} actions, P1 setting max {max(r['settings']['P1']):.3f}, "
              f"flooded {r['flooding_m3']:.1f} m3")
    with open(os.path.join(OUT, "controls.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)

"""Input files SWMM 5.2.4 (swmm-toolkit 0.17.0) refuses, one rule each, for the tests that check
CityTwin refuses the same files with the same SWMM error number (SWMMValidationTests).

Writes Tests/FloodSimTests/Fixtures/swmm/errors/<case>.inp and errors.json
({case: {"error": N, "section": S, "field": F}}) after running SWMM on each file and checking it
stops with exactly that error (and that the unchanged base model, ok.inp, runs).

Run: .venv/bin/python Scripts/reference/make_swmm_error_fixtures.py
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import run_quietly  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "errors")

BASE = """[TITLE]
One subcatchment, one junction, one conduit, one outfall: the base of the SWMM error cases.

[OPTIONS]
FLOW_UNITS CMS
INFILTRATION {method}
FLOW_ROUTING DYNWAVE
START_DATE 01/01/2020
START_TIME 00:00:00
END_DATE {end}
END_TIME 01:00:00
REPORT_STEP 00:05:00
ROUTING_STEP 5

[RAINGAGES]
RG1 INTENSITY 0:05 1 TIMESERIES R1

[SUBCATCHMENTS]
S1 RG1 J1 1 50 100 1 0

[SUBAREAS]
S1 0.01 0.1 0.05 0.05 25 OUTLET

[INFILTRATION]
S1 {infil}

[JUNCTIONS]
J1 10 2 {init}

[OUTFALLS]
O1 9 FREE

[CONDUITS]
C1 J1 O1 100 {n} 0 0
{extra}
[XSECTIONS]
C1 CIRCULAR 0.5 0 0 0 1
{xsect}
[TIMESERIES]
R1 0 10
R1 {t2} 0
"""
DEFAULTS = dict(method="GREEN_AMPT", infil="100 10 0.3", init="0", n="0.013", end="01/01/2020", t2="1", extra="", xsect="")
STORAGE = dict(extra="C3 ST1 O1 50 0.013 0 0\n\n[STORAGE]\nST1 9.5 2 {init} {shape}\n{curves}", xsect="C3 CIRCULAR 0.5 0 0 0 1")

CASES = {
    # name: (SWMM error, section, field, changes)
    "error235_green_ampt_deficit_above_1": (235, "INFILTRATION", "IMD", dict(infil="100 10 4")),
    "error235_green_ampt_negative_deficit": (235, "INFILTRATION", "IMD", dict(infil="100 10 -0.1")),
    "error235_green_ampt_zero_conductivity": (235, "INFILTRATION", "Ksat", dict(infil="100 0 0.3")),
    "error235_green_ampt_negative_suction": (235, "INFILTRATION", "Suction", dict(infil="-1 10 0.3")),
    "error235_modified_green_ampt_deficit_above_1": (235, "INFILTRATION", "IMD", dict(method="MODIFIED_GREEN_AMPT", infil="100 10 1.01")),
    "error235_horton_max_below_min": (235, "INFILTRATION", "MaxRate", dict(method="HORTON", infil="10 50 4 7 0")),
    "error235_modified_horton_max_below_min": (235, "INFILTRATION", "MaxRate", dict(method="MODIFIED_HORTON", infil="10 50 4 7 0")),
    "error235_horton_negative_decay": (235, "INFILTRATION", "Decay", dict(method="HORTON", infil="50 10 -4 7 0")),
    "error235_horton_negative_dry_time": (235, "INFILTRATION", "DryTime", dict(method="HORTON", infil="50 10 4 -7 0")),
    "error235_horton_negative_max_volume": (235, "INFILTRATION", "MaxInfil", dict(method="HORTON", infil="50 10 4 7 -1")),
    "error235_curve_number_zero_dry_time": (235, "INFILTRATION", "DryTime", dict(method="CURVE_NUMBER", infil="80 0 0")),
    "error113_zero_roughness": (113, "CONDUITS", "Roughness", dict(n="0")),
    "error113_negative_roughness": (113, "CONDUITS", "Roughness", dict(n="-0.01")),
    "error138_junction_initial_depth_above_max": (138, "JUNCTIONS", "InitDepth", dict(init="3")),
    "error138_storage_initial_depth_above_max": (138, "STORAGE", "InitDepth",
                                                  dict(STORAGE, shape="FUNCTIONAL 10 0 100 0 0", curves="", sinit="3")),
    "error171_storage_curve_out_of_sequence": (171, "CURVES", "X-Value",
                                               dict(STORAGE, shape="TABULAR SC1 0 0", curves="\n[CURVES]\nSC1 STORAGE 0 10 1 20 0.5 30\n")),
    "error171_storage_curve_repeated_depth": (171, "CURVES", "X-Value",
                                              dict(STORAGE, shape="TABULAR SC1 0 0", curves="\n[CURVES]\nSC1 STORAGE 0 10 1 20 1 30\n")),
    "error173_time_series_repeated_time": (173, "TIMESERIES", "Time", dict(t2="0")),
    "error173_time_series_going_back": (173, "TIMESERIES", "Time", dict(t2="-1")),
    "error191_end_before_start": (191, "OPTIONS", "END_DATE", dict(end="12/31/2019")),
}


def text(changes):
    p = dict(DEFAULTS)
    p.update(changes)
    if "{init}" in p["extra"]:
        p["extra"] = p["extra"].format(init=p.pop("sinit", "0"), shape=p.pop("shape"), curves=p.pop("curves"))
    return BASE.format(**{k: v for k, v in p.items() if k in DEFAULTS})


def swmm_errors(path):
    rpt, _, _ = run_quietly(path)
    return sorted({int(n) for n in re.findall(r"ERROR (\d+)", open(rpt).read())})


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    ok = os.path.join(OUT, "ok.inp")
    open(ok, "w").write(text({}))
    assert swmm_errors(ok) == [], "the base model must run in SWMM"
    expected = {}
    for name, (error, section, field, changes) in CASES.items():
        path = os.path.join(OUT, name + ".inp")
        open(path, "w").write(text(changes))
        got = swmm_errors(path)
        assert got == [error], f"{name}: SWMM reports {got}, expected [{error}]"
        expected[name] = {"error": error, "section": section, "field": field}
        print(name, "SWMM ERROR", error)
    with open(os.path.join(OUT, "errors.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)

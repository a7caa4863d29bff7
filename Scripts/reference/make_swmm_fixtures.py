"""Runs EPA SWMM 5.2.4 (swmm-toolkit 0.17.0) on the EPA example models in
Tests/FloodSimTests/Fixtures/swmm/ and writes <model>.reference.json next to them, in the SI JSON
shape of `citytwin simulate drainage MODEL.inp --json`:

  {"runoff_continuity": {"rainfall_m3", "runoff_m3", "error_pct"},
   "routing_continuity": {"inflow_m3", "flooding_m3", "outflow_m3", "error_pct"},
   "nodes": {"<id>": {"max_depth_m", "hours_flooded", "max_flood_rate_m3s", "flood_volume_m3"}},
   "links": {"<id>": {"max_flow_m3s", "max_velocity_ms"}}}

Values come from SWMM's .rpt summary tables, except each node's maximum depth: the report prints it
to 0.01 ft or 0.01 m, which is more than 5 % of a junction a few centimetres deep (Example3's
KRO1015, 0.0442 ft, is printed 0.04 ft: -10 % before any engine answers), so max_depth_m is SWMM's
own maximum at full precision (`exact_max_depths`, the largest depth over its routing steps). Also writes the DYNWAVE variant of Example1
(Example1-dynwave.inp, shared/reference/flood.md §5.1).

Run: .venv/bin/python Scripts/reference/make_swmm_fixtures.py
"""
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile

from swmm.toolkit import shared_enum, solver

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm")
MODELS = ["Example1", "Example1-dynwave", "Example2", "extran1", "Example3", "extran10", "Example6"]

FT = 0.3048
FT3 = FT ** 3
US_FLOW = {"CFS": 0.028316846592, "GPM": 0.028316846592 / 448.831, "MGD": 0.028316846592 * 1.547229}
SI_FLOW = {"CMS": 1.0, "LPS": 0.001, "MLD": 1.0 / 86.4}


def make_dynwave_variant():
    src = os.path.join(FIXTURES, "Example1.inp")
    dst = os.path.join(FIXTURES, "Example1-dynwave.inp")
    text = open(src).read()
    text = re.sub(r"FLOW_ROUTING\s+KINWAVE", "FLOW_ROUTING         DYNWAVE", text)
    open(dst, "w").write(text)


def run_quietly(inp):
    """Runs SWMM on `inp` in a fresh scratch directory with its progress lines (printed on the
    C-level stdout) kept off ours; returns (report path, binary output path, SWMM's exception or None)."""
    work = tempfile.mkdtemp()
    rpt, out = os.path.join(work, "x.rpt"), os.path.join(work, "x.out")
    saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        solver.swmm_run(inp, rpt, out)
        return rpt, out, None
    except Exception as e:  # swmm-toolkit raises on any SWMM error code
        return rpt, out, e
    finally:
        os.dup2(saved, 1)
        os.close(devnull)


@contextlib.contextmanager
def stepped_run(inp):
    """SWMM 5.2.4 opened on `inp` and started, for the caller to step (`solver.swmm_step()`) and read
    results; in a scratch directory, SWMM's progress lines kept off our stdout. Ended and closed when
    the block ends normally; the directory, stdout and working directory restored in every case."""
    path = os.path.abspath(inp)
    work = tempfile.mkdtemp()
    saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    here = os.getcwd()
    os.chdir(work)
    try:
        solver.swmm_open(path, os.path.join(work, "x.rpt"), os.path.join(work, "x.out"))
        solver.swmm_start(True)
        yield
        solver.swmm_end()
        solver.swmm_close()
    finally:
        os.chdir(here)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
        shutil.rmtree(work, ignore_errors=True)


def exact_max_depths(inp, length):
    """Each node's maximum depth (m) as SWMM 5.2.4 reaches it, at full precision: the largest
    depth after any routing step of a step-by-step run (SWMM's node statistics take the same
    maximum; swmm-toolkit's node_get_stats crashes on some models, Example4's outfall); `length`
    converts the model's length unit to metres. The run happens in a scratch directory,
    progress lines kept off our stdout."""
    with stepped_run(inp):
        kind = shared_enum.ObjectType.NODE
        count = solver.project_get_count(kind)
        deepest = [0.0] * count
        while solver.swmm_step() > 0:
            for i in range(count):
                deepest[i] = max(deepest[i], solver.node_get_result(i, shared_enum.NodeResult.DEPTH))
        depths = {solver.project_get_id(kind, i): deepest[i] * length for i in range(count)}
        return depths


def table(lines, title):
    """Data rows (token lists) of a .rpt summary table, found by its title."""
    for i, line in enumerate(lines):
        if line.strip() == title:
            rows, started, dashes = [], False, 0
            for l in lines[i + 1:]:
                if l.strip().startswith("---"):
                    dashes += 1
                    if dashes == 2:
                        started = True
                    continue
                if started:
                    if not l.strip():
                        break
                    rows.append(l.split())
            return rows
    return []


def continuity(lines, title):
    values = {}
    for i, line in enumerate(lines):
        if line.strip().startswith(title):
            for l in lines[i + 1:i + 20]:
                m = re.match(r"\s*(.+?)\s*\.{3,}\s+(-?\d[\d.]*)\s*(-?\d[\d.]*)?", l)
                if m:
                    values[m.group(1).strip()] = (float(m.group(2)), float(m.group(3)) if m.group(3) else None)
                elif l.strip().startswith("*") and values:
                    break
            break
    return values


def run(name):
    inp = os.path.join(FIXTURES, name + ".inp")
    work = tempfile.mkdtemp()
    rpt, out = os.path.join(work, name + ".rpt"), os.path.join(work, name + ".out")
    solver.swmm_run(inp, rpt, out)
    result = summarize(rpt, inp)
    with open(os.path.join(FIXTURES, name + ".reference.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    shutil.rmtree(work)
    print(name, "flooding m3", round(result["routing_continuity"]["flooding_m3"], 1))


def summarize(rpt, inp=None):
    """A SWMM .rpt's continuity and node/link summaries in the SI JSON shape above (also used by
    swmm_examples_inventory.py); given the model `inp`, node maximum depths at full precision
    (`exact_max_depths`) instead of the report's two decimals."""
    lines = open(rpt).read().splitlines()
    units = next((l.split()[-1] for l in lines if "Flow Units" in l), "CFS")
    us = units in US_FLOW
    q = US_FLOW.get(units) or SI_FLOW[units]
    length = FT if us else 1.0
    # Continuity tables give volumes in acre-feet / 10^6 gal (US) or hectare-metres / 10^6 L (SI):
    # use the first column (acre-ft or ha-m).
    vol = 1233.48183754752 if us else 10000.0
    rc = continuity(lines, "Runoff Quantity Continuity")
    fc = continuity(lines, "Flow Routing Continuity")
    rain = rc.get("Total Precipitation", (0, 0))[0] * vol
    runoff = rc.get("Surface Runoff", (0, 0))[0] * vol
    inflow = sum(fc.get(k, (0, 0))[0] for k in ["Dry Weather Inflow", "Wet Weather Inflow", "Groundwater Inflow",
                                                 "RDII Inflow", "External Inflow"]) * vol
    result = {
        "runoff_continuity": {"rainfall_m3": rain, "runoff_m3": runoff,
                              "error_pct": rc.get("Continuity Error (%)", (0, 0))[0]},
        "routing_continuity": {"inflow_m3": inflow, "flooding_m3": fc.get("Flooding Loss", (0, 0))[0] * vol,
                               "outflow_m3": fc.get("External Outflow", (0, 0))[0] * vol,
                               "error_pct": fc.get("Continuity Error (%)", (0, 0))[0]},
        "nodes": {}, "links": {},
    }
    for row in table(lines, "Node Depth Summary"):
        result["nodes"][row[0]] = {"max_depth_m": float(row[3]) * length, "hours_flooded": 0.0,
                                   "max_flood_rate_m3s": 0.0, "flood_volume_m3": 0.0}
    if inp is not None:
        for node, depth in exact_max_depths(inp, length).items():
            if node in result["nodes"]:
                result["nodes"][node]["max_depth_m"] = depth
    # Node Flooding Summary: Node, Hours Flooded, Max Rate, day, hr:min, Total Flood Volume (10^6 gal or 10^6 L), ...
    flood_vol = 3785.411784 if us else 1000.0
    for row in table(lines, "Node Flooding Summary"):
        if len(row) < 6:  # "No nodes were flooded."
            continue
        n = result["nodes"].setdefault(row[0], {"max_depth_m": 0.0})
        n["hours_flooded"] = float(row[1])
        n["max_flood_rate_m3s"] = float(row[2]) * q
        n["flood_volume_m3"] = float(row[5]) * flood_vol
    for row in table(lines, "Link Flow Summary"):
        # Link, Type, Max |Flow|, day, hr:min, Max |Veloc| (conduits only), ...
        entry = {"max_flow_m3s": float(row[2]) * q, "max_velocity_ms": 0.0}
        if row[1] == "CONDUIT" and len(row) > 5:
            entry["max_velocity_ms"] = float(row[5]) * length
        result["links"][row[0]] = entry
    return result


if __name__ == "__main__":
    make_dynwave_variant()
    for m in sys.argv[1:] or MODELS:  # the models named on the command line, or all
        run(m)

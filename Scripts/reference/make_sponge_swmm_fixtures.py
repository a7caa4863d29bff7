"""EPA SWMM 5.2.4's own continuous run (swmm-toolkit 0.17.0) of a model over a real daily rainfall
record: the reference `citytwin sponge evaluate` must match within 1 percentage point of capture rate.

Model: Tests/SpongeTests/Fixtures/sponge-example1.inp, written here from EPA's Example1
(Tests/FloodSimTests/Fixtures/swmm/Example1.inp; 8 subcatchments, Horton infiltration, US units) with
  - evaporation of 0.1 in/day, so ponded water dries between events;
  - subcatchment 3 draining onto subcatchment 4 (run-on);
  - subcatchments 5 and 6 tagged as drainage zone `north` ([TAGS] Subcatch), the rest zoned by outfall.
Record: Tests/SpongeTests/Fixtures/seattle-weather-daily.csv (make_sponge_fixtures.py: NOAA's daily
rainfall at Seattle 2012-2015, public domain); days marked snow get no rain.

SWMM runs the model with every rain gage reading the record as a 24 h VOLUME series from the first day
to the day after the last, routing switched off (IGNORE_ROUTING: the capture rate is the land's). From
its report's Subcatchment Runoff Summary (Total Precip, Total Runon, Total Runoff, depths) this writes
sponge-example1.reference.json: each subcatchment's capture 1 - runoff / (precip + runon), each zone's
and the model's 1 - (runoff leaving for nodes) / rain, as volumes (depth x area). Zones are found here
on their own: a tag, else breadth-first along the links from the outlet node to an outfall.

With LID controls: sponge-example1-lid.inp is the same model with a plan of seven LID kinds
(`LID_PLAN`: bio-retention, permeable pavement, rain barrels, an infiltration trench, a green roof,
a vegetative swale, rooftop disconnection; US units) and sponge-example1-lid.reference.json the
same figures from SWMM's run of it (a subcatchment's Total Runoff then counts its LID underdrain
flow), which `sponge evaluate --with-lid` must match within 1 percentage point.

Run: .venv/bin/python Scripts/reference/make_sponge_swmm_fixtures.py
"""
import csv
import json
import os
import re
import tempfile
from collections import deque

from swmm.toolkit import solver

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
FIXTURES = os.path.join(ROOT, "Tests", "SpongeTests", "Fixtures")
EXAMPLE1 = os.path.join(ROOT, "Tests", "FloodSimTests", "Fixtures", "swmm", "Example1.inp")


def section_lines(text, name):
    m = re.search(r"^\[" + re.escape(name) + r"\]\s*\n(.*?)(?=^\[|\Z)", text, re.S | re.M | re.I)
    if not m:
        return []
    return [l.split() for l in m.group(1).splitlines() if l.strip() and not l.strip().startswith(";")]


def replace_section(text, name, body):
    return re.sub(r"^\[" + re.escape(name) + r"\]\s*\n.*?(?=^\[|\Z)", "[" + name + "]\n" + body + "\n\n", text, count=1, flags=re.S | re.M | re.I)


def write_model():
    text = open(EXAMPLE1).read()
    text = replace_section(text, "EVAPORATION", "CONSTANT         0.1\nDRY_ONLY         NO")
    text = re.sub(r"^3(\s+)RG1(\s+)13(\s)", r"3\1RG1\g<2>4 \3", text, count=1, flags=re.M)
    text = replace_section(text, "TAGS", "Subcatch  5  north\nSubcatch  6  north")
    path = os.path.join(FIXTURES, "sponge-example1.inp")
    open(path, "w").write(text)
    return text


LID_PLAN = """[LID_CONTROLS]
BioCell BC
BioCell SURFACE 6 0.1 0.1 1.0 5
BioCell SOIL 18 0.5 0.2 0.1 0.5 10 3.5
BioCell STORAGE 12 0.75 0.2 0
BioCell DRAIN 0.1 0.5 6 6
Pave PP
Pave SURFACE 0.2 0 0.02 1.0 5
Pave PAVEMENT 4 0.15 0 100 0
Pave STORAGE 12 0.75 0.1 0
Pave DRAIN 0.5 0.5 2 6
Barrel RB
Barrel STORAGE 36 0.75 0 0
Barrel DRAIN 1 0.5 0 12
Trench IT
Trench SURFACE 2 0 0.24 0.4 5
Trench STORAGE 36 0.4 0.3 0
Trench DRAIN 0 0.5 0 6
Roof GR
Roof SURFACE 1 0 0.1 1.0 5
Roof SOIL 4 0.5 0.3 0.1 2 10 2
Roof DRAINMAT 1 0.5 0.1
Swale VS
Swale SURFACE 12 0.1 0.24 1.0 5
Discon RD
Discon SURFACE 0.1 0 0.015 1.0 0
Discon DRAIN 1 0 0 0

[LID_USAGE]
1 BioCell 10 500 10 0 30 0
2 Pave 1 20000 100 0 20 0
3 Barrel 50 5 0 0 10 1
4 Trench 4 400 20 0 25 0
5 Roof 1 30000 100 0 0 0
5 Discon 1 20000 80 0 0 0
6 Swale 1 10000 20 0 30 0
"""


def record():
    rows = list(csv.DictReader(open(os.path.join(FIXTURES, "seattle-weather-daily.csv"), newline="")))
    return [(r["date"], 0.0 if r["weather"] == "snow" else float(r["precipitation"])) for r in rows]


def swmm_date(iso):
    y, m, d = iso.replace("/", "-").split("-")
    return f"{m}/{d}/{y}"


def run_swmm(model_text, days, units_per_mm=1 / 25.4):
    import datetime
    first = datetime.date.fromisoformat(days[0][0].replace("/", "-"))
    last = datetime.date.fromisoformat(days[-1][0].replace("/", "-"))
    end = last + datetime.timedelta(days=1)
    text = model_text
    gages = section_lines(text, "RAINGAGES")
    text = replace_section(text, "RAINGAGES", "\n".join(f"{g[0]} VOLUME 24:00 1.0 TIMESERIES SPONGE_RECORD" for g in gages))
    series = "\n".join(f"SPONGE_RECORD {swmm_date(d)} 00:00 {mm * units_per_mm:.10g}" for d, mm in days)  # Example1 is in inches
    text = re.sub(r"^\[TIMESERIES\]\s*\n", "[TIMESERIES]\n" + series + "\n", text, count=1, flags=re.M)
    opts = {"START_DATE": first.strftime("%m/%d/%Y"), "START_TIME": "00:00:00", "END_DATE": end.strftime("%m/%d/%Y"),
            "END_TIME": "00:00:00", "REPORT_START_DATE": first.strftime("%m/%d/%Y"), "REPORT_START_TIME": "00:00:00",
            "IGNORE_ROUTING": "YES"}
    lines = [l for l in section_lines(text, "OPTIONS") if l[0].upper() not in opts]
    body = "\n".join(" ".join(l) for l in lines) + "\n" + "\n".join(f"{k} {v}" for k, v in opts.items())
    text = replace_section(text, "OPTIONS", body)
    with tempfile.TemporaryDirectory() as tmp:
        inp, rpt, out = (os.path.join(tmp, "m." + e) for e in ("inp", "rpt", "out"))
        open(inp, "w").write(text)
        # SWMM writes its progress to the process's stdout: keep it off the reference's own output.
        saved = os.dup(1)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        try:
            solver.swmm_run(inp, rpt, out)
        finally:
            os.dup2(saved, 1)
        return open(rpt).read()


def runoff_summary(report):
    block = report.split("Subcatchment Runoff Summary")[1].split("\n\n  ***")[0]
    rows = {}
    for line in block.splitlines():
        parts = line.split()
        if len(parts) == 11 and not parts[0].startswith("-"):
            try:
                v = [float(x) for x in parts[1:]]
            except ValueError:
                continue
            rows[parts[0]] = {"precip": v[0], "runon": v[1], "runoff": v[6]}
    return rows


def zones(model_text):
    tags = {l[1]: l[2] for l in section_lines(model_text, "TAGS") if l[0].lower() == "subcatch"}
    outfalls = {l[0] for l in section_lines(model_text, "OUTFALLS")}
    down = {}
    for kind in ("CONDUITS", "PUMPS", "ORIFICES", "WEIRS", "OUTLETS"):
        for l in section_lines(model_text, kind):
            down.setdefault(l[1], []).append(l[2])
    subs = {l[0]: l[2] for l in section_lines(model_text, "SUBCATCHMENTS")}

    def from_node(n):
        q, seen = deque([n]), {n}
        while q:
            x = q.popleft()
            if x in outfalls:
                return "outfall " + x
            for y in down.get(x, []):
                if y not in seen:
                    seen.add(y)
                    q.append(y)
        return "node " + n

    def zone(s):
        if s in tags:
            return tags[s]
        out = subs[s]
        return zone(out) if out in subs else from_node(out)

    return {s: zone(s) for s in subs}


def reference_of(text, days, fixture):
    rows = runoff_summary(run_swmm(text, days))
    areas = {l[0]: float(l[3]) for l in section_lines(text, "SUBCATCHMENTS")}
    outlets = {l[0]: l[2] for l in section_lines(text, "SUBCATCHMENTS")}
    zone_of = zones(text)
    subs = {}
    for name, r in rows.items():
        subs[name] = {"zone": zone_of[name], "precip_in": r["precip"], "runon_in": r["runon"], "runoff_in": r["runoff"],
                      "capture_rate": 1 - r["runoff"] / (r["precip"] + r["runon"])}
    groups = {}
    for name in rows:
        groups.setdefault(zone_of[name], []).append(name)
    groups["model"] = list(rows)

    def capture(members):
        rain = sum(rows[s]["precip"] * areas[s] for s in members)
        off = sum(rows[s]["runoff"] * areas[s] for s in members if outlets[s] not in rows)
        return 1 - off / rain

    reference = {"subcatchments": subs, "zones": {z: capture(m) for z, m in groups.items() if z != "model"},
                 "model": capture(groups["model"])}
    with open(os.path.join(FIXTURES, fixture + ".reference.json"), "w") as f:
        json.dump(reference, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(reference, indent=1, sort_keys=True))


def main():
    text = write_model()
    days = record()
    reference_of(text, days, "sponge-example1")
    with_lid = text + "\n" + LID_PLAN
    open(os.path.join(FIXTURES, "sponge-example1-lid.inp"), "w").write(with_lid)
    reference_of(with_lid, days, "sponge-example1-lid")


if __name__ == "__main__":
    main()

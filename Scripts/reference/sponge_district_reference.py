"""EPA SWMM 5.2.4's own continuous run (swmm-toolkit) of a model over the first days of a daily
rainfall CSV: the reference the district's `sponge-evaluate` answer is held to (DistrictSpongeTests),
computed at test time because the model is the one the store's layers make.

Same method as make_sponge_swmm_fixtures.py (whose functions it uses): every rain gage reads the
record as a 24 h VOLUME series, routing ignored, capture rates from SWMM's Subcatchment Runoff Summary
as volumes; zones found here on their own (a [TAGS] tag, else breadth-first along the links to an
outfall). Depths are converted to the model's units (mm in an SI model, inches in a US one).

Run: .venv/bin/python Scripts/reference/sponge_district_reference.py MODEL.inp RECORD.csv DAYS
Prints {"model": rate, "zones": {zone: rate}, "subcatchments": {name: rate}} as JSON.
"""
import csv
import json
import sys

import make_sponge_swmm_fixtures as ref


def main():
    inp, record, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    text = open(inp).read()
    rows = list(csv.DictReader(open(record, newline="")))[:count]
    days = [(r["date"], float(r["precipitation"])) for r in rows]
    flow = {l[0].upper(): l[1].upper() for l in ref.section_lines(text, "OPTIONS")}.get("FLOW_UNITS", "CFS")
    per_mm = 1.0 if flow in ("CMS", "LPS", "MLD") else 1 / 25.4
    summary = ref.runoff_summary(ref.run_swmm(text, days, units_per_mm=per_mm))
    areas = {l[0]: float(l[3]) for l in ref.section_lines(text, "SUBCATCHMENTS")}
    outlets = {l[0]: l[2] for l in ref.section_lines(text, "SUBCATCHMENTS")}
    zone_of = ref.zones(text)
    groups = {}
    for name in summary:
        groups.setdefault(zone_of[name], []).append(name)

    def capture(members):
        rain = sum(summary[s]["precip"] * areas[s] for s in members)
        off = sum(summary[s]["runoff"] * areas[s] for s in members if outlets[s] not in summary)
        return 1 - off / rain

    print(json.dumps({"model": capture(list(summary)), "zones": {z: capture(m) for z, m in groups.items()},
                      "subcatchments": {s: 1 - r["runoff"] / (r["precip"] + r["runon"]) for s, r in summary.items()}}, sort_keys=True))


if __name__ == "__main__":
    main()

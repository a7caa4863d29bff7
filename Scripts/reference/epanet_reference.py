"""What wntr (the EPA/Sandia Water Network Tool for Resilience) reads from an EPANET .inp file, as
JSON in SI units, for Tests/EPANETFormatTests to compare CityTwin's reader against.

    .venv/bin/python Scripts/reference/epanet_reference.py NETWORK.inp > reference.json
    .venv/bin/python Scripts/reference/epanet_reference.py --library   # the .inp files wntr ships, one per line

Units as CityTwin keeps them: m, mm (pipe and valve diameters), L/s, kW; wntr's own are m, m, m³/s, W.
"""
import json
import os
import sys

import wntr


def library():
    base = os.path.join(os.path.dirname(wntr.__file__), "library", "networks")
    return sorted(os.path.join(base, f) for f in os.listdir(base) if f.endswith(".inp"))


def reference(path):
    wn = wntr.network.WaterNetworkModel(path)
    out = {"junctions": {}, "reservoirs": {}, "tanks": {}, "pipes": {}, "pumps": {}, "valves": {},
           "coordinates": {}, "vertices": {}, "headloss": wn.options.hydraulic.headloss}
    for name, j in wn.junctions():
        base = sum(d.base_value for d in j.demand_timeseries_list) * 1000.0
        out["junctions"][name] = [j.elevation, base]
    for name, r in wn.reservoirs():
        out["reservoirs"][name] = [r.base_head]
    for name, t in wn.tanks():
        out["tanks"][name] = [t.elevation, t.init_level, t.min_level, t.max_level, t.diameter, t.min_vol]
    for name, p in wn.pipes():
        status = "CV" if p.check_valve else str(p.initial_status).upper()
        out["pipes"][name] = [p.start_node_name, p.end_node_name, p.length, p.diameter * 1000.0, p.roughness, p.minor_loss, status]
    for name, p in wn.pumps():
        curve = getattr(p, "pump_curve_name", None)
        power = getattr(p, "power", None)
        out["pumps"][name] = [p.start_node_name, p.end_node_name, curve, power / 1000.0 if power is not None else None]
    for name, v in wn.valves():
        setting = v.initial_setting
        if v.valve_type == "FCV":
            setting = setting * 1000.0
        out["valves"][name] = [v.start_node_name, v.end_node_name, v.diameter * 1000.0, v.valve_type,
                               None if v.valve_type == "GPV" else setting]
    for name, node in wn.nodes():
        if node.coordinates is not None:
            out["coordinates"][name] = list(node.coordinates)
    for name, link in wn.links():
        if link.vertices:
            out["vertices"][name] = [list(v) for v in link.vertices]
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--library"]:
        print("\n".join(library()))
    else:
        json.dump(reference(sys.argv[1]), sys.stdout)

"""The gas network (issue 52 §6): the sample district's gas mains, valves, regulators and customers
are served as layers of their own, and `valve-isolation` with `network: gas` over OGC API Processes
closes, for every gas main, the valve-bounded segment wntr's own segmentation
(`wntr.metrics.valve_segments`, a networkx graph algorithm independent of CityTwin's) finds on the
same mains and valves, fetched through the Features API as the gas company (城市管理执法委员会)."""

import os
import subprocess

import networkx as nx
import pandas as pd
import pytest
import requests
from conftest import every_feature
import wntr

OWNER = "城市管理执法委员会"


@pytest.fixture(scope="module")
def gas_token() -> str:
    made = subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--department", OWNER, "--role", "viewer",
                           "--subject", "gas-isolation-test", "--store", os.environ["CITYTWIN_CLIENT_STORE"]],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()




@pytest.fixture(scope="module")
def gas(base_url, gas_token):
    mains = every_feature(base_url, gas_token, "gas_mains")
    valves = every_feature(base_url, gas_token, "gas_valves")
    nodes = every_feature(base_url, gas_token, "gas_nodes")
    assert mains and valves and nodes
    graph = nx.MultiDiGraph()
    for n in nodes:
        graph.add_node(str(n["id"]))
    for m in mains:
        p = m["properties"]
        graph.add_edge(p["from_node"], p["to_node"], key=str(m["id"]))
    layer = pd.DataFrame([{"link": v["properties"]["main"], "node": v["properties"]["near_node"]} for v in valves],
                         index=[str(v["id"]) for v in valves])
    _, link_segments, _ = wntr.metrics.valve_segments(graph, layer)
    members = {}
    for link, segment in link_segments.items():
        members.setdefault(segment, set()).add(str(link))
    return mains, nodes, link_segments, members


def test_the_gas_layers_are_served_with_their_pressure_classes_and_sources(base_url, gas_token, gas):
    mains, nodes, _, _ = gas
    classes = {m["properties"]["pressure_class"] for m in mains}
    assert {"次高压A", "中压A", "中压B"} <= classes, classes
    assert [n["id"] for n in nodes if n["properties"]["node_type"] == "门站"] == ["GN-S01"]
    regulators = every_feature(base_url, gas_token, "gas_regulators")
    assert regulators and all(r["properties"]["inlet_class"] != r["properties"]["outlet_class"] for r in regulators)
    # The customers' names and phones are masked for anyone but the gas company.
    anonymous = requests.get(f"{base_url}/collections/gas_customers/items", params={"limit": 1}, timeout=30)
    assert anonymous.status_code in (401, 403, 404), anonymous.status_code


def test_isolating_each_gas_main_closes_the_segment_wntr_finds(base_url, gas_token, gas):
    mains, _, link_segments, members = gas
    differ = []
    for m in mains:
        r = requests.post(f"{base_url}/processes/valve-isolation/execution",
                          json={"inputs": {"network": "gas", "main": str(m["id"])}},
                          headers={"Authorization": f"Bearer {gas_token}"}, timeout=120)
        assert r.status_code == 200, r.text[:500]
        ours = set(r.json()["segment_mains"])
        theirs = members[link_segments[str(m["id"])]]
        if ours != theirs:
            differ.append((m["id"], sorted(ours ^ theirs)))
    assert not differ, f"{len(differ)} of {len(mains)} gas mains isolate another segment than wntr's: {differ[:5]}"


def test_a_burst_feeder_cuts_off_no_one_but_the_transmission_main_cuts_off_the_city(base_url, gas_token):
    def isolate(main):
        r = requests.post(f"{base_url}/processes/valve-isolation/execution",
                          json={"inputs": {"network": "gas", "main": main}},
                          headers={"Authorization": f"Bearer {gas_token}"}, timeout=120)
        assert r.status_code == 200, r.text[:500]
        return r.json()
    # Two 中压A feeders leave the regulator station: losing one keeps the grid fed.
    feeder = isolate("GM-F01")
    assert feeder["customers_cut_off"] == [] and "GM-F02" not in feeder["mains_cut_off"], feeder["counts"]
    # The one 次高压A main from the city gate station feeds everything.
    trunk = isolate("GM-T01")
    assert trunk["counts"]["customers_cut_off"] > 1000, trunk["counts"]
    # A gas main is not a water main: the water network does not know it.
    wrong = requests.post(f"{base_url}/processes/valve-isolation/execution",
                          json={"inputs": {"network": "water", "main": "GM-T01"}},
                          headers={"Authorization": f"Bearer {gas_token}"}, timeout=60)
    assert wrong.status_code in (400, 403), wrong.text[:300]

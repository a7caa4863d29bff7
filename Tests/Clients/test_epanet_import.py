"""An EPANET model a water utility holds, imported as the water-supply layers (issue 52 §6):
wntr's Net3 (EPA's public-domain example network, as wntr 1.5 ships it) with an isolation-valve
layer wntr generates (N-2 strategic placement), and `citytwin network isolate` on every pipe answers
the valve-bounded segment wntr's own segmentation (`wntr.metrics.valve_segments`) gives it."""

import json
import os
import subprocess

import pytest
import wntr

BIN = os.environ.get("CITYTWIN_CLIENT_BIN", "")
NET3 = os.path.join(os.path.dirname(wntr.__file__), "library", "networks", "Net3.inp")


def citytwin(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def net3(tmp_path_factory):
    """Net3 and its valves in a fresh store; wntr's model, valve layer and link segments."""
    tmp = tmp_path_factory.mktemp("net3")
    wn = wntr.network.WaterNetworkModel(NET3)
    valves = wntr.network.generate_valve_layer(wn, "strategic", 2, seed=123)
    table = tmp / "valves.csv"
    valves.to_csv(table)
    store = tmp / "water.sqlite"
    done = citytwin("import", NET3, "--valves", str(table), "--origin", "114.30,30.60", "--store", str(store))
    assert done.returncode == 0, done.stderr + done.stdout
    empty = tmp / "connections.geojson"
    empty.write_text('{"type": "FeatureCollection", "features": []}')
    assert citytwin("import", str(empty), "--layer", "water_connections", "--store", str(store)).returncode == 0
    _, link_segments, _ = wntr.metrics.valve_segments(wn.to_graph(), valves)
    return wn, valves, store, done.stdout, link_segments


def test_every_node_link_and_valve_lands_in_its_layer(net3):
    wn, valves, store, output, _ = net3
    assert f"Imported {wn.num_junctions + wn.num_reservoirs + wn.num_tanks} features into water_nodes" in output
    assert f"Imported {wn.num_pipes + wn.num_pumps + wn.num_valves} features into water_mains" in output
    assert f"Imported {len(valves)} features into water_valves" in output


def test_isolating_each_pipe_closes_the_segment_wntr_finds(net3):
    wn, _, store, _, link_segments = net3
    members = {}
    for link, segment in link_segments.items():
        members.setdefault(segment, set()).add(str(link))
    differ = []
    for name in wn.pipe_name_list:
        run = citytwin("network", "isolate", "--main", name, "--store", str(store))
        assert run.returncode == 0, run.stderr
        ours = set(json.loads(run.stdout)["segment_mains"])
        theirs = members[link_segments[name]]
        if ours != theirs:
            differ.append((name, sorted(ours ^ theirs)))
    assert not differ, f"{len(differ)} of {wn.num_pipes} pipes isolate another segment than wntr's: {differ[:5]}"

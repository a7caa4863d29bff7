"""QGIS 3.22 (Debian python3-qgis) adds the WMS and WMTS layers of the live server and draws them:
the roads over the district, nothing far from it (Tests/Clients/qgis_ows_client.py, in Debian's Python)."""

import json
import os
import subprocess

import pytest

SYSTEM_PYTHON = "/usr/bin/python3"
CLIENT = os.path.join(os.path.dirname(__file__), "qgis_ows_client.py")
DISTRICT_CENTRE = (114.80, 30.84)
FAR_FROM_DISTRICT = (114.60, 30.64)


def qgis(*args: str) -> dict:
    done = subprocess.run([SYSTEM_PYTHON, CLIENT, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"QGIS client exited {done.returncode}:\n{done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kind", ["wms", "wmts"])
def test_qgis_adds_and_draws_the_layer(base_url, kind):
    inside = qgis(kind, base_url, "roads", *map(str, DISTRICT_CENTRE))
    outside = qgis(kind, base_url, "roads", *map(str, FAR_FROM_DISTRICT))
    for result in (inside, outside):
        assert result["valid"] and not result["errors"], result
    assert inside["drawn"] > 1000, f"QGIS drew {inside['drawn']} px of roads over the district"
    assert outside["drawn"] == 0, f"QGIS drew {outside['drawn']} px where the district has no roads"

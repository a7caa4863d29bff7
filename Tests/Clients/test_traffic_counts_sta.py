"""Live traffic counts through the SensorThings API with the reference client, frost-sta-client: the
platform (城市管理执法委员会, owner of iot_devices) registers a video detector on each approach of a
sample-district signal as Datastreams with properties.traffic_count, the counts' owner (公安局) sends one
15-minute interval of readings through the client, and the rows appear in traffic_counts (OGC API
Features), one per approach and interval, with each movement's count. A reading the platform's own token
sends, or one that is no count over an interval, is refused."""

import os
import subprocess

import frost_sta_client as fsc
import pytest
import requests

PLATFORM = "城市管理执法委员会"
POLICE = "公安局"
INTERSECTION = "SI-009"
INTERVAL = "2026-11-24T08:00:00+08:00/2026-11-24T08:15:00+08:00"
COUNTS = {"N": {"left": 31, "through": 142, "right": 17}, "S": {"left": 20, "through": 130, "right": 15},
          "E": {"left": 11, "through": 90, "right": 12}, "W": {"left": 13, "through": 95, "right": 10}}


def token(department: str) -> str:
    made = subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--department", department, "--role", "editor",
                           "--subject", "traffic-count gateway", "--store", os.environ["CITYTWIN_CLIENT_STORE"]],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def service(base_url: str, department: str) -> fsc.SensorThingsService:
    return fsc.SensorThingsService(f"{base_url}/sta/v1.1", auth_handler=fsc.AuthHandler(username="gateway", password=token(department)))


@pytest.fixture(scope="module")
def detectors(base_url) -> dict:
    """(approach, movement) → the Datastream the platform registered for it, by one deep insert per approach."""
    platform = service(base_url, PLATFORM)
    made = {}
    for approach in COUNTS:
        thing = fsc.Thing(name=f"{INTERSECTION} {approach} 进口 视频检测器", description="video detector (frost-sta-client test)")
        thing.datastreams = [fsc.Datastream(
            name=f"{INTERSECTION} {approach} {movement}", description="vehicles counted per interval",
            observation_type="http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_CountObservation",
            unit_of_measurement=fsc.UnitOfMeasurement(name="vehicle", symbol="veh", definition="https://example.org/vehicle"),
            properties={"traffic_count": {"intersection": INTERSECTION, "approach": approach, "movement": movement, "detector": "video"}},
            sensor=fsc.Sensor(name="video detector", description="视频检测器", encoding_type="text/html", metadata="https://example.org/video"),
            observed_property=fsc.ObservedProperty(name="vehicle count", definition="https://example.org/count", description="vehicles counted"))
            for movement in COUNTS[approach]]
        platform.create(thing)
        found = list(platform.things().query().filter(f"id eq {thing.id}").expand("Datastreams").list())[0]
        for d in found.datastreams.entities:
            made[(d.properties["traffic_count"]["approach"], d.properties["traffic_count"]["movement"])] = d
    assert len(made) == 12
    return made


@pytest.mark.writes
def test_readings_sent_through_the_client_become_traffic_counts_rows(base_url, detectors):
    police = service(base_url, POLICE)
    for (approach, movement), datastream in detectors.items():
        observation = fsc.Observation(result=COUNTS[approach][movement], phenomenon_time=INTERVAL, datastream=datastream)
        police.create(observation)
        assert observation.id is not None
    r = requests.get(f"{base_url}/collections/traffic_counts/items", timeout=30,
                     params={"f": "json", "filter": f"intersection='{INTERSECTION}'", "datetime": "2026-11-24T00:00:00Z/2026-11-24T00:14:59Z"},
                     headers={"Authorization": f"Bearer {token(POLICE)}"})
    assert r.status_code == 200, r.text[:500]
    rows = {f["properties"]["approach"]: f["properties"] for f in r.json()["features"]}
    assert set(rows) == set(COUNTS)
    for approach, counts in COUNTS.items():
        assert {m: rows[approach][m] for m in counts} == counts
        assert rows[approach]["minutes"] == 15 and rows[approach]["detector"] == "video"


@pytest.mark.writes
def test_the_platform_token_and_a_count_at_an_instant_are_refused(base_url, detectors):
    datastream = detectors[("N", "left")].id
    body = [{"Datastream": {"@iot.id": datastream}, "components": ["phenomenonTime", "result"],
             "dataArray": [["2026-11-24T09:00:00+08:00/2026-11-24T09:15:00+08:00", 5]]}]
    r = requests.post(f"{base_url}/sta/v1.1/CreateObservations", json=body, auth=("gateway", token(PLATFORM)), timeout=30)
    assert r.status_code == 403 and r.headers["Content-Type"].startswith("application/problem+json")
    assert POLICE in r.json()["detail"]
    body[0]["dataArray"] = [["2026-11-24T09:00:00+08:00", 5]]
    r = requests.post(f"{base_url}/sta/v1.1/CreateObservations", json=body, auth=("gateway", token(POLICE)), timeout=30)
    assert r.status_code == 400, r.text[:300]
    assert r.json()["position"] == "$[0].dataArray[0].phenomenonTime"


@pytest.mark.writes
def test_a_reading_deleted_through_the_client_is_taken_out_of_its_row(base_url, detectors):
    """A reading sent in error and deleted (by the counts' owner, with the client's delete) no longer counts: its
    movement's count in the row goes back to 0, and the row goes with the interval's last reading."""
    police = service(base_url, POLICE)
    interval = "2026-11-24T09:30:00+08:00/2026-11-24T09:45:00+08:00"
    sent = {}
    for movement, n in (("left", 7), ("through", 120)):
        sent[movement] = fsc.Observation(result=n, phenomenon_time=interval, datastream=detectors[("E", movement)])
        police.create(sent[movement])

    def row():
        r = requests.get(f"{base_url}/collections/traffic_counts/items/TC-{INTERSECTION}-E-202611240930-15", params={"f": "json"},
                         headers={"Authorization": f"Bearer {token(POLICE)}"}, timeout=30)
        return r.json()["properties"] if r.status_code == 200 else r.status_code

    assert {m: row()[m] for m in ("left", "through", "right")} == {"left": 7, "through": 120, "right": 0}
    police.delete(sent["left"])
    assert {m: row()[m] for m in ("left", "through", "right")} == {"left": 0, "through": 120, "right": 0}
    police.delete(sent["through"])
    assert row() == 404

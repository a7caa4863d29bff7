"""SensorThings API 1.1 with the reference client, frost-sta-client (Fraunhofer IOSB): a deep
insert of a Thing with its Location and a Datastream with Sensor and ObservedProperty, read back
with $expand; 5,000 observations through the Data Array extension over plain HTTP; and
$filter / $orderby / $top / $count queries through the client, each checked against the same
selection evaluated here in Python (the oracle)."""

import datetime as dt
import os
import subprocess

import frost_sta_client as fsc
import geojson
import pytest
import requests

OWNER = "城市管理执法委员会"   # owner of iot_devices, the layer governing /sta/v1.1
START = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)
COUNT = 5000


def level(i: int) -> float:
    """A deterministic stage record: a slow tide with a flood wave (metres, two decimals)."""
    return round(20 + 2 * ((i % 97) / 97) + (3.5 if 3000 <= i < 3200 else 0), 2)


def stamp(i: int) -> str:
    return (START + dt.timedelta(minutes=5 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def token() -> str:
    made = subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--department", OWNER, "--role", "editor",
                           "--subject", "frost-sta-client", "--store", os.environ["CITYTWIN_CLIENT_STORE"]],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


@pytest.fixture(scope="module")
def service(base_url, token):
    # FROST's client authenticates with HTTP Basic: the department token is the password.
    return fsc.SensorThingsService(f"{base_url}/sta/v1.1", auth_handler=fsc.AuthHandler(username="gateway", password=token))


@pytest.fixture(scope="module")
def gauge(service):
    """The Thing, created by ONE deep-insert POST from the client."""
    location = fsc.Location(name="邾城大桥", description="gauge site on the 举水", encoding_type="application/geo+json",
                            location=geojson.Point((114.8012, 30.8437)))
    datastream = fsc.Datastream(
        name="water level", description="stage above the Wusong datum",
        observation_type="http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_Measurement",
        unit_of_measurement=fsc.UnitOfMeasurement(name="metre", symbol="m", definition="http://qudt.org/vocab/unit/M"),
        sensor=fsc.Sensor(name="radar level sensor", description="non-contact radar", encoding_type="text/html",
                          metadata="https://example.org/radar"),
        observed_property=fsc.ObservedProperty(name="water level", definition="http://vocabs.lter-europe.net/EnvThes/22035",
                                               description="river stage"))
    thing = fsc.Thing(name="举水 邾城 水位站", description="river gauge (frost-sta-client test)", properties={"station": "JS-FROST"})
    thing.locations = [location]
    thing.datastreams = [datastream]
    service.create(thing)
    assert thing.id is not None, "the client read the new Thing's id from the Location header"
    return thing


@pytest.fixture(scope="module")
def datastream_id(service, gauge) -> int:
    things = service.things().query().filter(f"id eq {gauge.id}").expand("Datastreams").list()
    return list(things)[0].datastreams.entities[0].id


@pytest.fixture(scope="module")
def observations(base_url, token, datastream_id):
    """5,000 observations by CreateObservations (Data Array) over plain HTTP; the oracle's copy."""
    rows = [[stamp(i), level(i)] for i in range(COUNT)]
    body = [{"Datastream": {"@iot.id": datastream_id}, "components": ["phenomenonTime", "result"],
             "dataArray@iot.count": COUNT, "dataArray": rows}]
    r = requests.post(f"{base_url}/sta/v1.1/CreateObservations", json=body, auth=("gateway", token), timeout=120)
    assert r.status_code == 201, r.text[:500]
    links = r.json()
    assert len(links) == COUNT and all("/Observations(" in link for link in links)
    ids = [int(link.rsplit("(", 1)[1].rstrip(")")) for link in links]
    return [{"id": ids[i], "phenomenonTime": rows[i][0], "result": rows[i][1]} for i in range(COUNT)]


@pytest.mark.writes
def test_deep_insert_reads_back_with_expand(service, gauge):
    found = service.things().find(gauge.id)
    # The register is co-built (issue 54 §1): the Thing records the department that registered it.
    assert found.name == "举水 邾城 水位站" and found.properties == {"station": "JS-FROST", "owner_department": OWNER}
    listed = list(service.things().query().filter(f"id eq {gauge.id}")
                  .expand("Locations,Datastreams($expand=Sensor,ObservedProperty)").list())
    assert len(listed) == 1
    thing = listed[0]
    assert [loc.name for loc in thing.locations.entities] == ["邾城大桥"]
    assert tuple(thing.locations.entities[0].location["coordinates"]) == (114.8012, 30.8437)
    stream = thing.datastreams.entities[0]
    assert stream.unit_of_measurement.symbol == "m"
    assert stream.sensor.name == "radar level sensor"
    assert stream.observed_property.definition == "http://vocabs.lter-europe.net/EnvThes/22035"
    # The Location was recorded in the Thing's history.
    history = list(service.historical_locations().query().filter(f"Thing/id eq {gauge.id}").list())
    assert len(history) == 1


def client_query(service, datastream_id, flt=None, order=None, top=None):
    q = service.datastreams().find(datastream_id).get_observations().query()
    if flt:
        q = q.filter(flt)
    if order:
        q = q.orderby(*order)
    if top is not None:
        q = q.top(top)
    return q


QUERIES = [
    # ($filter, oracle predicate, $orderby (criteria, order), $top)
    ("result gt 23.5", lambda o: o["result"] > 23.5, ("phenomenonTime", "asc"), None),
    ("result ge 21 and result lt 21.5", lambda o: 21 <= o["result"] < 21.5, ("result", "desc"), 50),
    ("phenomenonTime ge 2026-06-10T00:00:00Z and phenomenonTime lt 2026-06-11T00:00:00Z",
     lambda o: "2026-06-10" <= o["phenomenonTime"] < "2026-06-11", ("phenomenonTime", "desc"), 7),
    ("hour(phenomenonTime) eq 12 and minute(phenomenonTime) eq 0", lambda o: o["phenomenonTime"][11:16] == "12:00",
     ("phenomenonTime", "asc"), None),
    ("not (result le 22) or day(phenomenonTime) eq 3", lambda o: o["result"] > 22 or o["phenomenonTime"][8:10] == "03",
     ("id", "asc"), 500),
    ("(result sub 20) mul 2 gt 7", lambda o: (o["result"] - 20) * 2 > 7, ("phenomenonTime", "asc"), None),
]


@pytest.mark.writes
@pytest.mark.parametrize("flt,predicate,order,top", QUERIES, ids=[q[0] for q in QUERIES])
def test_queries_agree_with_client_side_evaluation(service, datastream_id, observations, flt, predicate, order, top):
    expected = [o for o in observations if predicate(o)]
    assert expected, f"{flt}: the oracle selects nothing, the comparison would prove little"
    key, direction = order
    expected.sort(key=lambda o: o["id"])  # ties break by ascending id, as the server does
    expected.sort(key=lambda o: o[key], reverse=(direction == "desc"))
    if top is not None:
        expected = expected[:top]
    listed = client_query(service, datastream_id, flt, order, top).list()
    got = []
    for entity in listed:  # the client follows @iot.nextLink when no $top is given
        got.append((entity.id, entity.result))
        if top is not None and len(got) >= top:
            break
    assert got == [(o["id"], o["result"]) for o in expected], flt


@pytest.mark.writes
def test_count_and_data_array_read(base_url, token, datastream_id, observations):
    r = requests.get(f"{base_url}/sta/v1.1/Datastreams({datastream_id})/Observations",
                     params={"$count": "true", "$top": "3", "$orderby": "phenomenonTime desc", "$resultFormat": "dataArray",
                             "$select": "phenomenonTime,result"}, auth=("gateway", token), timeout=60)
    assert r.status_code == 200, r.text[:300]
    doc = r.json()
    assert doc["@iot.count"] == COUNT
    assert doc["value"][0]["components"] == ["phenomenonTime", "result"]
    assert doc["value"][0]["dataArray"] == [[stamp(i), level(i)] for i in (COUNT - 1, COUNT - 2, COUNT - 3)]
    assert "@iot.nextLink" in doc


@pytest.mark.writes
def test_malformed_filter_is_a_problem_with_position(base_url, token):
    r = requests.get(f"{base_url}/sta/v1.1/Observations", params={"$filter": "result gt (3"}, auth=("gateway", token), timeout=30)
    assert r.status_code == 400
    problem = r.json()
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert problem["parameter"] == "$filter" and problem["position"] == "offset 12"


@pytest.mark.writes
def test_threshold_alert_is_listed_and_pushed(base_url, token, datastream_id, observations):
    """A reading over the danger level: in /collections/alerts/items when the POST returns, and
    pushed to a Server-Sent Events subscriber of /alerts/events."""
    import json
    import time

    auth = ("gateway", token)
    r = requests.patch(f"{base_url}/sta/v1.1/Datastreams({datastream_id})", auth=auth, timeout=30,
                       json={"properties": {"thresholds": [{"level": "danger", "value": 26.0, "direction": "above", "hysteresis": 0.5}]}})
    assert r.status_code == 200, r.text[:300]

    # Subscribed once the response head arrives: the server registers the subscriber before answering.
    stream = requests.get(f"{base_url}/alerts/events", auth=auth, stream=True, timeout=(10, 10))
    assert stream.status_code == 200 and stream.headers["Content-Type"].startswith("text/event-stream")
    posted = time.monotonic()
    body = [{"Datastream": {"@iot.id": datastream_id}, "components": ["phenomenonTime", "result"],
             "dataArray": [["2026-07-01T00:00:00Z", 26.8]]}]
    r = requests.post(f"{base_url}/sta/v1.1/CreateObservations", json=body, auth=auth, timeout=30)
    assert r.status_code == 201, r.text[:300]
    items = requests.get(f"{base_url}/collections/alerts/items", params={"f": "json", "limit": 100}, auth=auth, timeout=30).json()
    raised = [f for f in items["features"] if f["properties"]["datastream_id"] == datastream_id
              and f["properties"]["phenomenonTime"] == "2026-07-01T00:00:00Z"]
    assert len(raised) == 1 and raised[0]["properties"]["level"] == "danger" and raised[0]["properties"]["value"] == 26.8
    pushed = None
    for line in stream.iter_lines(decode_unicode=True):  # the event waits in the socket; a 10 s silence fails
        if line and line.startswith("data: "):
            pushed = json.loads(line[6:])
            break
    print(f"alert pushed {time.monotonic() - posted:.3f} s after the POST was sent")
    assert pushed["id"] == raised[0]["id"] and pushed["properties"]["cleared_at"] is None
    stream.close()

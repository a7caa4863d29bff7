"""schemathesis against the OpenAPI document (/api): generated requests for every operation must
never get a 5xx (its `not_a_server_error` check). Path parameters are drawn mostly from the live
catalogue (real collections, features, tile matrix sets) so the requests reach the handlers'
logic instead of stopping at a 404, and sometimes fuzzed. Run once anonymously and once as the
platform admin, so the write operations (Part 4) get past 401 too; the admin run writes, so it
runs last (see conftest.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

MAX_EXAMPLES = 20
SEED = 2026


def toml_list(values) -> str:
    return "[" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in values) + "]"


@pytest.fixture(scope="module")
def config_file(base_url, http, collections, tmp_path_factory) -> Path:
    collection_ids = [c["id"] for c in collections]
    feature_ids = []
    for cid in collection_ids:
        page = http.get(f"{base_url}/collections/{cid}/items", params={"limit": 2, "f": "json"}, timeout=30).json()
        feature_ids += [f["id"] for f in page["features"] if isinstance(f.get("id"), str)]
    tms_ids = [t["id"] for t in http.get(f"{base_url}/tileMatrixSets", params={"f": "json"}, timeout=30).json()["tileMatrixSets"]]
    path = tmp_path_factory.mktemp("schemathesis") / "schemathesis.toml"
    path.write_text(f"""
[dictionaries]
collections = {{ values = {toml_list(collection_ids + ["buildings"])} }}
features = {{ values = {toml_list(feature_ids)} }}
tile_matrix_sets = {{ values = {toml_list(tms_ids)} }}
levels = {{ values = [0, 1, 2, 10, 14, 15, 16, 18, 24] }}

[parameters]
"path.collectionId" = {{ dictionary = "collections", probability = 0.8 }}
"path.featureId" = {{ dictionary = "features", probability = 0.6 }}
"path.tileMatrixSetId" = {{ dictionary = "tile_matrix_sets", probability = 0.8 }}
"path.tileMatrix" = {{ dictionary = "levels", probability = 0.7 }}
""")
    return path


def run_schemathesis(base_url: str, config: Path, report_dir: Path, *headers: str) -> None:
    command = [str(Path(sys.executable).with_name("schemathesis")), "--config-file", str(config), "run", f"{base_url}/api",
               "--checks", "not_a_server_error", "--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED),
               # One worker: hypothesis' lambda introspection is not thread-safe (a 'Runtime Error' with 2).
               "--workers", "1", "--request-timeout", "30",
               "--report", "ndjson", "--report-dir", str(report_dir),
               # Event streams run until the client leaves: the change subscription (test_change_subscription.py),
               # the parking feed (test_parking_push.py) and the alerts (test_sensorthings_frost.py).
               "--exclude-path-regex", "(/changes|/parking/events|/alerts/events)$"]
    for header in headers:
        command += ["-H", header]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, (
        f"schemathesis found a problem (exit {done.returncode}; events in {report_dir}):\n"
        + done.stdout[-12000:] + done.stderr[-3000:])


def test_no_server_error_for_an_anonymous_caller(base_url, config_file, tmp_path):
    run_schemathesis(base_url, config_file, tmp_path)


@pytest.mark.writes
def test_no_server_error_for_the_platform_admin(base_url, config_file, tmp_path):
    token = subprocess.run([os.environ["CITYTWIN_CLIENT_BIN"], "token", "create", "--role", "admin",
                            "--subject", "schemathesis", "--store", os.environ["CITYTWIN_CLIENT_STORE"]],
                           capture_output=True, text=True, timeout=60)
    assert token.returncode == 0, token.stderr
    run_schemathesis(base_url, config_file, tmp_path, f"Authorization: Bearer {token.stdout.strip()}")

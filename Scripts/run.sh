#!/usr/bin/env bash
# The main job: installs what is missing, builds CityTwin (release), builds the sample district
# into the embedded SpatiaLite store (.citytwin/district.sqlite, once), and serves it over
# OGC API Features and Tiles on http://127.0.0.1:${CITYTWIN_PORT:-8080} until Ctrl-C.
# Safe to repeat. Extra arguments run `citytwin` with them instead of the default job.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

Scripts/setup.sh
swift build -c release --product citytwin
citytwin=.build/release/citytwin

if (($#)); then exec "$citytwin" "$@"; fi

"$citytwin" version
"$citytwin" district build            # idempotent: says so when the district is already there
exec "$citytwin" serve --port "${CITYTWIN_PORT:-8080}"

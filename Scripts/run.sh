#!/usr/bin/env bash
# The main job: installs what is missing, builds CityTwin (release), and runs it on the embedded
# sample district. Safe to repeat. Extra arguments go to `citytwin` instead of the default job.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

Scripts/setup.sh
swift build -c release --product citytwin
citytwin=.build/release/citytwin

if (($#)); then exec "$citytwin" "$@"; fi

"$citytwin" version
echo "Hankou (CGCS2000 lon/lat) in Gauss-Krüger CM 114°E (EPSG:4547, easting/northing):"
echo 'POINT (114.3055 30.5928)' | "$citytwin" geo transform --from EPSG:4490 --to EPSG:4547

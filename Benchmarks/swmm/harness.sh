#!/usr/bin/env bash
# Links the drainage harness (harness/main.swift) against a release build's FloodSim, SWMMFormat and
# GeoCore objects, for callgrind (instructions.sh) where valgrind cannot run the release `citytwin`:
#   swift build -c release --target FloodSim --scratch-path S    # or the whole citytwin product
#   Benchmarks/swmm/harness.sh S OUT                             # then instructions.sh OUT_NEW OUT_MAIN …
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rel=$(realpath "$1")/release
export PATH=/opt/swift/usr/bin:$PATH
# Only objects of sources that exist now (a scratch path keeps those of deleted files).
objects() { for f in "$rel/$1.build"/*.swift.o; do b=$(basename "$f" .o); [[ -n $(find "$root/Sources/$1" -name "$b" -print -quit) ]] && echo "$f"; done; }
swiftc -O -module-name DrainageHarness "$here/harness/main.swift" -I "$rel/Modules" \
  -Xcc -fmodule-map-file="$root/Sources/CGEOS/module.modulemap" -Xcc -fmodule-map-file="$root/Sources/CPROJ/module.modulemap" \
  $(objects FloodSim) $(objects SWMMFormat) $(objects GeoCore) -lgeos_c -lproj -o "$2"

#!/usr/bin/env bash
# Runs the GeoCore test suite under valgrind's leak checker: fails on any definite or indirect
# leak from our code. (Swift's runtime keeps some reachable metadata; that is not a leak.)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
Scripts/setup.sh --test
swift build --build-tests
valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
  --suppressions=Scripts/valgrind.supp --gen-suppressions=no \
  .build/debug/CityTwinPackageTests.xctest --testing-library swift-testing --filter GeoCoreTests "$@"

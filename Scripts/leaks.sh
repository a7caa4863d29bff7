#!/usr/bin/env bash
# Runs the GeoCore test suites under LeakSanitizer (AddressSanitizer's leak checker): fails on
# any leak or memory error in our code or in how we own GEOS/PROJ objects.
#   Scripts/leaks.sh [extra swift-testing arguments]
# (Debian's valgrind 3.19 cannot read the DWARF that Swift 6.3 emits and crashes on its
# binaries, so LeakSanitizer is the leak checker here.)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
Scripts/setup.sh --test >/dev/null
swift build --build-tests --build-path .build/asan -Xswiftc -sanitize=address
# Leaks inside the Swift runtime's and Foundation's one-time caches are not ours.
export LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
.build/asan/debug/CityTwinPackageTests.xctest --testing-library swift-testing --filter GeoCoreTests "$@"

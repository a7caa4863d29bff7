#!/usr/bin/env bash
# Every EPA SWMM 5 example (../shared/data/swmm, or SWMM_EXAMPLES) through SWMM 5.2.4 (PyPI
# swmm-toolkit) and `citytwin simulate drainage` (release build): refused (with CityTwin's
# message) or ran (flooding vs SWMM, worst node maximum depth, run time ratio, alternating rounds).
#   Benchmarks/run.sh swmm [rounds]     (default 3 rounds; the table is kept in Benchmarks/swmm/README.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/opt/swift/usr/bin:$PATH
rounds=${1:-3}
models=${SWMM_EXAMPLES:-$(cd .. && pwd)/shared/data/swmm}
# Own scratch path (BENCH_SCRATCH), as Benchmarks/flood/run_drainage.sh: a release build here does
# not wait on, or invalidate, the debug .build other work uses.
scratch=${BENCH_SCRATCH:-$(cd .. && pwd)/.build-bench}
swift build -c release --product citytwin --scratch-path "$scratch" >/dev/null
bin=$(swift build -c release --product citytwin --scratch-path "$scratch" --show-bin-path)/citytwin
echo "load: $(uptime | sed 's/.*load average: //')"
.venv/bin/python Scripts/reference/swmm_examples_inventory.py "$bin" --rounds "$rounds" --models "$models"

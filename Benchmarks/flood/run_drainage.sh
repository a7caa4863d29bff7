#!/usr/bin/env bash
# The 1D engine vs SWMM 5.2.4 on the same .inp files, in one invocation: best of N in-process
# runs on each side (ours: `citytwin simulate drainage --repeat N`, release build; SWMM:
# swmm_run from PyPI swmm-toolkit). Prints seconds and the ratio ours/SWMM (goal ≤ 2×).
#   Benchmarks/flood/run_drainage.sh [rounds] [model.inp ...]
# Default models: the EPA examples with routing (Tests/FloodSimTests/Fixtures/swmm) and, when
# present, the sample district's drainage model (.citytwin/district.inp, written by
# `citytwin simulate flood --write-inp`).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/opt/swift/usr/bin:$PATH
rounds=${1:-5}
shift || true
models=("$@")
if ((${#models[@]} == 0)); then
  models=(Tests/FloodSimTests/Fixtures/swmm/Example1.inp Tests/FloodSimTests/Fixtures/swmm/Example1-dynwave.inp
          Tests/FloodSimTests/Fixtures/swmm/Example2.inp Tests/FloodSimTests/Fixtures/swmm/extran1.inp)
  [[ -f .citytwin/district.inp ]] && models+=(.citytwin/district.inp)
fi
# Own scratch path (BENCH_SCRATCH) so a release build here does not wait on, or invalidate, the
# shared debug .build other work uses.
# BENCH_BIN_DIR: the binary already built there (Benchmarks/bin.sh).
source Benchmarks/bin.sh
bin=$(bench_bin citytwin)
peer=$(.venv/bin/python Benchmarks/flood/drainage_peer.py "$rounds" "${models[@]}")
echo "load: $(uptime | sed 's/.*load average: //')"
printf '%-22s %10s %10s %8s\n' model "CityTwin s" "SWMM s" "ratio"
for m in "${models[@]}"; do
  name=$(basename "$m" .inp)
  # `--repeat` prints its "best of N runs" line from 2 runs on: at least 2 runs on our side.
  ours=$("$bin" simulate drainage "$m" --json --repeat "$(( rounds < 2 ? 2 : rounds ))" 2>&1 >/dev/null | sed -n 's/^best of [0-9]* runs: \([0-9.e+-]*\).*/\1/p')
  [[ -n $ours ]] || { echo "drainage: no timing from citytwin simulate drainage $m" >&2; exit 1; }
  swmm=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$peer" "$name")
  python3 -c "import sys; o, p = float(sys.argv[2]), float(sys.argv[3]); print(f'{sys.argv[1]:22} {o:10.4f} {p:10.4f} {o / p:7.2f}x')" "$name" "$ours" "$swmm"
done

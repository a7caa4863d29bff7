#!/usr/bin/env bash
# Instructions per whole run of the EPA SWMM examples (callgrind: independent of the machine's load),
# two CityTwin binaries against each other and against SWMM 5.2.4 (PyPI swmm-toolkit in .venv):
#   Benchmarks/swmm/instructions.sh NEW_BIN MAIN_BIN [MODEL ...]
# Collected only inside one run's function, N runs each (Example3: 1, others 2), divided by N:
# CityTwin's DrainageRun.run (`citytwin simulate drainage X.inp --repeat N`: validation, runoff,
# routing, hot-start files; the parse and process start-up excluded) and SWMM's swmm_run (parse, run,
# report and binary output). Prints a Markdown table. Instructions are not time: use it when the
# machine is too busy for cpu_bench.py or run.sh, and say so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
new=$(realpath "$1"); main=$(realpath "$2"); shift 2
py="$(cd "$here/../.." && pwd)/.venv/bin/python"   # the venv's own path (not its target)
models=("$@")
[[ ${#models[@]} -gt 0 ]] || models=(Example1 Example2 Example3 Example4 Example5 Example6 extran1 extran10 extran2 extran3 extran4 extran5 extran6 extran7 extran8a extran8b extran9)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/../../../shared/data/swmm/"* "$work/"
chmod 644 "$work"/*
cd "$work"
count() {   # count FUNCTION_PATTERN COMMAND...: instructions collected inside FUNCTION_PATTERN
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" --toggle-collect="$1" "${@:2}" 2>&1 >/dev/null |
    awk '/Collected/ {print $4}'
}
echo "| model | runs | new Minstr/run | main Minstr/run | SWMM Minstr/run | new/SWMM | main/SWMM | new/main |"
echo "|---|---|---|---|---|---|---|---|"
for m in "${models[@]}"; do
  n=2; [[ $m == Example3 ]] && n=1
  a=$(count '*DrainageRunO3run_*' "$new" simulate drainage "$m.inp" --repeat $n)
  b=$(count '*DrainageRunO3run_*' "$main" simulate drainage "$m.inp" --repeat $n)
  c=$(count swmm_run "$py" -c "from swmm.toolkit import solver
for _ in range($n): solver.swmm_run('$m.inp', '$m.rpt', '$m.out')")
  python3 -c "a, b, c = $a / 1e6 / $n, $b / 1e6 / $n, $c / 1e6 / $n
print(f'| $m | $n | {a:.2f} | {b:.2f} | {c:.2f} | {a / c:.2f}× | {b / c:.2f}× | {a / b:.2f}× |')"
done

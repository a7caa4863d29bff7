#!/usr/bin/env bash
# Bounded libFuzzer run of every parser harness (Fuzz/README.md has the details):
#
#   Scripts/fuzz.sh [seconds-per-harness] [harness ...]     # default 30 s each, every harness
#   Scripts/fuzz.sh 600 wkb                                  # a longer run of one harness
#
# Harnesses are the `fuzz-<name>` executable targets in Package.swift (sources in Fuzz/<Name>/,
# seed corpus in Fuzz/corpus/<name>/); a new one (e.g. the ESRI ASCII grid reader, `fuzz-asciigrid`)
# is picked up here automatically once its target exists. Each is built with libFuzzer and
# AddressSanitizer into .build/fuzz, then run with the committed seeds plus a working corpus in
# .fuzz/corpus/<name>/ (git-ignored; new interesting inputs land there). A crash leaves its input
# in .fuzz/artifacts/<name>/; replay it with the normally built harness:
#   swift build --product fuzz-<name> && .build/debug/fuzz-<name> .fuzz/artifacts/<name>/crash-*
# Exits non-zero if any harness failed to build or found a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

seconds=${1:-30}
shift || true
harnesses=("$@")
if [[ ${#harnesses[@]} -eq 0 ]]; then
  mapfile -t harnesses < <(grep -oE 'name: "fuzz-[a-z0-9]+"' Package.swift | sed -E 's/name: "fuzz-(.*)"/\1/')
fi

# -parse-as-library: harness files have no top-level code (Fuzz/README.md).
build_flags=(-c debug --build-path .build/fuzz
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -parse-as-library)

mkdir -p .fuzz
failed=()
for h in "${harnesses[@]}"; do
  log=.fuzz/build-$h.log
  echo "fuzz: building fuzz-$h"
  if ! swift build "${build_flags[@]}" --product "fuzz-$h" >"$log" 2>&1; then
    # gold's "Cannot export local symbol '__asan_*'" warnings are noise from the ASan runtime.
    grep -v "Cannot export local symbol" "$log" | tail -30
    failed+=("$h (build)")
    continue
  fi
  corpus=.fuzz/corpus/$h
  artifacts=.fuzz/artifacts/$h
  mkdir -p "$corpus" "$artifacts"
  seeds=()
  [[ -d Fuzz/corpus/$h ]] && seeds=("Fuzz/corpus/$h")
  echo "fuzz: running fuzz-$h for ${seconds}s"
  if ! .build/fuzz/debug/"fuzz-$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "$corpus" "${seeds[@]}" >".fuzz/run-$h.log" 2>&1; then
    tail -40 ".fuzz/run-$h.log"
    failed+=("$h (crash: see $artifacts/)")
  else
    grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb)|cov:" ".fuzz/run-$h.log" | tail -3
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: FAILED: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#harnesses[@]} harness(es) ran ${seconds}s each without a crash"

# Sourced by the benchmark suites: where a suite's binaries come from.
#   bench_bin PRODUCT   prints the path of PRODUCT (citytwin, geocore-bench, flood-bench, ...):
#     BENCH_BIN_DIR set (e.g. .build/debug, as CI's smoke run of every suite): the binary already
#       built there, no build at all (a debug binary's figures are not release figures: say so);
#     otherwise a release build of PRODUCT in the benchmarks' own scratch path (BENCH_SCRATCH,
#       default .build-bench beside the checkout), so a benchmark never waits on, or invalidates,
#       the debug .build the tests use.
#   bench_district BIN STORE   the sample district into the SpatiaLite file STORE: a copy of
#     BENCH_DISTRICT when set (one built beforehand, as the smoke run does), else `BIN district build`.
#   bench_copy_store FROM TO   a closed SpatiaLite store copied with its audit key (a keyed store is
#     written only by a process that holds its key).
bench_copy_store() {
  cp "$1" "$2"
  if [[ -f "$1.audit-key" ]]; then cp "$1.audit-key" "$2.audit-key"; fi
}

bench_district() {
  if [[ -n ${BENCH_DISTRICT:-} ]]; then
    bench_copy_store "$BENCH_DISTRICT" "$2"
  else
    "$1" district build --store "$2" >/dev/null
  fi
}

bench_bin() {
  local product=$1
  if [[ -n ${BENCH_BIN_DIR:-} ]]; then
    [[ -x $BENCH_BIN_DIR/$product ]] || { echo "bench: BENCH_BIN_DIR=$BENCH_BIN_DIR has no $product (build it first)" >&2; return 2; }
    echo "$BENCH_BIN_DIR/$product"
    return 0
  fi
  local scratch=${BENCH_SCRATCH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.build-bench}
  PATH=/opt/swift/usr/bin:$PATH swift build -c release --product "$product" --scratch-path "$scratch" >/dev/null ||
    { echo "bench: release build of $product failed" >&2; return 1; }
  echo "$scratch/release/$product"
}

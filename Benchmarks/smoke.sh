#!/usr/bin/env bash
# Every suite of Benchmarks/run.sh once, at its smallest size, on binaries already built (issue 57:
# every benchmark runs on main). Scripts/test.sh's "benchmark smoke" stage runs it on the debug
# build; it checks that each suite still runs to its end (its peers, its server, its parsing of
# both sides' output), not its figures: a debug build's numbers are not benchmark figures.
#
#   Benchmarks/smoke.sh [SUITE ...]        default: every suite below, in order
#   BENCH_BIN_DIR (default: the debug build's bin path): where citytwin and the *-bench binaries are.
#   BENCH_SMOKE_LIMIT (default 120): seconds one suite may take before it is stopped and failed
#   (twice that for api and scale, which build two stores).
#
# Each suite's output goes to Benchmarks/.data/smoke/SUITE.log (shown when it fails). A suite that
# fails or overruns fails the run; a peer that is not installed and slow to install (a Debian
# package for one suite) skips that suite with the reason printed, never a peer already there.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
BENCH_BIN_DIR=${BENCH_BIN_DIR:-$(swift build --show-bin-path)}
export BENCH_BIN_DIR
limit=${BENCH_SMOKE_LIMIT:-120}
out=Benchmarks/.data/smoke
rm -rf "$out"; mkdir -p "$out/tmp"
# The suites' own work directories ($TMPDIR/citytwin-*-bench) live under the smoke run's, so they
# never reuse a store a release run left in /tmp, and the district built once below is theirs.
export TMPDIR=$PWD/$out/tmp

# Each suite: its name, then the environment and arguments of its smallest run.
declare -A env args
env[geocore]="GEOCORE_BENCH_POINTS=20000 GEOCORE_BENCH_BUFFERS=200 BENCH_ROUNDS=1"
env[store]="STORE_BENCH_BUILDINGS=500 STORE_BENCH_POINTS=5000 STORE_BENCH_QUERIES=10 BENCH_ROUNDS=1"
env[api]="API_BENCH_PARCELS=1000 API_BENCH_TILES=10 BENCH_ROUNDS=1 API_BENCH_CLIENTS=1 WRK_SECONDS=2 WRK_CONNECTIONS=8"
args[flood]="64 5 1"; env[flood]="PEER_STEPS=2"
args[drainage]="1 Tests/FloodSimTests/Fixtures/swmm/Example1.inp"
args[swmm]="1"; env[swmm]="SWMM_EXAMPLES=$PWD/$out/tmp/swmm"
args[network]="20 1"
args[citybuild]='"" 1'
args[geocode]="200"; env[geocode]="GEOCODE_BENCH_QUERIES=40"
args[emergency]="1"
args[signals]="1 50 4"; env[signals]="BENCH_ROUNDS=1 BENCH_DISTRICT=$out/tmp/district.sqlite"
args[signals-day]="07:00-07:15"; env[signals-day]="BENCH_DISTRICT=$out/tmp/district.sqlite"
env[sensing]="STA_BENCH_OBSERVATIONS=2000 STA_BENCH_DATASTREAMS=4 STA_BENCH_BATCH=500 STA_BENCH_QUERIES=10"
env[burst]="BURST_OBSERVATIONS=2000 BURST_DATASTREAMS=4 BURST_BATCH=100 BURST_CLIENTS=4"
args[parking]="1"
args[load]="spatialite 4 8"
args[rasters]="20"; env[rasters]="RASTERS_DURATION_SCALE=0.01"
args[scale]="1 spatialite,postgis --quick"
args[render]="1"
args[tiles3d]="--quick"
# The suites that build the district into both stores (SpatiaLite and PostGIS) have twice the limit.
declare -A double=([api]=2 [scale]=2)
# soak is not here: it is Scripts/test.sh's own stage (60 s).
suites=(geocore store api flood drainage swmm network citybuild geocode emergency signals signals-day
        sensing burst parking load rasters scale render tiles3d)
(( $# )) && suites=("$@")

# Peers of one suite that are Debian packages (Scripts/setup.sh --test installs them): a suite whose
# package is missing is skipped, naming it.
declare -A packages=([store]=gdal-bin [api]="wrk nginx-light" [load]=wrk [network]=postgresql-15-pgrouting
                     [citybuild]="osm2pgrouting osmium-tool postgresql-15-pgrouting" [render]="mapserver-bin python3-mapscript")
needs() {
  case $1 in
    store) command -v ogr2ogr ;;
    api) command -v wrk && command -v nginx ;;
    load) command -v wrk ;;
    network) ls /usr/share/postgresql/15/extension/pgrouting.control ;;
    citybuild) command -v osm2pgrouting && command -v osmium && ls /usr/share/postgresql/15/extension/pgrouting.control ;;
    render) command -v map2img && /usr/bin/python3 -c "import mapscript" ;;
    *) true ;;
  esac
}

# The SWMM examples the swmm suite reads (../shared/data/swmm on the development machines): the
# smallest of them, Example1, from the repository's fixtures, so the suite runs wherever CI does.
mkdir -p "$out/tmp/swmm" && cp Tests/FloodSimTests/Fixtures/swmm/Example1.inp "$out/tmp/swmm/"
# One sample district for the suites that reuse a store in their work directory (geocode, rasters, render).
t0=$SECONDS
if ! "$BENCH_BIN_DIR/citytwin" district build --store "$out/tmp/district.sqlite" >"$out/district.log" 2>&1; then
  tail -20 "$out/district.log"; echo "bench smoke: the sample district did not build"; exit 1
fi
source Benchmarks/bin.sh
for s in geocode rasters render; do
  mkdir -p "$out/tmp/citytwin-$s-bench" && bench_copy_store "$out/tmp/district.sqlite" "$out/tmp/citytwin-$s-bench/district.sqlite"
done
echo "bench smoke: sample district built in $(( SECONDS - t0 )) s ($BENCH_BIN_DIR)"

failed=(); skipped=(); summary=()
for s in "${suites[@]}"; do
  if ! needs "$s" >/dev/null 2>&1; then
    skipped+=("$s"); summary+=("$(printf '%-12s skipped: its peers are not all installed (%s)' "$s" "${packages[$s]}")")
    echo "${summary[-1]}"; continue
  fi
  t0=$SECONDS
  # timeout runs the suite in a process group of its own and ends that group (its servers too).
  own=$(( limit * ${double[$s]:-1} ))
  eval "timeout --kill-after=20 $own env ${env[$s]:-} Benchmarks/run.sh $s ${args[$s]:-}" >"$out/$s.log" 2>&1 </dev/null
  status=$?
  took=$(( SECONDS - t0 ))
  if (( status == 0 )); then
    summary+=("$(printf '%-12s ok      %4d s' "$s" "$took")")
  else
    reason="exit $status"; (( status == 124 || status == 137 )) && reason="did not finish within $own s"
    failed+=("$s"); summary+=("$(printf '%-12s FAILED  %4d s  (%s; %s)' "$s" "$took" "$reason" "$out/$s.log")")
    echo "bench smoke: $s failed ($reason); the end of its output:"; tail -25 "$out/$s.log" | sed 's/^/    /'
  fi
  echo "${summary[-1]}"
done
echo "bench smoke: ${#suites[@]} suites, ${#failed[@]} failed${failed:+ (${failed[*]})}, ${#skipped[@]} skipped${skipped:+ (${skipped[*]})}"
(( ${#failed[@]} == 0 ))

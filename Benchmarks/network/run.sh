#!/usr/bin/env bash
# Road routing against pgRouting, in one invocation on one generated network (issue 6).
#   Benchmarks/network/run.sh [SIDE=225] [ROUNDS=2]
# SIDE × SIDE intersections (225 → 100,800 road pieces). Installs postgresql-15-pgrouting with
# apt-get if missing, starts the throw-away PostgreSQL of Scripts/postgis.sh, runs network-bench
# (Swift) and Benchmarks/network/pgrouting_peer.py alternately, keeps each side's best, checks
# that both sides found the same travel times, and prints ratios (pgRouting ms / CityTwin ms).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=/opt/swift/usr/bin:$PATH
side=${1:-225}; rounds=${2:-2}
data=Benchmarks/.data/network
if [[ ! -d /usr/share/postgresql/15/extension ]] || ! ls /usr/share/postgresql/15/extension/pgrouting.control >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15-pgrouting >/dev/null
fi
url=$(Scripts/postgis.sh start)
# Release build in the benchmarks' own scratch path, or BENCH_BIN_DIR's (Benchmarks/bin.sh).
source Benchmarks/bin.sh
bin=$(bench_bin network-bench)
ours_all=(); peer_all=()
for ((r = 0; r < rounds; r++)); do
  ours_all+=("$("$bin" "$data" "$side")")
  peer_all+=("$(.venv/bin/python Benchmarks/network/pgrouting_peer.py "$data" "$url")")
done
printf 'ours %s\n' "${ours_all[@]}" | cut -c1-400
printf 'peer %s\n' "${peer_all[@]}" | cut -c1-400
python3 - "$(printf '%s\n' "${ours_all[@]}")" "$(printf '%s\n' "${peer_all[@]}")" <<'PY'
import json, sys
runs = lambda t: [json.loads(l) for l in t.splitlines() if l.strip()]
ours, peer = runs(sys.argv[1]), runs(sys.argv[2])
best = lambda rs, k: min(r[k] for r in rs)
o, p = ours[0], peer[0]
n = o["network"]
print(f"network: {n['pieces']} road pieces, {n['nodes']} nodes, {n['arcs']} arcs, {n['shortcuts']} shortcuts; "
      f"preprocessing {o['preprocess_seconds']['split']:.2f} s split + {o['preprocess_seconds']['contraction']:.2f} s contraction")
print(f"pgRouting {p['pgrouting']}")
# Same answers?
k = len(p["nearest3_answers"])
diff = max(abs(a - b) for x, y in zip(o["nearest3_answers"][:k], p["nearest3_answers"]) for a, b in zip(x, y))
print(f"nearest-3 answers: max |CityTwin - pgRouting| = {diff:.2e} s over {k} incidents")
print(f"isochrone reached nodes: CityTwin {o['isochrone15_reached_nodes']}, pgRouting {p['isochrone15_reached_nodes']}")
print(f"{'query':34} {'CityTwin ms':>12} {'pgRouting ms':>13} {'ratio':>8}  goal")
for key, goal in [("nearest3_of_50_ms", "≥10×, ≤5 ms"), ("one_to_1000_ms", "≥10×"), ("isochrone15_reach_ms", "≤20 ms")]:
    a, b = best(ours, key), best(peer, key)
    print(f"{key:34} {a:12.3f} {b:13.1f} {b / a:8.1f}  {goal}")
print(f"{'isochrone15_polygon_ms (whole query)':34} {best(ours, 'isochrone15_polygon_ms'):12.1f} {'':>13} {'':>8}  ≤20 ms (with polygon)")
print(f"{'  of it CPU (this thread)':34} {best(ours, 'isochrone15_polygon_cpu_ms'):12.1f}   (wall > CPU when other processes hold the cores)")
print(f"{'dijkstra_one_to_1000_ms (closures)':34} {best(ours, 'dijkstra_one_to_1000_ms'):12.3f}")
PY

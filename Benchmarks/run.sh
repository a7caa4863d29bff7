#!/usr/bin/env bash
# Runs a CityTwin benchmark and its peer in one invocation, on the same inputs, and prints each
# pair as a ratio (peer seconds / CityTwin seconds: > 1 means CityTwin is faster).
#   Benchmarks/run.sh geocore     transform vs pyproj; prepared predicate and buffer vs shapely 2
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
Scripts/setup.sh >/dev/null

suite=${1:-geocore}
case "$suite" in
geocore)
  data=Benchmarks/.data/geocore
  [[ -f $data/buffer.wkt ]] || .venv/bin/python Benchmarks/peers/geocore_peers.py make-inputs "$data"
  swift build -c release --product geocore-bench >/dev/null
  ours=$(.build/release/geocore-bench "$data")
  peer=$(.venv/bin/python Benchmarks/peers/geocore_peers.py run "$data")
  python3 - "$ours" "$peer" <<'PY'
import json, sys
ours, peer = json.loads(sys.argv[1]), json.loads(sys.argv[2])
pairs = [("transform_4490_to_4547", "transform_4490_to_4547", "pyproj Transformer.transform (vectorised)"),
         ("prepared_contains_xy", "prepared_contains_xy", "shapely.contains_xy on a prepared polygon"),
         ("buffer_5m_quad8", "buffer_5m_quad8", "shapely.buffer (vectorised)")]
print(f"CityTwin GEOS {ours['_libraries']['geos']}, PROJ {ours['_libraries']['proj']}; peers {peer['_peers']}")
print(f"{'benchmark':28} {'items':>9} {'CityTwin s':>11} {'peer s':>9} {'ratio':>7}  peer")
for a, b, what in pairs:
    o, p = ours[a], peer[b]
    agree = abs(o["checksum"] - p["checksum"]) <= 1e-6 * max(1.0, abs(p["checksum"]))
    print(f"{a:28} {int(o['items']):>9} {o['seconds']:>11.4f} {p['seconds']:>9.4f} {p['seconds']/o['seconds']:>6.2f}x  {what}"
          + ("" if agree else f"  (checksums differ: {o['checksum']} vs {p['checksum']})"))
PY
  ;;
*) echo "unknown benchmark suite: $suite" >&2; exit 2 ;;
esac

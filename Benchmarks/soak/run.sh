#!/usr/bin/env bash
# Soak (issue 21 §5): `citytwin serve` on a fresh SpatiaLite store under 16 readers and 2 writers
# for DURATION seconds (default 3600; CI runs 60), recording RSS, open file descriptors and latency
# per second (soak.csv, soak.svg) and the summary (soak.json) in Benchmarks/.data/soak/. Fails on any
# 5xx, socket error, lost acknowledged write, or RSS growth ≥ 20 % after the first tenth of the run.
#
# Without RATE the load is closed-loop (each client sends again as soon as it is answered): it takes
# all the cores it can. With RATE (or SOAK_RATE), total requests per second, the same readers and
# writers send open-loop on a fixed schedule (writes stay WRITERS / (READERS + WRITERS) of them), so
# an hour's soak can run on a machine that has other work (soak.py says how latency is counted).
#
#   Benchmarks/soak/run.sh [DURATION] [READERS] [WRITERS] [RATE]
#   CITYTWIN_BIN=.build/debug/citytwin Benchmarks/soak/run.sh 60     (the CI size, with a built binary)
#   CITYTWIN_BIN=../.build-bench/release/citytwin SOAK_RATE=200 Benchmarks/soak/run.sh 3600   (paced hour)
#   CITYTWIN_SOAK_PORT (default 8097) is the server's port.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-3600}
readers=${2:-16}
writers=${3:-2}
rate=${4:-${SOAK_RATE:-}}
port=${CITYTWIN_SOAK_PORT:-8097}
if [[ -n ${CITYTWIN_BIN:-} ]]; then
  bin=$CITYTWIN_BIN
else
  export PATH=/opt/swift/usr/bin:$PATH
  swift build -c release --product citytwin 2>&1 | grep -E "error|Build complete" || true
  bin=$(swift build -c release --show-bin-path)/citytwin
fi
out=Benchmarks/.data/soak
work=$(mktemp -d /tmp/citytwin-soak.XXXXXX)
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A store with 200 shelters (made by `citytwin import`); the writers add more.
python3 - >"$work/shelters.geojson" <<'PY'
import json, random
rnd = random.Random(7)
print(json.dumps({"type": "FeatureCollection", "features": [
    {"type": "Feature", "id": f"base-{i}", "geometry": {"type": "Point", "coordinates": [114.78 + rnd.random() * 0.05, 30.82 + rnd.random() * 0.05]},
     "properties": {"name": f"避难所 {i}", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1000, "per_capita_m2": 1.5,
                    "capacity": 600, "service_radius_m": 500, "contact_phone": "027-00000000"}} for i in range(200)]}, ensure_ascii=False))
PY
"$bin" import "$work/shelters.geojson" --layer shelters --store "$work/city.sqlite" --layers Layers >"$work/import.log" 2>&1 \
  || { cat "$work/import.log"; exit 1; }
"$bin" serve --store "$work/city.sqlite" --layers Layers --port "$port" --log-level warning \
  --address-rate 0 --token-rate 0 >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 150); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
  sleep 0.2
done
token=$("$bin" token create --department 应急管理局 --role editor --store "$work/city.sqlite")
echo "soak: ${duration} s, $readers readers, $writers writers${rate:+, paced at $rate requests/s} on http://127.0.0.1:$port (pid $server_pid)"
python3 Benchmarks/soak/soak.py "http://127.0.0.1:$port" "$server_pid" "$token" "$duration" "$out" "$readers" "$writers" ${rate:+"$rate"}

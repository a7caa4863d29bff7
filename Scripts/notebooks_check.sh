#!/usr/bin/env bash
# Executes every notebook in Notebooks/ against a live server, as a planner would run them: builds a
# fresh sample district into a temporary store, makes the departments' tokens the notebooks read
# (CITYTWIN_TOKEN_WATER, _EMERGENCY, _POLICE, _CITY), starts `citytwin serve` on a free loopback port
# (CITYTWIN_URL), runs each notebook top to bottom with nbclient and fails on the first error in any
# cell, or on a 5xx in the server's log. Small parameters keep the flood runs short (a quick look:
# CITYTWIN_FLOOD_DURATION_SCALE, CITYTWIN_FLOOD_DEM_COARSENING).
#
# Notebooks are kept in git without outputs; this check refuses one that has them. The executed copies,
# with their tables and maps, are kept in artifacts/notebooks/ (git-ignored).
#   Scripts/notebooks_check.sh            # execute every notebook (outputs stay in a temporary copy)
#   Scripts/notebooks_check.sh --strip    # remove outputs and execution counts from Notebooks/*.ipynb
# CITYTWIN_BIN overrides the binary (no build then). Needs the test packages:
#   Scripts/setup.sh (Scripts/requirements.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

if [[ "${1:-}" == "--strip" ]]; then
  .venv/bin/python - Notebooks/*.ipynb <<'EOF'
import sys, nbformat
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cell.metadata = {}
    nbformat.write(nb, path)
    print("stripped", path)
EOF
  exit 0
fi

.venv/bin/python -c "import nbclient, nbformat, ipykernel, geopandas, matplotlib, pandas, requests" 2>/dev/null || {
  echo "notebooks_check: notebook packages missing: run Scripts/setup.sh (Scripts/requirements.txt)" >&2; exit 2; }

# Clean in git: no outputs, no execution counts.
.venv/bin/python - Notebooks/*.ipynb <<'EOF'
import sys, nbformat
dirty = [p for p in sys.argv[1:] for c in nbformat.read(p, as_version=4).cells
         if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]
if dirty:
    sys.exit(f"notebooks_check: outputs committed in {sorted(set(dirty))}: run Scripts/notebooks_check.sh --strip")
EOF

if [[ -z "${CITYTWIN_BIN:-}" ]]; then
  swift build --product citytwin
  CITYTWIN_BIN=$(swift build --product citytwin --show-bin-path)/citytwin
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/citytwin-notebooks.XXXXXX")
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

started=$(date +%s)
store="$work/district.sqlite"
"$CITYTWIN_BIN" district build --store "$store" --layers Layers >/dev/null
token() { "$CITYTWIN_BIN" token create --department "$1" --role editor --subject notebooks --store "$store"; }
CITYTWIN_TOKEN_WATER=$(token 水务和湖泊局)
CITYTWIN_TOKEN_EMERGENCY=$(token 应急管理局)
CITYTWIN_TOKEN_POLICE=$(token 公安局)
CITYTWIN_TOKEN_CITY=$(token 城市管理执法委员会)
export CITYTWIN_TOKEN_WATER CITYTWIN_TOKEN_EMERGENCY CITYTWIN_TOKEN_POLICE CITYTWIN_TOKEN_CITY

port=$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export CITYTWIN_URL="http://127.0.0.1:$port"
"$CITYTWIN_BIN" serve --store "$store" --layers Layers --host 127.0.0.1 --port "$port" --address-rate 0 --token-rate 0 \
  >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  .venv/bin/python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('$CITYTWIN_URL/health', timeout=2).status != 200)" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { echo "notebooks_check: citytwin serve exited:" >&2; tail -n 40 "$work/server.log" >&2; exit 1; }
  sleep 0.5
done
echo "notebooks_check: citytwin serve at $CITYTWIN_URL ($(( $(date +%s) - started )) s to build the district and start)"

# A quick look at the flood scenarios: a short storm on a coarse grid (the notebook says so).
export CITYTWIN_FLOOD_DURATION_SCALE=${CITYTWIN_FLOOD_DURATION_SCALE:-0.03}
export CITYTWIN_FLOOD_DEM_COARSENING=${CITYTWIN_FLOOD_DEM_COARSENING:-10}
# The sponge plan over 14 days of rain (the notebook says how to run the whole record), a 30-minute design storm routed for its peaks.
export CITYTWIN_SPONGE_DAYS=${CITYTWIN_SPONGE_DAYS:-14}
export CITYTWIN_SPONGE_STORM_MINUTES=${CITYTWIN_SPONGE_STORM_MINUTES:-30}

mkdir -p artifacts/notebooks
rm -f artifacts/notebooks/*.ipynb
set +e
.venv/bin/python - artifacts/notebooks Notebooks/*.ipynb <<'EOF'
import sys, time, nbformat
from pathlib import Path
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

work, paths = Path(sys.argv[1]), sys.argv[2:]
failed = 0
for path in paths:
    nb = nbformat.read(path, as_version=4)
    started = time.monotonic()
    try:
        # Each notebook runs in Notebooks/ (it may read ../Models), with a fresh kernel.
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(Path(path).parent)}}).execute()
        print(f"notebooks_check: {path} ran in {time.monotonic() - started:.1f} s")
    except CellExecutionError as error:
        failed += 1
        print(f"notebooks_check: {path} FAILED after {time.monotonic() - started:.1f} s:\n{error}", file=sys.stderr)
    finally:
        nbformat.write(nb, work / Path(path).name)  # the executed copy, outputs and all
print(f"notebooks: {len(paths) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
status=$?
set -e
if grep -qE 'status=5[0-9][0-9]' "$work/server.log"; then
  echo "notebooks_check: the server answered 5xx:" >&2
  grep -E 'status=5[0-9][0-9]' "$work/server.log" | tail -n 20 >&2
  status=1
fi
echo "notebooks_check: $(( $(date +%s) - started )) s in all"
exit "$status"

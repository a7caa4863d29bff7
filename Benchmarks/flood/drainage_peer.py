"""SWMM 5.2.4 (PyPI swmm-toolkit) run times on the same .inp files CityTwin's 1D engine runs:
best of N in-process runs of swmm_run (report and binary output written to a temp dir, as SWMM
always writes them). Prints one JSON object {model: seconds}.
    .venv/bin/python Benchmarks/flood/drainage_peer.py N MODEL.inp ..."""
import json
import os
import sys
import tempfile
import time

from swmm.toolkit import solver

rounds = int(sys.argv[1])
out = {}
# SWMM prints its progress on the C-level stdout: send it to /dev/null so stdout carries only the JSON.
saved = os.dup(1)
devnull = os.open(os.devnull, os.O_WRONLY)
os.dup2(devnull, 1)
with tempfile.TemporaryDirectory() as tmp:
    for path in sys.argv[2:]:
        name = os.path.splitext(os.path.basename(path))[0]
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            solver.swmm_run(path, os.path.join(tmp, name + ".rpt"), os.path.join(tmp, name + ".out"))
            best = min(best, time.perf_counter() - start)
        out[name] = best
os.dup2(saved, 1)
print(json.dumps(out), flush=True)

"""User CPU per whole run of the EPA SWMM examples: CityTwin binaries against each other and
against SWMM 5.2.4 (PyPI swmm-toolkit in .venv), alternating rounds; and whether two binaries give
the same answers.

    .venv/bin/python Benchmarks/swmm/cpu_bench.py --bin new=PATH --bin main=PATH [--rounds 2] [--models DIR]
        [--only Example3,extran1] [--repeat extran1=200] [--no-swmm] [--answers] [--net]

Timing: the models are copied to a scratch folder (extran8a writes its hot-start file there,
extran8b reads its own). In each round every binary and SWMM run each model in a child process,
the order reversed every other round so a load change favours no side; per run = user CPU of the
child (getrusage) ÷ repeats, best over the rounds (with --net: each side also runs N/2 repeats, and a run
is (best CPU at N − best at N/2) ÷ N/2, so neither side's process start counts). CityTwin: `citytwin simulate drainage X.inp
--repeat N` (one parse, N whole runs: validation, runoff, routing, hot-start files); SWMM: N
`swmm_run` calls in one Python process, each parsing the input and writing its report and binary
output as SWMM always does. Process start-up is included and divided by N, which is why N is large
for the small models: measured 2026-11-29, 0.06–0.07 s of user CPU for `citytwin --version` (156 shared
libraries loaded and relocated, GDAL's and cairo's among them) against 0.01 s for Python importing
swmm-toolkit, so it weighs on CityTwin's side (4 % of Example5's run at N = 1000); --net removes it.

--answers: each binary's `--json` summary of every model (SWIFT_DETERMINISTIC_HASHING=1), compared
with the first binary's: byte-identical, or how many numeric values differ and the largest
relative difference.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODELS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "data", "swmm"))

# Repeats per model: enough that process start-up is a few percent of the time measured.
REPEATS = {"Example1": 300, "Example2": 200, "Example3": 6, "Example4": 500, "Example5": 1000, "Example6": 100,
           "extran1": 200, "extran2": 150, "extran3": 150, "extran4": 150, "extran5": 150, "extran6": 150,
           "extran7": 150, "extran8a": 1000, "extran8b": 1000, "extran9": 1000, "extran10": 1000}

SWMM_CHILD = """
import os, sys
from swmm.toolkit import solver
inp, n = sys.argv[1], int(sys.argv[2])
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
for _ in range(n):
    solver.swmm_run(inp, inp[:-4] + ".rpt", inp[:-4] + ".out")
"""


def child_cpu(cmd, cwd):
    """User CPU seconds of one child process, and its exit status."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    return after - before, p.returncode, p.stderr


def numeric_leaves(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from numeric_leaves(v, path + "/" + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from numeric_leaves(v, f"{path}[{i}]")
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, float(x)


def compare_answers(bins, models, work):
    print("| model | " + " | ".join(f"{name} vs {bins[0][0]}" for name, _ in bins[1:]) + " |")
    print("|---|" + "---|" * (len(bins) - 1))
    for m in models:
        outs = []
        for _, path in bins:
            # Deterministic hashing: Example1's water quality sums inflows in dictionary order, so
            # its totals differ in the last bit between two runs of one binary otherwise.
            env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
            p = subprocess.run([path, "simulate", "drainage", m + ".inp", "--json"], cwd=work, capture_output=True, text=True, env=env)
            outs.append(p.stdout if p.returncode == 0 else None)
        cells = []
        for out in outs[1:]:
            if out is None or outs[0] is None:
                cells.append("refused" if out is None and outs[0] is None else "one side refused")
                continue
            if out == outs[0]:
                cells.append("byte-identical")
                continue
            a = dict(numeric_leaves(json.loads(outs[0])))
            b = dict(numeric_leaves(json.loads(out)))
            if a.keys() != b.keys():
                cells.append("different keys")
                continue
            diff = [(abs(b[k] - a[k]) / max(abs(a[k]), 1e-30), k) for k in a if a[k] != b[k]]
            worst = max(diff)
            cells.append(f"{len(diff)} of {len(a)} values differ, largest relative {worst[0]:.1e} ({worst[1]})")
        print(f"| {m} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", default=[], help="NAME=PATH of a citytwin binary (repeatable)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--repeat", action="append", default=[], help="MODEL=N (repeatable)")
    ap.add_argument("--no-swmm", action="store_true")
    ap.add_argument("--answers", action="store_true", help="compare the binaries' --json answers instead of timing")
    ap.add_argument("--net", action="store_true",
                    help="time each side at N and N/2 repeats and report (best N − best N/2) / (N/2): the runs without the process start")
    args = ap.parse_args()
    bins = [(b.split("=", 1)[0], os.path.abspath(b.split("=", 1)[1])) for b in args.bin]
    repeats = dict(REPEATS)
    for r in args.repeat:
        k, v = r.split("=")
        repeats[k] = int(v)
    models = sorted(f[:-4] for f in os.listdir(args.models) if f.endswith(".inp"))
    if args.only:
        models = [m for m in args.only.split(",") if m in models]
    with tempfile.TemporaryDirectory() as work:
        for f in os.listdir(args.models):
            shutil.copy(os.path.join(args.models, f), work)
            os.chmod(os.path.join(work, f), 0o644)
        if args.answers:
            compare_answers(bins, models, work)
            return
        sides = [(name, lambda m, n, path=path: [path, "simulate", "drainage", m + ".inp", "--repeat", str(n)]) for name, path in bins]
        if not args.no_swmm:
            sides.append(("SWMM", lambda m, n: [sys.executable, "-c", SWMM_CHILD, os.path.join(work, m + ".inp"), str(n)]))
        best, half = {}, {}
        for r in range(args.rounds):
            order = sides if r % 2 == 0 else sides[::-1]
            for m in models:
                n = repeats.get(m, 100)
                for name, cmd in order:
                    t, rc, err = child_cpu(cmd(m, n), work)
                    if rc != 0:
                        best[(m, name)] = None
                        print(f"# {name} {m}: exit {rc}: {err.strip().splitlines()[-1] if err.strip() else ''}", file=sys.stderr)
                        continue
                    if best.get((m, name), 0) is not None:
                        best[(m, name)] = min(t, best.get((m, name)) or t)
                    if args.net:
                        th, _, _ = child_cpu(cmd(m, n // 2), work)
                        half[(m, name)] = min(th, half.get((m, name), th))
            print(f"# round {r + 1} done, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        # Seconds a run: the child's best CPU over N repeats ÷ N (process start included), or with
        # --net the difference between N and N/2 repeats ÷ N/2 (process start cancelled).
        for (m, name), t in list(best.items()):
            if t is None:
                continue
            n = repeats.get(m, 100)
            best[(m, name)] = (t - half[(m, name)]) / (n - n // 2) if args.net else t / n
        names = [s[0] for s in sides]
        head = ["model", "repeat"] + [f"{s} s/run" for s in names]
        ratios = []
        if "SWMM" in names:
            ratios += [(s, "SWMM") for s in names if s != "SWMM"]
        if len(bins) > 1:
            ratios += [(bins[0][0], s) for s, _ in bins[1:]]
        head += [f"{a}/{b}" for a, b in ratios]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for m in models:
            cells = [m, str(repeats.get(m, 100))]
            for s in names:
                v = best.get((m, s))
                cells.append("refused" if v is None else f"{v:.4f}")
            for a, b in ratios:
                va, vb = best.get((m, a)), best.get((m, b))
                cells.append("—" if not va or not vb else f"{va / vb:.2f}×")
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

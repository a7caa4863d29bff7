"""Every EPA SWMM example model run through SWMM 5.2.4 (PyPI swmm-toolkit 0.17.0) and through
`citytwin simulate drainage`, side by side: which models CityTwin refuses (and why), and for those
it runs, the flooding volume against SWMM's, the worst node maximum-depth deviation, and the run
time ratio. Prints a Markdown table (the one recorded in Benchmarks/swmm/README.md).

    .venv/bin/python Scripts/reference/swmm_examples_inventory.py CITYTWIN_BINARY [--rounds N] [--models DIR]

Timing: N alternating rounds (CityTwin, then SWMM, then CityTwin, ...); in each round each side
runs the whole model twice in one process (`citytwin simulate drainage --repeat 2`, two
`swmm_run` calls, report and binary output written as SWMM always writes them) and each side keeps
its best time over all rounds, so a load spike on a shared machine favours neither side.
Depth deviations count nodes whose SWMM maximum depth is at least 1 cm (a relative deviation of
a dry node means nothing), against SWMM's maximum depths at full precision (one more, untimed SWMM
run read step by step; the report's 0.01 ft would put Example3's 1-2 cm junctions 5-11 % off).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_fixtures import summarize  # noqa: E402
from swmm.toolkit import solver  # noqa: E402

DEFAULT_MODELS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "data", "swmm"))


def swmm_once(inp, work):
    """Runs SWMM once; (seconds, None) or (None, SWMM's error message)."""
    name = os.path.splitext(os.path.basename(inp))[0]
    rpt, out = os.path.join(work, name + ".rpt"), os.path.join(work, name + ".out")
    # SWMM prints progress on the C-level stdout: keep it off ours.
    saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    # Files a model asks SWMM to write beside the run (LID reports) go to the scratch directory.
    here = os.getcwd()
    os.chdir(work)
    try:
        start = time.perf_counter()
        solver.swmm_run(inp, rpt, out)
        return time.perf_counter() - start, None, rpt
    except Exception as e:  # swmm-toolkit raises on any SWMM error code
        errors = [l.strip() for l in open(rpt).read().splitlines() if "ERROR" in l] if os.path.exists(rpt) else []
        return None, "; ".join(errors[:3]) or str(e), rpt
    finally:
        os.chdir(here)
        os.dup2(saved, 1)
        os.close(devnull)


def citytwin_once(binary, inp):
    """Runs CityTwin (two in-process runs); (best seconds, summary JSON) or (None, refusal message)."""
    p = subprocess.run([binary, "simulate", "drainage", inp, "--json", "--repeat", "2"], capture_output=True, text=True,
                       cwd=os.path.dirname(inp))
    if p.returncode != 0:
        lines = [l.strip() for l in p.stderr.splitlines() if l.strip() and "simulating" not in l]
        return None, (lines[-1] if lines else f"exit {p.returncode}")
    best = None
    for l in p.stderr.splitlines():
        if l.startswith("best of "):
            best = float(l.split(":")[1].split()[0])
    return best, json.loads(p.stdout)


def compare(ours, swmm):
    """Flooding (ours, SWMM, % deviation) and the worst node depth deviation (node, %, nodes over 5 %)."""
    fo, fs = ours["routing_continuity"]["flooding_m3"], swmm["routing_continuity"]["flooding_m3"]
    dev = (fo - fs) / fs * 100 if fs > 0 else (0.0 if fo < 0.5 else float("inf"))
    worst, worst_pct, over = None, 0.0, 0
    for name, ref in swmm["nodes"].items():
        d = ref.get("max_depth_m", 0.0)
        if d < 0.01 or name not in ours["nodes"]:
            continue
        pct = (ours["nodes"][name]["max_depth_m"] - d) / d * 100
        if abs(pct) > 5:
            over += 1
        if abs(pct) > abs(worst_pct):
            worst, worst_pct = name, pct
    return fo, fs, dev, worst, worst_pct, over


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("citytwin")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--models", default=DEFAULT_MODELS)
    args = ap.parse_args()
    binary = os.path.abspath(args.citytwin)
    models = sorted(f for f in os.listdir(args.models) if f.endswith(".inp"))
    print("| model | CityTwin | flooding m³ CityTwin / SWMM (dev) | worst node max depth dev | nodes > 5 % | time CityTwin / SWMM s (ratio) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for f in models:
            inp = os.path.join(os.path.abspath(args.models), f)
            name = f[:-4]
            ours_best, swmm_best, ours_json, refusal, swmm_error, rpt = None, None, None, None, None, None
            for _ in range(args.rounds):
                t, r = citytwin_once(binary, inp)
                if t is None:
                    refusal = r
                else:
                    ours_best, ours_json = min(t, ours_best or t), r
                for _ in range(2):
                    s, err, rpt = swmm_once(inp, work)
                    if s is None:
                        swmm_error = err
                    else:
                        swmm_best = min(s, swmm_best or s)
                if refusal and swmm_error:
                    break
            if swmm_error:
                status = "refused" if refusal else "ran"
                print(f"| {name} | {status}: {refusal or ''} | SWMM refuses too: {swmm_error} | | | |")
                continue
            swmm_json = summarize(rpt, inp)
            if refusal:
                print(f"| {name} | refused: {refusal.replace('|', '/')} | — / {swmm_json['routing_continuity']['flooding_m3']:.1f} | | | — / {swmm_best:.3f} |")
                continue
            fo, fs, dev, worst, wpct, over = compare(ours_json, swmm_json)
            print(f"| {name} | ran | {fo:.1f} / {fs:.1f} ({dev:+.1f} %) | {worst or '—'} {wpct:+.1f} % | {over} | "
                  f"{ours_best:.3f} / {swmm_best:.3f} ({ours_best / swmm_best:.2f}×) |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

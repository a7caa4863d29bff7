"""The sample district's day in SUMO 1.28 (issue 16, Done when): the whole district on its road graph
with the weekday's 15-minute counts as time-varying demand, run three ways on the same demand —
the controllers' current fixed plans, CityTwin's re-timed time-of-day plans (switched by WAUT), and
SUMO's own gap-based `actuated` control on the same stages — printing total delay (tripinfo
timeLoss + departDelay), vehicles demanded/inserted/finished and teleports for each.

    python3 Benchmarks/signals/district_day.py CITYTWIN STORE WORK [PERIOD] [SEEDS] [JOBS]

STORE is copied into WORK (the re-timed plans are written to the copy). PERIOD defaults to the
whole counted day, 00:00-24:00. SEEDS is one seed or a comma-separated list (default 7): each
seed draws its own Poisson arrivals from the same counts, and the report gives each seed and
their total. JOBS SUMO runs at once (default 1; a whole-day run holds about 1 GB). The scenario building and the SUMO runs are in
Tests/Clients/sumo_district.py (district_day), which the client test uses on a short peak."""
from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402
from store_copy import copy_store  # noqa: E402
import sumo_district  # noqa: E402


def main() -> None:
    binary, store, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    period = sys.argv[4] if len(sys.argv) > 4 else "00:00-24:00"
    seeds = [int(x) for x in sys.argv[5].split(",")] if len(sys.argv) > 5 else [7]
    jobs = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    work.mkdir(parents=True, exist_ok=True)
    copy = copy_store(store, work / "district.sqlite")
    started = time.perf_counter()
    scenarios = sumo_district.district_scenarios(binary, copy, work, period)
    exported = time.perf_counter() - started
    tasks = [(seed, control) for seed in seeds for control in scenarios]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        runs = dict(zip(tasks, pool.map(lambda t: sumo_district.simulate_scenario(scenarios[t[1]], t[1], t[0]), tasks)))
    print(f"district {period}, seeds {','.join(map(str, seeds))}: export {exported:.0f} s, "
          f"{len(tasks)} SUMO runs in {time.perf_counter() - started - exported:.0f} s ({jobs} at once):")
    total = {control: 0.0 for control in scenarios}
    for seed in seeds:
        print(f" seed {seed}:")
        for control in scenarios:
            print("  " + runs[(seed, control)].line())
            total[control] += runs[(seed, control)].delay_s
        fixed, adaptive, actuated = (runs[(seed, c)].delay_s for c in ("fixed", "adaptive", "actuated"))
        print(f"  adaptive vs fixed: {100 * (adaptive / fixed - 1):+.1f} %; adaptive vs actuated: {100 * (adaptive / actuated - 1):+.1f} %")
    if len(seeds) > 1:
        print(f" all seeds: fixed {total['fixed'] / 3600:.1f}, adaptive {total['adaptive'] / 3600:.1f}, actuated {total['actuated'] / 3600:.1f} veh-h")
    print(f"  adaptive vs fixed: {100 * (total['adaptive'] / total['fixed'] - 1):+.1f} % (goal < 0); "
          f"adaptive vs actuated: {100 * (total['adaptive'] / total['actuated'] - 1):+.1f} % (goal <= 0)")


if __name__ == "__main__":
    main()

"""The sample district's day in SUMO 1.28 (issue 16, Done when): the whole district on its road graph
with the weekday's 15-minute counts as time-varying demand, run three ways on the same demand —
the controllers' current fixed plans, CityTwin's re-timed time-of-day plans (switched by WAUT), and
SUMO's own gap-based `actuated` control on the same stages — printing total delay (tripinfo
timeLoss + departDelay), vehicles demanded/inserted/finished and teleports for each.

    python3 Benchmarks/signals/district_day.py CITYTWIN STORE WORK [PERIOD] [SEED]

STORE is copied into WORK (the re-timed plans are written to the copy). PERIOD defaults to the
whole counted day, 00:00-24:00. The scenario building and the SUMO runs are in
Tests/Clients/sumo_signals.py (district_day), which the client test uses on a short peak."""
from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402


def main() -> None:
    binary, store, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    period = sys.argv[4] if len(sys.argv) > 4 else "00:00-24:00"
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 7
    work.mkdir(parents=True, exist_ok=True)
    copy = work / "district.sqlite"
    with sqlite3.connect(store) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    started = time.perf_counter()
    runs = sumo_signals.district_day(binary, copy, work, period, seed)
    print(f"district {period} (seed {seed}), SUMO {time.perf_counter() - started:.0f} s for export and three runs:")
    for run in runs.values():
        print("  " + run.line())
    fixed, adaptive, actuated = runs["fixed"], runs["adaptive"], runs["actuated"]
    print(f"  adaptive vs fixed: {100 * (adaptive.delay_s / fixed.delay_s - 1):+.1f} % (goal < 0); "
          f"adaptive vs actuated: {100 * (adaptive.delay_s / actuated.delay_s - 1):+.1f} % (goal <= 0)")


if __name__ == "__main__":
    main()

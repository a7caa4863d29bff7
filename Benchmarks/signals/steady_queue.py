"""The delay of a fixed-time signal's idealised queue, computed exactly, against SUMO (issue 16, the per-approach
criterion): Poisson arrivals at the plan's flow, departures one saturation headway apart during the plan's
effective green, the queue's distribution carried second by second round the cycle until it repeats (the steady
state of a long, steady replay). This is the model Webster's formula was fitted to by simulation, without his
empirical correction and without HCM's 15-minute analysis period: the question it answers is whether SUMO's
delay is the idealised queue's, so that a better formula would close the remaining misses.

    python3 Benchmarks/signals/steady_queue.py WORK/results.json     # a random_isolated.py run

Prints, per approach (lane groups weighted by SUMO's vehicles, as random_isolated.py reads the criterion), mean,
max and bias of predicted - SUMO for HCM 2000 d1 + d2 (the plans' `delay_s`), Webster's delay, the idealised
queue, and the queue plus what a car leaving it loses accelerating after the stop line (`acceleration_loss`).
reference_crossroads.py prints the same columns for the reference's crossroads."""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def delay(flow_veh_h: float, saturation_veh_h: float, effective_green_s: float, cycle_s: float,
          slots_per_headway: int = 6, tolerance_s: float = 1e-6, most_cycles: int = 2000) -> float:
    """Mean delay (s/veh) of the steady cyclic queue: state (queue length, slots since the last departure); a
    departure leaves when the queue is not empty, the signal is in its effective green and a whole saturation
    headway has passed since the last one. Delay is the queue's area over the cycle's arrivals (Little). The
    slots add under 0.1 s (10 veh/h, g 30 of 60 s: 7.63 s against d1's 7.54 s): if anything, above the queue."""
    headway = 3600.0 / saturation_veh_h
    slot = headway / slots_per_headway
    arrivals_per_slot = flow_veh_h / 3600.0 * slot
    slots = int(round(cycle_s / slot))
    green_slots = int(round(effective_green_s / slot))
    longest = int(max(60, 8 * flow_veh_h / 3600.0 * cycle_s + 40))
    m = slots_per_headway
    arrivals = np.array([math.exp(-arrivals_per_slot) * arrivals_per_slot ** k / math.factorial(k) for k in range(6)])
    arrivals /= arrivals.sum()
    state = np.zeros((longest + 1, m + 1))
    state[0, m] = 1.0
    lengths = np.arange(longest + 1)
    previous = math.inf
    for _ in range(most_cycles):
        area = 0.0
        for t in range(slots):
            arrived = arrivals[0] * state
            for k in range(1, len(arrivals)):
                arrived[k:] += arrivals[k] * state[:-k]
                arrived[-1] += arrivals[k] * state[-k:].sum(axis=0)  # the (negligible) tail kept at the cap
            if t < green_slots:
                leaving = arrived[1:, m].copy()
                arrived[1:, m] = 0.0
                arrived[:-1, 0] += leaving
            advanced = np.zeros_like(arrived)
            advanced[:, 1:] = arrived[:, :-1]
            advanced[:, m] += arrived[:, m]
            if t >= green_slots:  # in the red the next departure is free to go at green start
                advanced[:, m] += advanced[:, :m].sum(axis=1)
                advanced[:, :m] = 0.0
            state = advanced
            area += float(state.sum(axis=1) @ lengths) * slot
        mean = area / (flow_veh_h / 3600.0 * cycle_s)
        if abs(mean - previous) < tolerance_s:
            return mean
        previous = mean
    return mean


def of_approach(cycle_s: float, approach: dict) -> float:
    """The idealised queue's delay for one lane group of a plan's JSON (`signal plan --json` approaches)."""
    effective_green = approach["capacity_veh_h"] / approach["saturation_veh_h"] * cycle_s
    return delay(approach["flow_veh_h"], approach["saturation_veh_h"], effective_green, cycle_s)


# The kinematics of SUMO 1.28's default car on the export's arms: cruising speed, acceleration (2.6 m/s^2, and
# 1.95 m/s^2 on average with its dawdling, sigma 0.5, taking a quarter of it), a queued car's length plus gap, and
# the time gap of a following car (Newell's car following: spacing = jam spacing + tau x speed).
CRUISE_M_S, JAM_SPACING_M, TIME_GAP_S = 13.89, 7.5, 1.0
ACCELERATIONS_M_S2 = (2.6, 1.95)


def acceleration_loss(cycle_s: float, approach: dict, lanes: int, acceleration_m_s2: float) -> float:
    """The time a car lost after the stop line, which the queue does not count (s/veh): a car that leaves a queue
    crosses the line below cruising speed, the first from standstill, the n-th after (n - 1) jam spacings of
    acceleration and at most the discharge speed at which the saturation headway is one jam spacing plus the time
    gap; each then loses (v - u)^2 / (2 a v) reaching v. A cycle's queue is the cars that stop (uniform arrivals,
    (1 - g/C) / (1 - y)), per lane."""
    flow = approach["flow_veh_h"] / lanes / 3600.0
    saturation = approach["saturation_veh_h"] / lanes / 3600.0
    green_share = approach["capacity_veh_h"] / approach["saturation_veh_h"]
    stopping = min(1.0, (1 - green_share) / (1 - flow / saturation)) * flow * cycle_s
    discharge = min(CRUISE_M_S, JAM_SPACING_M / max(1 / saturation - TIME_GAP_S, 1e-3))
    lost, n = 0.0, 0
    while n < stopping:
        speed = min(discharge, math.sqrt(2 * acceleration_m_s2 * n * JAM_SPACING_M))
        lost += min(1.0, stopping - n) * (CRUISE_M_S - speed) ** 2 / (2 * acceleration_m_s2 * CRUISE_M_S)
        n += 1
    return lost / (flow * cycle_s)


def main() -> None:
    import random_isolated as ri

    results = json.loads(Path(sys.argv[1]).read_text())
    drawn = [ri.Drawn(f["id"], [], f, {}, 0.0) for f in results["features"]]
    evaluations = {(k.split("#")[0], int(k.split("#")[1])): v for k, v in results["evaluations"].items()}
    rows = ri.collect(drawn, evaluations)
    timings = results["timings"]
    queue = {(r.intersection, r.group): of_approach(timings[r.intersection]["cycle_s"], timings[r.intersection]["approaches"][r.group])
             for r in rows}

    def line(name: str, predicted) -> None:
        misses = [ri.arm_difference(members, predicted) for members, _ in ri.approach_misses(rows, predicted=predicted).values()]
        mean, worst = sum(map(abs, misses)) / len(misses), max(map(abs, misses))
        print(f"{name:<32}{len(misses)} approaches: mean {mean:.2f} s, max {worst:.2f} s, bias {sum(misses) / len(misses):+.2f} s")

    line("HCM 2000 d1 + d2 (delay_s)", lambda r: r.predicted)
    line("Webster", lambda r: r.webster if r.webster is not None else math.inf)
    line("idealised queue (steady state)", lambda r: queue[(r.intersection, r.group)])
    for a in ACCELERATIONS_M_S2:
        line(f"queue + acceleration, {a} m/s2", lambda r, a=a: queue[(r.intersection, r.group)] + acceleration_loss(
            timings[r.intersection]["cycle_s"], timings[r.intersection]["approaches"][r.group], r.lanes, a))


if __name__ == "__main__":
    main()

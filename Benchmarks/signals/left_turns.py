"""How left turns discharge in SUMO 1.28 on CityTwin's own export (issue 16): the measurements behind
the sample district's `permitted_left_critical_gap_s` / `permitted_left_follow_up_s` and the check of
the planner's protected-left saturation flow (0.95 x 1800 veh/h).

    python3 Benchmarks/signals/left_turns.py CITYTWIN STORE WORK

On `citytwin signal export-sumo --intersection SI-009` (four arms, 3 through lanes and a left lane
from N and S), with one programme per measurement:
- protected: N's left lane alone, 90 s red / 40 s green, a queue every cycle; the mean headway of the
  5th and later vehicles of each green is the saturation flow;
- permitted: N's left turns on a permanent yielding green (`g`) against S's through and right traffic
  on its permanent green, at several opposing flows; left turns per hour through the opposing gaps
  with a queue always waiting. Printed next to HCM 2010's gap-acceptance saturation flow
  s = v e^(-v tc/3600) / (1 - e^(-v tf/3600)) for HCM's (4.5, 2.5 s) and the fitted (6.5, 3.0 s)."""
from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "Clients"))
import sumo_signals  # noqa: E402
from export_runs import link_indices, run  # noqa: E402


def gap_acceptance(v: float, tc: float, tf: float) -> float:
    return v * math.exp(-v * tc / 3600) / (1 - math.exp(-v * tf / 3600))


def main() -> None:
    binary, store, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    scenario = work / "si009"
    sumo_signals.run_citytwin(binary, "signal", "export-sumo", "--out", str(scenario), "--intersection", "SI-009",
                              "--period", "07:00-08:00", "--store", str(store))
    net = scenario / "network.net.xml"
    index = link_indices(net, "SI-009")
    size = 1 + max(i for idx in index.values() for i in idx)
    north, south = "SI-009_N_to_SI-009", "SI-009_S_to_SI-009"

    def state(rule) -> str:
        by_index = {i: key for key, idx in index.items() for i in idx}
        return "".join(rule(by_index.get(i)) for i in range(size))

    for name, key, to, lane in (("protected left", (north, "l"), "SI-009_to_SI-009_E", 3),):
        green = state(lambda k: "G" if k == key else "r")
        flow = f'<flow id="f" type="car" begin="0" end="3600" vehsPerHour="1500" from="{north}" to="{to}" departLane="{lane}" departSpeed="max"/>'
        arrivals = sorted(float(t.get("arrival")) for t in run(work, net, "SI-009", name.split()[0], [(90, "r" * size), (40, green)], [flow], 5000))
        bursts, current = [], [arrivals[0]]
        for a in arrivals[1:]:
            if a - current[-1] > 20:
                bursts.append(current)
                current = [a]
            else:
                current.append(a)
        bursts.append(current)
        headways = [b - a for burst in bursts if len(burst) >= 12 for a, b in zip(burst[4:-1], burst[5:])]
        h = sum(headways) / len(headways)
        print(f"{name}: mean headway of the 5th and later vehicles {h:.3f} s -> {3600 / h:.0f} veh/h "
              "(the plans assume 0.95 x 1800 = 1710; SUMO's through lane: 1851-1859, shared/reference/signals.md)")

    print("permitted left (N, yielding) against S's through + right on three lanes:")
    for opposing in (200, 400, 600, 800, 1000, 1200):
        program = state(lambda k: "g" if k == (north, "l") else "G" if k in ((south, "s"), (south, "r")) else "r")
        flows = [f'<flow id="L" type="car" begin="0" end="3600" vehsPerHour="1200" from="{north}" to="SI-009_to_SI-009_E" departLane="3" departSpeed="max"/>',
                 f'<flow id="T" type="car" begin="0" end="3600" period="exp({0.88 * opposing / 3600:.6f})" from="{south}" to="SI-009_to_SI-009_N" departLane="random" departSpeed="max"/>',
                 f'<flow id="R" type="car" begin="0" end="3600" period="exp({0.12 * opposing / 3600:.6f})" from="{south}" to="SI-009_to_SI-009_E" departLane="0" departSpeed="max"/>']
        trips = run(work, net, "SI-009", f"permitted-{opposing}", [(100000, program)], flows, 3600)
        lefts = [float(t.get("arrival")) for t in trips if t.get("id").startswith("L") and 600 <= float(t.get("arrival")) < 3600]
        print(f"  opposing {opposing:4d} veh/h: SUMO {len(lefts) / 3000 * 3600:4.0f} veh/h; gap acceptance (4.5, 2.5 s) "
              f"{gap_acceptance(opposing, 4.5, 2.5):4.0f}, (6.5, 3.0 s) {gap_acceptance(opposing, 6.5, 3.0):4.0f}")


if __name__ == "__main__":
    main()

"""Treatment expressions at nodes (SWMM 5.2's [TREATMENT]) run through SWMM 5.2.4 (swmm-toolkit
0.17.0) for the treatment parity test (SWMMTreatmentParityTests).

The models are the quality parity test's MIX model (make_swmm_quality_fixtures.py: four
pollutants with buildup and washoff, a co-pollutant, decay, external and dry-weather pollutant
inflows, a storage unit) with treatment at three nodes, covering what treatmnt.c evaluates:

- ST1 (storage): TSS removed by first-order settling over the hydraulic residence time (HRT,
  which replaces TSS's decay in the unit), LEAD removed with TSS (R_TSS), COD's outflow
  concentration over the surface AREA and the water DEPTH.
- J1: TSS removed in proportion to the inflow's concentration (a removal line reads its inflow).
- J3: FC (a count pollutant) reduced by a step of the FLOW (model flow units, L/s) and DT.

Cases: TREAT (kinematic wave) and TREAT_DW (dynamic wave). Writes
Tests/FloodSimTests/Fixtures/swmm/treatment/<CASE>.inp and treatment.json in the shape of the
quality parity fixtures (pollutants, runoff and routing continuity, washoff, outfall and link
loads in kg or counts, flooding and outflow in m³).

Run: .venv/bin/python Scripts/reference/make_swmm_treatment_fixtures.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_swmm_quality_fixtures import MIX, reference  # noqa: E402

OUT = os.path.join(HERE, "..", "..", "Tests", "FloodSimTests", "Fixtures", "swmm", "treatment")

TREATMENT = """[TREATMENT]
ST1  TSS   R = 1 - EXP(-0.8 * HRT)
ST1  LEAD  R = 0.6 * R_TSS
ST1  COD   C = COD * (0.5 + 0.5 * 400 / (AREA + 400 * DEPTH))
J1   TSS   R = 0.3 * TSS / (TSS + 30)
J3   FC    C = FC * (1 - 0.4 * STEP(FLOW - 50)) * EXP(-DT / 3600)

[REPORT]"""


def main():
    os.makedirs(OUT, exist_ok=True)
    treat = MIX.replace("[REPORT]", TREATMENT, 1).replace("Water quality mix", "Water quality mix with treatment")
    models = {"TREAT": treat, "TREAT_DW": treat.replace("KINWAVE", "DYNWAVE")}
    table = {}
    for name, text in models.items():
        path = os.path.join(OUT, name + ".inp")
        with open(path, "w") as f:
            f.write(text)
        table[name] = reference(path)
    with open(os.path.join(OUT, "treatment.json"), "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
    for name, r in table.items():
        for p in r["pollutants"]:
            q = r["routing_continuity"][p]
            print(f"{name:9s} {p:5s} outflow {q['external_outflow']:12.4f} reacted {q['mass_reacted']:12.4f} err {q['error_pct']:6.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Peers of flood-bench's surface kernel: landlab OverlandFlow and itzi's SurfaceFlowSimulation
on the grid and scenario that Benchmarks/FloodBench reads (flood.md §5.3).

  surface_peers.py make-inputs DIR [SIZE]   writes DIR/dem_SIZE.f32 (row-major float32, row 0 north)
  surface_peers.py run DIR SIZE STEPS [PEERS]
                                            runs each peer (PEERS: comma list, default landlab,itzi)
                                            STEPS steps of 0.5 s, prints one JSON line

landlab is numpy (one thread). itzi's Cython kernel is OpenMP-parallel: OMP_NUM_THREADS sets
its threads (run_surface.sh runs it with 1 and with 2).

Scenario (same as flood-bench): SIZE x SIZE cells of 2 m, a tilted and undulating DEM, 0.05 m
of water everywhere at the start, 50 mm/h of rain, Manning n 0.03, closed edges, fixed 0.5 s steps.
"""
import json, os, sys, time
import numpy as np

DX, N, RAIN_MMH, H0, DT = 2.0, 0.03, 50.0, 0.05, 0.5


def dem_path(d, size):
    return os.path.join(d, f"dem_{size}.f32")


def make_inputs(d, size):
    os.makedirs(d, exist_ok=True)
    path = dem_path(d, size)
    if os.path.exists(path):
        return
    col, row = np.meshgrid(np.arange(size, dtype=np.float64), np.arange(size, dtype=np.float64))
    z = 0.002 * (size - col) * DX + 0.3 * np.sin(col / 40.0) * np.cos(row / 50.0)
    z.astype("<f4").tofile(path)


def load(d, size):
    return np.fromfile(dem_path(d, size), dtype="<f4").reshape(size, size).astype(np.float64)


def run_landlab(z, steps):
    from landlab import RasterModelGrid
    from landlab.components import OverlandFlow
    import landlab
    size = z.shape[0]
    grid = RasterModelGrid((size, size), xy_spacing=DX)
    # landlab's rows run south to north; flip so node rows match the file's north-first rows.
    grid.add_field("topographic__elevation", z[::-1].ravel().copy(), at="node")
    grid.add_field("surface_water__depth", np.full(size * size, H0), at="node")
    grid.set_closed_boundaries_at_grid_edges(True, True, True, True)
    of = OverlandFlow(grid, mannings_n=N, alpha=0.7, theta=0.8, h_init=1e-5,
                      rainfall_intensity=RAIN_MMH / 3_600_000)
    of.run_one_step(dt=DT)  # warm-up (allocations, first-call paths)
    t0 = time.perf_counter()
    for _ in range(steps):
        of.run_one_step(dt=DT)
    seconds = time.perf_counter() - t0
    h = grid.at_node["surface_water__depth"]
    return {"seconds": seconds, "steps": steps, "cells": size * size,
            "cell_steps_per_s": size * size * steps / seconds,
            "storage_m3": float(h.sum() * DX * DX), "version": landlab.__version__}


def run_itzi(z, steps):
    import itzi
    from itzi.rasterdomain import RasterDomain
    from itzi.surfaceflow import SurfaceFlowSimulation
    size = z.shape[0]
    dom = RasterDomain(dtype=np.float64, arr_mask=np.zeros((size, size), dtype=bool), cell_shape=(DX, DX))
    dom.update_array("dem", z.copy())
    dom.update_array("friction", np.full((size, size), N))
    dom.update_array("water_depth", np.full((size, size), H0))
    # Effective precipitation in m/s; itzi folds it with inflows and drainage into its 'ext' array.
    dom.get_array("eff_precip")[:] = RAIN_MMH / 3_600_000  # an internal array: written in place
    dom.update_ext_array()
    param = {"dtmax": DT, "cfl": 0.7, "g": 9.80665, "theta": 0.9, "hmin": 0.005, "slmax": 0.5, "vrouting": 0.1}
    sim = SurfaceFlowSimulation(dom, param)
    sim.update_flow_dir()
    sim._dt = DT
    sim.step()  # warm-up
    t0 = time.perf_counter()
    for _ in range(steps):
        sim._dt = DT
        sim.step()
    seconds = time.perf_counter() - t0
    h = dom.get_array("water_depth")
    return {"seconds": seconds, "steps": steps, "cells": size * size,
            "cell_steps_per_s": size * size * steps / seconds,
            "storage_m3": float(h.sum() * DX * DX), "version": getattr(itzi, "__version__", "25.8")}


def main():
    cmd, d = sys.argv[1], sys.argv[2]
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
    if cmd == "make-inputs":
        make_inputs(d, size)
        return
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    peers = (sys.argv[5] if len(sys.argv) > 5 else "landlab,itzi").split(",")
    z = load(d, size)
    out = {"omp_num_threads": os.environ.get("OMP_NUM_THREADS")}
    if "landlab" in peers:
        out["landlab"] = run_landlab(z, steps)
    if "itzi" in peers:
        try:
            out["itzi"] = run_itzi(z, steps)
        except Exception as e:  # report, do not hide, why itzi could not run
            out["itzi"] = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out))


if __name__ == "__main__":
    main()

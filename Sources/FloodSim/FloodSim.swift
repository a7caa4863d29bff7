// FloodSim: urban flood kernels (rainfall, runoff, SWMM-compatible 1D hydraulics, 2D surface, coupling).

// Network: road and utility graphs (routing, nearest-N, isochrones, traces, valve isolation).

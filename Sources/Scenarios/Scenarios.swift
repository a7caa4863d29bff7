// Scenarios: adapters between the store and the kernels.

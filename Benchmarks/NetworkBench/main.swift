print("network-bench: not yet written")

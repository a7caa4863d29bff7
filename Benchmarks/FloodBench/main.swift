print("flood-bench: not yet written")

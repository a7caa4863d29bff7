import GeoCore
print("geocore-bench: nothing yet")

// NetworkAnalysis: pure kernels over plain graphs.
//
// - Graph/: shared primitives (`CompactGraph` CSR adjacency, `MinHeap` priority queue).
// - Roads/: the road network (`RoadLine` → `RoadNetwork` split at shared vertices), travel
//   profiles, `RoadGraph` with its `ContractionHierarchy`, snapping to edge positions, routes,
//   one-to-many / many-to-many travel times, nearest-N targets, service areas, query-time
//   closures. Coordinates are projected metres (CGCS2000 Gauss-Krüger, e.g. EPSG:4547); the store
//   adapter in `Scenarios` reprojects from EPSG:4490.
// - Utility/: upstream/downstream traces and valve isolation.

"""The web map's 3D view, checked by pixels (part of Scripts/webmap_check.py, signed in as a
department after a flood run; Sources/Server/WebMap/map-3d.js is the view):

- the camera over the run's flooded buildings, a 2D screenshot (webmap-3d-flat.png), then the
  3D toggle: terrain from the managed DEM on, the camera pitched, webmap-3d.png;
- extruded buildings: hiding the extrusion layer changes a good part of the map, and the changed
  pixels are the extrusion colour in at least two distinct shades (lit roofs and shaded side
  faces), where the 2D view has one flat fill;
- the flood draped: the depth classes' colours are on the 3D map (the depth layer drawn on the
  terrain), and the run's flooded buildings are extruded in their highlight colour;
- the transparent surface: the drainage pipes and manholes drawn in their depth colours
  (webmap-3d-underground.png); back to 2D: pitch 0, no terrain.
"""
import json, os, urllib.request

from browser_devtools import evaluate, wait_for, screenshot, rect, hex_rgb, count_colour, fail


def redraw_idle(js):
    """As browser_devtools.redraw_idle, with three minutes for the terrain and extrusions (SwiftShader on a busy machine)."""
    evaluate("document.documentElement.dataset.mapIdle = 'false'; (() => { const m = window.citytwin.map; "
             f"{js}; m.once('idle', () => {{ document.documentElement.dataset.mapIdle = 'true'; }}); m.triggerRepaint(); }})()")
    wait_for("document.documentElement.dataset.mapIdle === 'true'", "the 3D map did not finish drawing", 180)

BUILDING, FLOODED = hex_rgb("#c9c2b8"), hex_rgb("#fa8c16")
PIPE_DEPTHS = ["#13c2c2", "#1677ff", "#722ed1", "#eb2f96"]


def shade_of(p, base, tolerance=0.045):
    """Whether pixel p is base lit or shaded (each channel the same factor of base's)."""
    if sum(p) < 60:
        return False
    k = [p[i] / base[i] for i in range(3)]
    return max(k) - min(k) <= tolerance * max(k) and 0.35 <= k[0] <= 1.25


def shades(image, box, base, mask=None):
    """Pixels of base's shades in box (where mask holds, when given), by brightness bucket (16 levels)."""
    w, h, rows = image
    buckets = {}
    for y in range(box[1], box[3], 2):
        for x in range(box[0], box[2], 2):
            if mask is not None and (x, y) not in mask:
                continue
            p = rows[y][x]
            if shade_of(p, base):
                b = sum(p) // 48
                buckets[b] = buckets.get(b, 0) + 1
    return buckets


def get(server, token, path):
    return json.load(urllib.request.urlopen(urllib.request.Request(server + path, headers={
        "Accept": "application/geo+json", "Authorization": f"Bearer {token}"})))


def spot(server, token, depth):
    """Where to look: the ~300 m cell with the most buildings weighted by the flood in it (the depth
    polygons' vertices there, up to 40), the run's flooded buildings counting ten times."""
    stem = depth[:-len("_depth")]
    cell = 0.003
    key = lambda x, y: (round(x / cell), round(y / cell))
    def rings(g):
        return [g["coordinates"][0]] if g["type"] == "Polygon" else [p[0] for p in g["coordinates"]] if g["type"] == "MultiPolygon" else []
    wet = {}
    for f in get(server, token, f"/collections/{depth}/items?limit=100")["features"]:
        for ring in rings(f["geometry"]):
            for x, y in ring:
                wet[key(x, y)] = wet.get(key(x, y), 0) + 1
    score = {}
    for layer, weight in (("buildings", 1), (f"{stem}_buildings", 10)):
        for f in get(server, token, f"/collections/{layer}/items?limit=10000")["features"]:
            ring = rings(f["geometry"])[0] if f.get("geometry") and rings(f["geometry"]) else None
            if ring:
                k = key(sum(p[0] for p in ring) / len(ring), sum(p[1] for p in ring) / len(ring))
                if k in wet:  # buildings where the flood's outlines are many (more flood in view)
                    score[k] = score.get(k, 0) + weight * min(wet[k], 40)
    if not score:
        fail(f"no buildings where {depth} is wet: nothing to look at in 3D")
    best = max(score, key=score.get)
    return [best[0] * cell, best[1] * cell]


def check_3d(server, token, artifacts, depth, depth_colours):
    centre = spot(server, token, depth)
    camera = f"center: {json.dumps(centre)}, zoom: 16"
    box = rect("#map")
    box = (box[0] + 10, box[1] + 10, box[2] - 10, box[3] - 10)
    redraw_idle(f"m.jumpTo({{{camera}, pitch: 0, bearing: 0}})")
    screenshot("webmap-3d-flat.png")

    evaluate("document.getElementById('view-3d').click()")
    wait_for("document.documentElement.dataset.view3d === 'on'", "the 3D toggle did not switch the view", 60)
    terrain = evaluate("document.documentElement.dataset.terrain")
    if terrain != "on" or not evaluate("!!window.citytwin.map.getTerrain()"):
        fail(f"the 3D view has no terrain (data-terrain={terrain}): the DEM's raster-dem source was not set")
    redraw_idle(f"m.jumpTo({{{camera}, pitch: 60, bearing: -30}})")
    pitch = evaluate("window.citytwin.map.getPitch()")
    image = screenshot("webmap-3d.png")
    redraw_idle("m.setLayoutProperty('ct3d-buildings', 'visibility', 'none')")
    bare = screenshot("webmap-3d-bare.png")
    redraw_idle("m.setLayoutProperty('ct3d-buildings', 'visibility', 'visible')")
    os.remove(os.path.join(artifacts, "webmap-3d-bare.png"))
    w, h, rows = image
    changed = {(x, y) for y in range(box[1], box[3], 2) for x in range(box[0], box[2], 2) if rows[y][x] != bare[2][y][x]}
    area = ((box[2] - box[0]) // 2) * ((box[3] - box[1]) // 2)
    building = shades(image, box, BUILDING, changed)
    total = sum(building.values())
    distinct = sorted(b for b, n in building.items() if n >= 0.05 * max(total, 1))
    orange = sum(shades(image, box, FLOODED, changed).values())
    print(f"webmap_check: 3D view (pitch {pitch:.0f}°, terrain on): buildings cover {100 * len(changed) / area:.1f}% of the map; "
          f"{total} px in the extrusion colour in shades {distinct}; {orange} px of flooded buildings")
    if len(changed) < 0.03 * area:
        fail(f"the 3D view shows almost no extruded buildings ({len(changed)} of {area} sampled pixels change without them)")
    if total < 0.3 * len(changed) or len(distinct) < 2:
        fail(f"the buildings are not extruded: {total} px of the extrusion colour in shades {building}")
    highlighted = int(evaluate("document.documentElement.dataset.highlighted || '0'"))
    if highlighted and orange < 30:
        fail(f"{highlighted} flooded or cut-off buildings, but the flooded buildings' colour is not on the 3D map ({orange} px)")
    draped = {c: count_colour(image, box, hex_rgb(c), tolerance=6) for c in depth_colours}
    print(f"webmap_check: the flood draped on the terrain: depth colours {draped}")
    if sum(draped.values()) < 200:
        fail(f"the flood's depth is not drawn on the 3D terrain (depth colours {draped})")

    evaluate("document.getElementById('surface-transparent').click()")
    wait_for("['on', 'off'].includes(document.documentElement.dataset.underground)", "the transparent surface did not apply", 60)
    if evaluate("document.documentElement.dataset.underground") != "on":
        fail("the transparent surface did not draw the drainage pipes")
    redraw_idle(f"m.jumpTo({{{camera}, pitch: 55, bearing: -30}})")
    under = screenshot("webmap-3d-underground.png")
    pipes = {c: count_colour(under, box, hex_rgb(c), tolerance=8) for c in PIPE_DEPTHS}
    manholes = evaluate("document.documentElement.dataset.manholes")
    print(f"webmap_check: transparent surface: pipes and manholes by depth {pipes} ({manholes} manholes' depths)")
    if sum(pipes.values()) < 150 or sum(1 for n in pipes.values() if n >= 20) < 2:
        fail(f"the transparent surface does not show the pipes by depth: {pipes}")
    evaluate("document.getElementById('view-3d').click()")
    wait_for("document.documentElement.dataset.view3d === 'off'", "the 2D toggle did not switch back", 60)
    if evaluate("window.citytwin.map.getPitch()") != 0 or evaluate("!!window.citytwin.map.getTerrain()"):
        fail("back in 2D, the map is still pitched or on terrain")
    redraw_idle("m.resize()")
    print("webmap_check: back to 2D (pitch 0, no terrain)")

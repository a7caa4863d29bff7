"""The web map's 3D view, checked by pixels (part of Scripts/webmap_check.py, signed in as a
department after a flood run; Sources/Server/WebMap/map-3d.js is the view):

- a flood that floods buildings: the page's quick runs flood none, so a short heavy design storm
  with the rivers high (CLOUDBURST: 100 a, 30 min, the 长江 and 举水 at 25.0 m, on 20 m cells) is run
  through the flood-scenario process; it must flood buildings and cut off emergency resources, and
  only its layers are switched on;
- the camera over its flooded buildings, a 2D screenshot (webmap-3d-flat.png), then the 3D toggle:
  terrain from the managed DEM on, the camera pitched, webmap-3d.png;
- extruded buildings: hiding the extrusion layer changes a good part of the map, and the changed
  pixels are the extrusion colour in at least two distinct shades (lit roofs and shaded side
  faces), where the 2D view has one flat fill;
- the flood draped: the depth classes' colours are on the 3D map (the depth layer drawn on the
  terrain); the flooded buildings are extruded in orange (webmap-3d.png) and, with the camera on
  a cut-off resource, its building in red (webmap-3d-cutoff.png): each colour's shades found among
  the pixels the extrusions draw;
- the transparent surface: the drainage pipes and manholes drawn in their depth colours
  (webmap-3d-underground.png); back to 2D: pitch 0, no terrain.
"""
import json, os, sys, time, urllib.request

import browser_devtools
from browser_devtools import call, connect, evaluate, wait_for, wait_idle, screenshot, rect, hex_rgb, count_colour, fail


def redraw_idle(js):
    """As browser_devtools.redraw_idle, with three minutes for the terrain and extrusions (SwiftShader on a busy machine)."""
    evaluate("document.documentElement.dataset.mapIdle = 'false'; (() => { const m = window.citytwin.map; "
             f"{js}; m.once('idle', () => {{ document.documentElement.dataset.mapIdle = 'true'; }}); m.triggerRepaint(); }})()")
    wait_for("document.documentElement.dataset.mapIdle === 'true'", "the 3D map did not finish drawing", 180)

BUILDING, FLOODED, CUTOFF = hex_rgb("#c9c2b8"), hex_rgb("#fa8c16"), hex_rgb("#cf1322")
# The flood of the 3D check: a 100-a, 30-min cloudburst (Wuhan's formula, as
# Models/scenarios/p50-waterlogging.json but the return period and duration) while the 长江 and the
# 举水 stand at 25.0 m, on 20 m cells (demCoarsening 2). 25.0 m is the 长江邾城站 gauge's warning level
# and between the 举水邾城站 gauge's warning (23.6 m) and guarantee (25.1 m) levels, below both levees:
# the rivers as in July 2016, when the 长江 at Hankou rose past its warning level and the 举水 broke
# its levees while Wuhan's storms of 30 June–6 July fell; the gated outfalls to the 举水 below the stage
# then stay shut. With the manholes at GB 50014 spacing, the pumping stations' wet wells and the
# Preissmann slot (branch district53c, debug CLI, 2026-11-28, load 15–19): 4 buildings flooded at the
# ground floor (3 once two manholes were kept so every joined pipe carries its design flow, 02:19 UTC),
# 2 emergency resources cut off (邾城消防救援站 and its 特勤班, 邾城大街 0.19 m deep),
# 25 road segments, in 107 s of CPU (16 min wall at that load; the job's deadline below is 30 min).
# The same storm on 50 m cells floods 2 buildings and cuts off none, at the 19.5 m stage of the
# design scenarios as at 25.0 m; on 30 m cells 2 and 0 (Benchmarks/swmm/README.md, issue 53 §3):
# coarse cells spread a manhole's spill too thin to close a road.
CLOUDBURST = {"id": "p100-cloudburst", "title": "100 年一遇 30 min 短历时暴雨，长江、举水 25.0 m（三维视图检查）", "return_period_a": 100,
              "duration_min": 30, "peak_ratio": 0.4, "time_step_min": 5, "storm_formula": "wuhan-manual",
              "outfall_stage_m": 25.0, "stage_receiving_waters": ["长江", "举水"], "ground_floor_sill_m": 0.15}
CLOUDBURST_DEM_COARSENING = 2
PIPE_DEPTHS = ["#13c2c2", "#1677ff", "#722ed1", "#eb2f96"]


def shade_of(p, base, tolerance=12):
    """Whether pixel p is base lit or shaded: base scaled by one factor (0.35–1.25, from the pixel's
    brightness), each channel within `tolerance` levels of it. Absolute, not per channel ratios:
    MapLibre's extrusion lighting lifts a dark channel by a few levels (orange #fa8c16's blue 22
    is drawn 30 on a lit face), which a ratio test reads as another colour."""
    if sum(p) < 60:
        return False
    k = sum(p) / sum(base)
    return 0.35 <= k <= 1.25 and all(abs(p[i] - k * base[i]) <= tolerance for i in range(3))


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


def get(server, token, path, body=None, accept="application/geo+json"):
    """GET path (POST body as JSON, asynchronously, when given) with the caller's token."""
    headers = {"Accept": accept, "Authorization": f"Bearer {token}"}
    if body is not None:
        headers.update({"Content-Type": "application/json", "Prefer": "respond-async"})
    return json.load(urllib.request.urlopen(urllib.request.Request(
        server + path, data=None if body is None else json.dumps(body).encode(), headers=headers)))


def run_cloudburst(server, token):
    """Runs CLOUDBURST as a flood-scenario job, waits for it and returns its layers' stem; fails
    unless it floods buildings and cuts off resources (the highlights would have nothing to show)."""
    job = get(server, token, "/processes/flood-scenario/execution", {"inputs": {"scenario": CLOUDBURST, "demCoarsening": CLOUDBURST_DEM_COARSENING}},
              accept="application/json")["jobID"]
    started, deadline = time.time(), time.time() + 1800
    while (status := get(server, token, f"/jobs/{job}", accept="application/json"))["status"] != "successful":
        if status["status"] in ("failed", "dismissed") or time.time() > deadline:
            fail(f"the 3D check's flood run ({CLOUDBURST['id']}) did not succeed: {status}")
        time.sleep(2)
    out = get(server, token, f"/jobs/{job}/results", accept="application/json")
    summary = out.get("summary", {})
    flooded, cut = summary.get("floodedBuildings", 0), summary.get("cutOffResources", 0)
    print(f"webmap_check: the 3D check's flood run {CLOUDBURST['id']}: {flooded} buildings flooded at the ground floor, "
          f"{cut} emergency resources cut off ({time.time() - started:.0f} s)")
    if not flooded or not cut:
        fail(f"{CLOUDBURST['id']} floods {flooded} buildings and cuts off {cut} resources: the 3D highlights have nothing to show")
    return next(layer[:-len("_depth")] for layer in out["layers"] if layer.endswith("_depth"))


def show_run(stem):
    """The style reloaded (as the page does after a job: the run's layers in the tree) and, of the
    runs' layers, only this run's depth, flooded buildings and cut-off resources switched on."""
    loads = int(evaluate("document.documentElement.dataset.styleLoads || '0'"))
    evaluate("window.citytwin.map.setStyle('/tiles/WebMercatorQuad/style.json', {diff: false}); null")
    wait_for(f"Number(document.documentElement.dataset.styleLoads) > {loads} && document.documentElement.dataset.mapIdle === 'true'"
             f" && !!document.querySelector('#tree input[data-collection=\"{stem}_buildings\"]')",
             f"the style did not reload with {stem}'s layers", 180)
    shown = [f"{stem}_depth", f"{stem}_buildings", f"{stem}_cutoff"]
    evaluate("(() => { for (const b of document.querySelectorAll('#tree input[data-collection]')) {"
             " const c = b.dataset.collection; if (!/^(flood|scenario)_/.test(c)) continue;"
             f" const on = {json.dumps(shown)}.includes(c);"
             " if (b.checked !== on) { b.checked = on; b.dispatchEvent(new Event('change')); } } })()")


def extruded(artifacts, name, box):
    """A screenshot (name) and the sampled pixels the building extrusions change in box (hidden for a moment)."""
    image = screenshot(name)
    redraw_idle("m.setLayoutProperty('ct3d-buildings', 'visibility', 'none')")
    bare = screenshot("webmap-3d-bare.png")
    redraw_idle("m.setLayoutProperty('ct3d-buildings', 'visibility', 'visible')")
    os.remove(os.path.join(artifacts, "webmap-3d-bare.png"))
    return image, {(x, y) for y in range(box[1], box[3], 2) for x in range(box[0], box[2], 2) if image[2][y][x] != bare[2][y][x]}


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


def check_3d(server, token, artifacts, depth_colours=None, stem=None, highlights=True):
    """The 3D view on CLOUDBURST's run (or on the run whose layers are stem_*, already in the store);
    depth_colours: the depth classes' colours (default: the legend's, once the run is shown).
    highlights=False (webmap_check.sh, on its quick run that floods no building, to keep the test
    command short) checks terrain, extrusions, the draped depth and the pipes but not the orange and
    red buildings; Scripts/webmap_check_3d.sh runs CLOUDBURST and checks them too."""
    stem = stem or run_cloudburst(server, token)
    show_run(stem)
    if depth_colours is None:
        depth_colours = evaluate("(() => { const out = []; let title = ''; for (const n of document.getElementById('legend').children) {"
                                 " if (n.tagName === 'H3') title = n.textContent; else if (title.includes('积水深度') && n.textContent.includes(' m'))"
                                 " out.push(n.querySelector('.swatch').dataset.color); } return out; })()")
        if len(depth_colours) < 2:
            fail(f"the legend shows no depth classes of {stem}: {depth_colours}")
    depth = f"{stem}_depth"
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
    image, changed = extruded(artifacts, "webmap-3d.png", box)
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
    draped = {c: count_colour(image, box, hex_rgb(c), tolerance=6) for c in depth_colours}
    print(f"webmap_check: the flood draped on the terrain: depth colours {draped}")
    if sum(draped.values()) < 200:
        fail(f"the flood's depth is not drawn on the 3D terrain (depth colours {draped})")
    if not highlights:
        print("webmap_check: the orange and red highlights are checked by Scripts/webmap_check_3d.sh (this run floods no building)")
    else:
        flooded, cut = (int(evaluate(f"document.documentElement.dataset.{k} || '0'")) for k in ("highlightedFlooded", "highlightedCutoff"))
        if not flooded or not cut:
            fail(f"the 3D view highlights {flooded} flooded and {cut} cut-off buildings of {stem} (both wanted)")
        if orange < 30:
            fail(f"{flooded} flooded buildings, but their colour is not on the 3D map over them ({orange} px)")
        # A cut-off resource's building, in red: the camera on the first resource the run cuts off.
        resource = next(f["geometry"]["coordinates"] for f in get(server, token, f"/collections/{stem}_cutoff/items?limit=100")["features"]
                        if f["properties"].get("kind") == "resource" and f["geometry"]["type"] == "Point")
        redraw_idle(f"m.jumpTo({{center: {json.dumps(resource)}, zoom: 17, pitch: 60, bearing: -30}})")
        image, changed = extruded(artifacts, "webmap-3d-cutoff.png", box)
        red = sum(shades(image, box, CUTOFF, changed).values())
        print(f"webmap_check: highlights: {flooded} flooded buildings ({orange} px orange), {cut} buildings of cut-off resources "
              f"({red} px red at {resource})")
        if red < 30:
            fail(f"{cut} buildings of cut-off resources, but their colour is not on the 3D map over the first ({red} px)")

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


if __name__ == "__main__":
    # Alone (Scripts/webmap_check_3d.sh): DEVTOOLS_PORT SERVER TOKEN ARTIFACTS [STEM]; signs in through the
    # page's form first. STEM: a run already in the store that floods buildings (its layers STEM_*) instead of CLOUDBURST.
    port, server, token, artifacts = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3], sys.argv[4]
    browser_devtools.port, browser_devtools.server, browser_devtools.token, browser_devtools.artifacts = port, server, token, artifacts
    connect()
    for domain in ("Runtime", "Log", "Network", "Page"):
        call(f"{domain}.enable")
    call("Page.navigate", url=f"{server}/map")
    wait_idle("the map never became idle")
    evaluate("document.getElementById('token').value = " + json.dumps(token) + "; document.getElementById('signin').requestSubmit();")
    wait_for("document.documentElement.dataset.caller && document.documentElement.dataset.caller !== 'anonymous'"
             " && document.documentElement.dataset.mapIdle === 'true'", "signing in did not load the department's style")
    check_3d(server, token, artifacts, stem=sys.argv[5] if len(sys.argv) > 5 else None)
    if browser_devtools.errors:
        fail(f"console errors: {browser_devtools.errors[:5]}")
    print("webmap_check_3d: OK")

#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol (Python stdlib only) through /map as a
person would, and checks what is drawn by pixels. Called by Scripts/webmap_check.sh, which
builds a district with a flood result, starts the server and Chromium.

  webmap_check.py DEVTOOLS_PORT SERVER_URL TOKEN ARTIFACTS_DIR

1. Anonymous: the map loads and becomes idle; no flood result layer is in the style (they are
   shared with departments only); screenshot webmap-public.png.
2. Sign in through the page's form (no reload: a marker on `window` survives): the caller's
   department is shown, the flood depth layer appears in the layer tree and is drawn. A
   scenario's depth (the owner's draft what-if) is marked 情景（非实况） in the tree and off by
   default: the check ticks it on.
3. View of the flood: at least four depth classes are drawn, each found by its legend colour in
   the map's pixels (not the legend's); the legend shows them; labels are drawn (pixels change
   when the label layers are hidden); screenshot webmap.png.
4. A click on the map with the nearest-resources tool runs the process; the result list is in
   the page and the routes are drawn; screenshot webmap-nearest.png.
5. Permanent water is not flood: inside the rivers' own width the map shows water blue, never a
   depth class colour.
6. A signal corridor's popup runs the green wave (write=false): each direction's delay under the offsets and the time–space diagram are shown in
   the panel and the corridor's intersections are drawn in their LOS colours, with the LOS legend;
   screenshot webmap-corridor.png. Choosing offsets for the lowest delay re-runs it and gives the corridor's mean
   control delay beside the widest band's.
7. The depth over time: the slider (keyboard Home/End) steps the run's depth tiles, the time is
   shown and the drawn water changes (webmap-time-first.png, webmap-time-last.png).
8. A flood job (p50-with-storage, quick) started from the page: its progress is followed and its
   result layers are listed and appear in the layer tree (webmap-job.png); then the swipe shows
   the two results side by side, the divider moved by keyboard and pointer, the cameras together
   (webmap-swipe.png).
9. Contrast measured: every visible text (panel, legend, buttons, inputs, popup, swipe labels) has a
   WCAG 2.x contrast of at least 4.5:1 (3:1 large text) over its composited background, signed out
   and with everything open (webmap-popup.png); the map's canvas labels against their halo (or the
   symbol they sit on), from the style; a popup opened right of the swipe divider is on top.
10. The 3D view (Scripts/webmap_check_3d.py) on the quick run: terrain, extruded buildings in lit and
   shaded faces, the flood draped, pipes by depth under a transparent surface (webmap-3d.png,
   webmap-3d-underground.png). The flooded buildings in orange and a cut-off resource's in red need a
   run that floods buildings (a 100-a 30-min storm with the rivers at 25.0 m on 20 m cells, about a
   quarter of an hour in a debug build on a loaded machine):
   Scripts/webmap_check_3d.sh runs it and checks them (webmap-3d-cutoff.png).
11. Throughout: no console error, no exception, no request to anything but the server.
Exits non-zero with the reason on any failure. `decode_png` is also used by webmap_check.sh.
"""
import base64, json, os, re, struct, sys, time, urllib.request, zlib

import browser_devtools
from browser_devtools import (
    errors, requests,
    fail, connect, recv_exact, recv_message, event, call, evaluate, wait_for, wait_idle,
    redraw_idle, screenshot, decode_png, rect, hex_rgb, count_colour, contrast, css_rgb,
    style_colours, wcag_ratio, label_contrast,
)
from webmap_check_3d import check_3d

port, server, token, artifacts = 0, "", "", ""


def main():
    global port, server, token, artifacts
    port, server, token, artifacts = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3], sys.argv[4]
    browser_devtools.port, browser_devtools.server, browser_devtools.token, browser_devtools.artifacts = port, server, token, artifacts
    connect()
    call("Runtime.enable")
    call("Log.enable")
    call("Network.enable")
    call("Page.enable")

    # 1. Anonymous.
    call("Page.navigate", url=f"{server}/map")
    wait_idle("the anonymous map never became idle (tiles not all loaded and drawn)")
    screenshot("webmap-public.png")
    public_layers = evaluate("[...document.querySelectorAll('#tree input[data-collection]')].map((b) => b.dataset.collection)")
    if any(c.startswith(("flood_", "scenario_")) for c in public_layers):
        fail(f"an anonymous caller's layer tree lists a flood result layer: {public_layers}")
    if evaluate("document.getElementById('who').textContent").find("公众") < 0:
        fail("the anonymous caller is not shown as the public")
    print(f"webmap_check: anonymous map idle, {len(public_layers)} layers in the tree, no flood result layer")
    contrast("anonymous page")
    label_contrast("anonymous map")

    # 2. Sign in through the form, without a reload.
    evaluate("window.__notReloaded = true; document.getElementById('token').value = " + json.dumps(token)
             + "; document.getElementById('signin').requestSubmit();")
    wait_for("document.documentElement.dataset.caller && document.documentElement.dataset.caller !== 'anonymous'"
             " && document.documentElement.dataset.styleLoads === '2' && document.documentElement.dataset.mapIdle === 'true'",
             "signing in did not load the department's style")
    if not evaluate("window.__notReloaded === true"):
        fail("signing in reloaded the page")
    if evaluate("sessionStorage.getItem('citytwin.token')") != token or evaluate("localStorage.getItem('citytwin.token')") is not None:
        fail("the token is not kept in session storage only")
    who = evaluate("document.getElementById('who').textContent")
    depth = evaluate("[...document.querySelectorAll('#tree input[data-collection]')].map((b) => b.dataset.collection).find((c) => /^(flood|scenario)_.*_depth$/.test(c)) || ''")
    if not depth:
        fail("after signing in, no flood depth layer is in the layer tree")
    print(f"webmap_check: signed in without reload as {who!r}; {depth} appears")
    # A scenario's results are a what-if (issue 77): in the owner's tree marked 情景（非实况）, set
    # apart, and off by default; the check ticks it on as a person would.
    if depth.startswith("scenario_"):
        label = evaluate(f"(() => {{ const b = document.querySelector('#tree input[data-collection=\"{depth}\"]');"
                         " return {text: b.parentElement.textContent, whatIf: b.parentElement.classList.contains('what-if'), checked: b.checked}; })()")
        if "情景（非实况）" not in label["text"] or not label["whatIf"]:
            fail(f"the what-if layer {depth} is not marked in the layer tree: {label}")
        if label["checked"] or evaluate(f"window.citytwin.map.getLayoutProperty('{depth}-fill', 'visibility')") != "none":
            fail(f"the what-if layer {depth} is on by default: {label}")
        redraw_idle(f"document.querySelector('#tree input[data-collection=\"{depth}\"]').click()")
        print(f"webmap_check: {depth} is marked 情景（非实况） and off by default in the tree; ticked on")

    # 3. The flood in view: depth classes by legend colour, legend, labels.
    bbox = json.load(urllib.request.urlopen(urllib.request.Request(f"{server}/collections/{depth}", headers={
        "Accept": "application/json", "Authorization": f"Bearer {token}"})))["extent"]["spatial"]["bbox"][0]
    redraw_idle(f"m.fitBounds([[{bbox[0]}, {bbox[1]}], [{bbox[2]}, {bbox[3]}]], {{padding: 10, duration: 0}})")
    drawn = evaluate(f"window.citytwin.map.queryRenderedFeatures({{layers: ['{depth}-fill']}}).length")
    if not drawn:
        fail(f"{depth} is not drawn after signing in")
    legend = evaluate("(() => { const out = []; let title = ''; for (const n of document.getElementById('legend').children) {"
                      " if (n.tagName === 'H3') title = n.textContent; else out.push([title, n.textContent, n.querySelector('.swatch').dataset.color]); }"
                      " return out; })()")
    classes = [(label, colour) for title, label, colour in legend if "积水深度" in title and " m" in label]
    if len(classes) < 4:
        fail(f"the legend has {len(classes)} flood depth classes: {legend}")
    evaluate("document.getElementById('legend-h').scrollIntoView({block: 'start'})")
    image = screenshot("webmap.png")
    map_box = rect("#map")
    legend_box = rect("#legend")
    # The classes the run has (outside permanent water): at least four, each drawn in its legend
    # colour (the check's storm, webmap_check.sh, is chosen so that the ponding behind the levees
    # and in the low ground reaches four classes).
    present = {f["properties"]["depth_class"] for f in json.load(urllib.request.urlopen(urllib.request.Request(
        f"{server}/collections/{depth}/items?limit=100", headers={"Accept": "application/geo+json", "Authorization": f"Bearer {token}"})))["features"]}
    found = []
    for label, colour in classes:
        n = count_colour(image, map_box, hex_rgb(colour))
        in_legend = count_colour(image, legend_box, hex_rgb(colour))
        print(f"webmap_check: depth class {label:>12} {colour}: {n} px on the map, {in_legend} px in the legend{' (in the run)' if label in present else ''}")
        if in_legend < 20:
            fail(f"the legend does not show the colour of {label} ({colour})")
        if n >= 20:
            found.append(label)
    if len(present) < 4 or not present <= set(found):
        fail(f"the run's depth classes {sorted(present)} (at least four wanted) are not all found by their legend colours on the map: {found}")

    # Permanent water is not flood: inside the rivers' own width (the 长江 1500 m, the 举水 90 m) the
    # map shows water blue, never a depth class, though the run's raw depth grid is wet there. Points
    # under a symbol or another layer's line (gauges, outfalls, labels, roads) are left out.
    water_probe = evaluate("""(async () => {
      const m = window.citytwin.map, r = await (await fetch('/collections/rivers/items?limit=100', {headers: {Accept: 'application/geo+json'}})).json();
      const box = document.getElementById('map').getBoundingClientRect(), out = [];
      for (const f of r.features) {
        const w = f.properties.width_m; if (!(w >= 50)) continue;
        const lines = f.geometry.type === 'LineString' ? [f.geometry.coordinates] : f.geometry.coordinates;
        for (const line of lines) for (let i = 0; i + 1 < line.length; i++) for (let t = 0.01; t < 1; t += 0.02) {
          const lng = line[i][0] + (line[i + 1][0] - line[i][0]) * t, lat = line[i][1] + (line[i + 1][1] - line[i][1]) * t;
          const a = m.project(line[i]), b = m.project(line[i + 1]), p = m.project([lng, lat]);
          const len = Math.hypot(b.x - a.x, b.y - a.y); if (len < 1) continue;
          const mpp = 40075016.686 * Math.cos(lat * Math.PI / 180) / (512 * Math.pow(2, m.getZoom()));
          for (const side of [-0.35, 0.35]) {
            const off = side * w / mpp, x = p.x - (b.y - a.y) / len * off, y = p.y + (b.x - a.x) / len * off;
            if (!(x > 40 && y > 40 && x < box.width - 60 && y < box.height - 40)) continue;
            // Not where a symbol (a gauge, an outfall, a label) or another layer's line is drawn over the water.
            const over = m.queryRenderedFeatures([x, y]).some((h) => h.layer.type === 'symbol' || h.layer.type === 'circle'
              || (h.layer.type === 'line' && !/^rivers/.test(h.layer.id)));
            if (!over) out.push([Math.round(box.left + x), Math.round(box.top + y), f.properties.name]);
          }
        }
      }
      return out;
    })()""", wait=True)
    depth_colours = [hex_rgb(c) for _, c in classes]
    water_colours = [hex_rgb("#5b9fd6"), hex_rgb("#a9d3f2")]
    near = lambda p, c, tol: all(abs(p[k] - c[k]) <= tol for k in range(3))
    blue = wet = 0
    for x, y, name in water_probe:
        px = image[2][y][x]
        blue += any(near(px, c, 8) for c in water_colours)
        wet += any(near(px, c, 3) for c in depth_colours)
    print(f"webmap_check: permanent water: {len(water_probe)} points inside the rivers' width, {blue} water blue, {wet} in a depth class colour")
    if len(water_probe) < 10:
        fail(f"too few river points in view to check permanent water ({len(water_probe)})")
    if wet or blue < 0.9 * len(water_probe):
        fail(f"rivers are drawn as flood: {wet} of {len(water_probe)} river points in depth colours, {blue} water blue")
    # Labels: the map's pixels change where the text layers are hidden.
    labels = evaluate("window.citytwin.map.getStyle().layers.filter((l) => l.type === 'symbol' && l.layout && l.layout.visibility !== 'none').map((l) => l.id)")
    placed = evaluate(f"window.citytwin.map.queryRenderedFeatures({{layers: {json.dumps(labels)}}}).length") if labels else 0
    if not labels or not placed:
        fail(f"no label is drawn (text layers {labels}, {placed} placed)")
    redraw_idle(f"{json.dumps(labels)}.forEach((id) => m.setLayoutProperty(id, 'visibility', 'none'))")
    bare = screenshot("webmap-nolabels.png")
    redraw_idle(f"{json.dumps(labels)}.forEach((id) => m.setLayoutProperty(id, 'visibility', 'visible'))")
    os.remove(os.path.join(artifacts, "webmap-nolabels.png"))
    x0, y0, x1, y1 = map_box
    changed = sum(1 for y in range(y0, y1) for x in range(x0, x1) if image[2][y][x] != bare[2][y][x])
    print(f"webmap_check: {placed} labels placed from {len(labels)} text layers; {changed} map pixels are text")
    if changed < 300:
        fail(f"labels change only {changed} pixels of the map")

    # 4. Nearest resources from a click on the map.
    redraw_idle(f"m.fitBounds([[{bbox[0]}, {bbox[1]}], [{bbox[2]}, {bbox[3]}]], {{padding: 10, duration: 0}})")
    evaluate("document.querySelector('input[name=tool][value=nearest]').click(); document.getElementById('nearest-layer').value = 'shelters';")
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", type=kind, x=cx, y=cy, button="left", clickCount=1 if kind != "mouseMoved" else 0)
    wait_for("['done', 'failed'].includes(document.documentElement.dataset.analysis)", "the nearest-resources analysis did not finish")
    items = evaluate("[...document.querySelectorAll('#analysis-list li.result')].map((li) => li.textContent)")
    if evaluate("document.documentElement.dataset.analysis") != "done" or not items:
        fail(f"nearest resources from a click gave no result list: {items}")
    evaluate("document.getElementById('analysis').scrollIntoView({block: 'center'})")
    redraw_idle("m.triggerRepaint()")
    routes = evaluate("window.citytwin.map.queryRenderedFeatures({layers: ['ct-results-route']}).length")
    screenshot("webmap-nearest.png")
    print(f"webmap_check: a click ran nearest-resources: {len(items)} results listed ({items[0]!r}), {routes} route pieces drawn")
    if not routes:
        fail("the nearest-resources routes are not drawn")

    # A service area (isochrones) from a click: translucent fills, listed, in the legend.
    evaluate("document.documentElement.dataset.analysis = ''; document.querySelector('input[name=tool][value=service]').click()")
    for kind in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", type=kind, x=cx, y=cy, button="left", clickCount=1)
    wait_for("['done', 'failed'].includes(document.documentElement.dataset.analysis)", "the service-area analysis did not finish")
    areas = evaluate("[...document.querySelectorAll('#analysis-list li.result')].map((li) => li.textContent)")
    redraw_idle("m.triggerRepaint()")
    filled = evaluate("window.citytwin.map.queryRenderedFeatures({layers: ['ct-results-area']}).length")
    screenshot("webmap-service.png")
    if evaluate("document.documentElement.dataset.analysis") != "done" or len(areas) < 2 or not filled:
        fail(f"a service area from a click was not listed and drawn: {areas}, {filled} areas drawn")
    # The road length reached is said to be that, not read as a distance ("2 分钟 46.2 公里").
    if not all("可达道路" in a for a in areas):
        fail(f"the service areas' road length is not labelled as road reached: {areas}")
    # The panel never scrolls sideways.
    if evaluate("(() => { const p = document.getElementById('panel'); return p.scrollWidth > p.clientWidth + 1; })()"):
        fail("the side panel scrolls sideways")
    print(f"webmap_check: a click ran service-area: {areas} listed, {filled} area pieces drawn")

    # A fire pre-plan for the building nearest a click: stations' routes drawn, arrivals and hydrants listed.
    evaluate("document.documentElement.dataset.analysis = ''; document.querySelector('input[name=tool][value=fire]').click()")
    for kind in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", type=kind, x=cx, y=cy, button="left", clickCount=1)
    wait_for("['done', 'failed'].includes(document.documentElement.dataset.analysis)", "the fire pre-plan did not finish")
    plan = evaluate("[...document.querySelectorAll('#analysis-list li')].map((li) => li.textContent)")
    redraw_idle("m.triggerRepaint()")
    routes = evaluate("window.citytwin.map.queryRenderedFeatures({layers: ['ct-results-route']}).length")
    screenshot("webmap-fire.png")
    if evaluate("document.documentElement.dataset.analysis") != "done" or not any("到场" in p for p in plan) \
            or not any("消火栓" in p for p in plan) or not routes:
        fail(f"a fire pre-plan from a click was not listed and drawn: {plan}, {routes} route pieces")
    print(f"webmap_check: a click ran fire-pre-plan: {len(plan)} lines ({plan[0]!r}), {routes} route pieces drawn")

    # Digits and Latin letters come from the server's glyph ranges (ideographs from the browser's
    # font): a label of both is placed and drawn.
    evaluate("(() => { const m = window.citytwin.map, c = m.getCenter();"
             " m.addSource('probe', {type: 'geojson', data: {type: 'Point', coordinates: [c.lng, c.lat]}});"
             " m.addLayer({id: 'probe', type: 'symbol', source: 'probe', layout: {'text-field': 'CityTwin 2026 A-F 积水',"
             " 'text-font': ['wqy-microhei'], 'text-size': 16, 'text-allow-overlap': true}}); })()")
    redraw_idle("m.triggerRepaint()")
    if not evaluate("window.citytwin.map.queryRenderedFeatures({layers: ['probe']}).length"):
        fail("a label of digits and Latin letters was not placed (glyph ranges from /fonts/)")
    # A street-level view with the probe: road names, buildings, points (webmap-detail.png).
    redraw_idle("m.jumpTo({zoom: 16.5})")
    screenshot("webmap-detail.png")
    evaluate("(() => { const m = window.citytwin.map; m.removeLayer('probe'); m.removeSource('probe'); })()")
    print("webmap_check: digits and Latin letters drawn from the served glyph ranges")

    # A signal corridor: its popup runs the green wave (write=false), the time–space diagram is shown
    # in the panel, and the corridor's intersections are drawn by level of service with a legend.
    corridors = json.load(urllib.request.urlopen(urllib.request.Request(f"{server}/collections/signal_corridors/items?limit=1", headers={
        "Accept": "application/geo+json", "Authorization": f"Bearer {token}"})))["features"]
    if not corridors:
        fail("the district has no signal corridor")
    corridor = corridors[0]
    line = corridor["geometry"]["coordinates"] if corridor["geometry"]["type"] == "LineString" else corridor["geometry"]["coordinates"][0]
    evaluate("(() => { const b = document.querySelector('#tree input[data-collection=signal_corridors]'); if (b && !b.checked) b.click(); })()")
    lons, lats = [p[0] for p in line], [p[1] for p in line]
    redraw_idle(f"m.fitBounds([[{min(lons)}, {min(lats)}], [{max(lons)}, {max(lats)}]], {{padding: 80, duration: 0}})")
    evaluate("document.querySelector('input[name=tool][value=identify]').click()")
    mid = [(line[0][0] + line[1][0]) / 2, (line[0][1] + line[1][1]) / 2]
    px, py = evaluate(f"(() => {{ const p = window.citytwin.map.project({json.dumps(mid)}), r = document.getElementById('map').getBoundingClientRect(); return [Math.round(r.left + p.x), Math.round(r.top + p.y)]; }})()")
    for kind in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", type=kind, x=px, y=py, button="left", clickCount=1)
    wait_for("!!document.querySelector('.maplibregl-popup .corridor-run')", "the corridor's popup has no green-wave button", 20)
    evaluate("document.querySelector('.maplibregl-popup .corridor-run').click()")
    wait_for("['done', 'failed'].includes(document.documentElement.dataset.corridor)", "the green wave did not finish", 120)
    info = evaluate("document.getElementById('corridor-info').textContent")
    if evaluate("document.documentElement.dataset.corridor") != "done":
        fail(f"the green wave failed: {info}")
    wait_for("(() => { const i = document.getElementById('corridor-diagram'); return i.complete && i.naturalWidth > 100; })()", "the time–space diagram did not load", 20)
    grades = evaluate("[...document.querySelectorAll('#corridor-list li')].map((li) => li.dataset.los)")
    through = evaluate("[...document.querySelectorAll('#corridor-delays li')].map((li) => [li.dataset.direction, li.textContent])")
    if [d for d, _ in through] != ["outbound", "inbound"] or not all(re.search(r"\d+ s/辆", text) for _, text in through):
        fail(f"the corridor panel does not give each direction's delay under the offsets: {through}")
    evaluate("document.querySelectorAll('.maplibregl-popup-close-button').forEach((b) => b.click()); document.getElementById('corridor-section').scrollIntoView({block: 'start'})")
    redraw_idle("m.triggerRepaint()")
    drawn_los = evaluate("window.citytwin.map.queryRenderedFeatures({layers: ['ct-results-point']}).map((f) => f.properties.los)")
    los_legend = evaluate("[...document.querySelectorAll('#legend .legend-item')].filter((n) => /服务水平 [A-F]/.test(n.textContent)).map((n) => [n.textContent.slice(-1), n.querySelector('.swatch').dataset.color])")
    image = screenshot("webmap-corridor.png")
    colours = dict(los_legend)
    on_map = {g: count_colour(image, map_box, hex_rgb(colours[g])) for g in set(grades) if g in colours}
    print(f"webmap_check: green wave of {corridor['properties'].get('name', corridor.get('id'))}: {info}; LOS {grades}; "
          f"{[text for _, text in through]}; {len(drawn_los)} intersections drawn; legend {len(los_legend)} LOS entries; LOS colour px on the map {on_map}")
    if re.search(r"带宽 0 s", info) and "单向绿波" not in info:
        fail(f"a green wave with no band one way does not say it is one-way: {info}")
    if len(grades) < 2 or len(drawn_los) < len(grades) or len(los_legend) != 6:
        fail(f"the corridor's intersections are not listed and drawn by LOS with a legend: {grades}, {drawn_los}, {los_legend}")
    if any(n < 30 for n in on_map.values()):
        fail(f"an intersection's LOS colour is not found on the map: {on_map}")
    # Offsets for the corridor's lowest delay: choosing them re-runs the corridor, and the panel gives the
    # corridor's mean control delay beside the widest band's.
    evaluate("(() => { const s = document.getElementById('corridor-objective'); s.value = 'delay'; s.dispatchEvent(new Event('change')); })()")
    wait_for("['done', 'failed'].includes(document.documentElement.dataset.corridor) && !!document.querySelector('#corridor-delays li[data-direction=mean]')",
             "the green wave with offsets for delay did not finish", 120)
    mean = evaluate("document.querySelector('#corridor-delays li[data-direction=mean]').textContent")
    figures = [float(v) for v in re.findall(r"(\d+\.\d) s/辆", mean)]
    print(f"webmap_check: offsets for the lowest delay: {mean}")
    if len(figures) != 2 or figures[0] > figures[1] + 1e-9:
        fail(f"offsets for delay do not give the corridor's mean control delay beside the band's (and no more): {mean}")

    # The depth over time: the slider steps through the run's time steps (PNG depth tiles per
    # `datetime`), the time is shown, the keyboard moves it, and the drawn water changes.
    wait_for("Number(document.documentElement.dataset.timeline || 0) >= 1 && !document.getElementById('time-section').hidden",
             "the depth-over-time panel did not appear for the run")
    redraw_idle(f"m.fitBounds([[{bbox[0]}, {bbox[1]}], [{bbox[2]}, {bbox[3]}]], {{padding: 10, duration: 0}})")
    steps = evaluate("Number(document.getElementById('time-slider').max) + 1")
    evaluate("document.getElementById('time-section').scrollIntoView({block: 'start'}); document.getElementById('time-on').click()")
    redraw_idle("m.triggerRepaint()")
    if not evaluate("!!window.citytwin.map.getLayer('ct-depth-time')"):
        fail("switching the depth over time on drew no depth tiles")
    # Keyboard: focus the slider; End goes to the last step, Home to the first.
    def key(name, code):
        for kind in ("rawKeyDown", "keyUp"):
            call("Input.dispatchKeyEvent", type=kind, key=name, code=name, windowsVirtualKeyCode=code)
    evaluate("document.getElementById('time-slider').focus()")
    key("End", 35)
    redraw_idle("m.triggerRepaint()")
    last_text = evaluate("document.getElementById('time-now').textContent")
    last_image = screenshot("webmap-time-last.png")
    key("Home", 36)
    redraw_idle("m.triggerRepaint()")
    first_text = evaluate("document.getElementById('time-now').textContent")
    first_value = evaluate("document.getElementById('time-slider').value")
    first_image = screenshot("webmap-time-first.png")
    x0, y0, x1, y1 = map_box
    moved = sum(1 for y in range(y0, y1, 2) for x in range(x0, x1, 2) if first_image[2][y][x] != last_image[2][y][x])
    print(f"webmap_check: depth over time: {steps} steps; keyboard Home shows {first_text!r} (last {last_text!r}); {moved} map pixels differ")
    if steps < 2 or first_value != "0" or first_text == last_text:
        fail(f"the time slider did not step by keyboard ({steps} steps, value {first_value}, {first_text!r} vs {last_text!r})")
    if moved < 50:
        fail(f"the depth at the first and last time steps look the same ({moved} pixels differ)")
    # A design storm reads on its own clock (T+ minutes, 设计暴雨，非实况), never as a date on the
    # city's clock that would pass for a forecast (issue 77 §6).
    storm_clock = re.compile(r"^T\+\d+ 分钟 · 设计暴雨，非实况$")
    if not (storm_clock.match(first_text) and storm_clock.match(last_text)):
        fail(f"the design storm's time does not read T+ on the storm's clock, marked 设计暴雨，非实况: {first_text!r}, {last_text!r}")
    if evaluate("document.getElementById('time-slider').getAttribute('aria-valuetext')") != first_text:
        fail("the slider's aria-valuetext does not say the time shown")
    if not any("/map/tiles/WebMercatorQuad/" in u and "datetime=" in u for u in requests):
        fail("no depth map tile was requested for a time step")

    # A flood job from the page (the token is an editor of 水务和湖泊局, who owns the flood results):
    # the other scenario (with storage), its progress followed to its
    # result layers, which then appear in the layer tree and in the time panel.
    evaluate("document.getElementById('jobs-section').scrollIntoView({block: 'start'}); document.getElementById('flood-model').value = 'p50-with-storage';"
             " document.getElementById('run-flood').click()")
    seen, deadline = set(), time.time() + 300
    while time.time() < deadline:
        st = evaluate("(() => { const li = document.querySelector('#jobs li.job'); return li ? [li.dataset.status, li.dataset.progress || '', li.textContent] : null; })()")
        if st:
            seen.add((st[0], st[1]))
            if st[0] in ("successful", "failed", "dismissed"):
                break
        time.sleep(1)
    job_layers = evaluate("(document.querySelector('#jobs li.job') || {dataset: {}}).dataset.layers || ''").split()
    screenshot("webmap-job.png")
    progress = sorted({int(p) for st, p in seen if p.isdigit()})
    print(f"webmap_check: flood job from the page: states {sorted({st for st, _ in seen})}, progress {progress}, layers {job_layers}")
    if not st or st[0] != "successful":
        fail(f"the flood job from the page did not succeed: {st}")
    if not any(0 < p < 100 for p in progress):
        fail(f"the job's progress was not followed (progress seen {progress})")
    # The hazard tool offers the runs the caller may see, the new draft among them, and answers from the one chosen.
    evaluate("document.querySelector('input[name=tool][value=hazard]').click()")
    wait_for("document.getElementById('hazard-run').options.length > 0 && !document.getElementById('hazard-run-row').hidden",
             "the hazard tool shows no flood run to choose", 20)
    offered = evaluate("[...document.getElementById('hazard-run').options].map((o) => o.value)")
    runs = json.load(urllib.request.urlopen(urllib.request.Request(f"{server}/flood-runs", headers={
        "Accept": "application/json", "Authorization": f"Bearer {token}"})))["runs"]
    listed = [r["id"] for r in runs]
    if offered != listed or not listed:
        fail(f"the hazard tool offers {offered}, the caller's runs are {listed}")
    evaluate(f"document.getElementById('hazard-run').value = {json.dumps(listed[0])}; document.documentElement.dataset.analysis = ''")
    for kind in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", type=kind, x=cx, y=cy, button="left", clickCount=1)
    wait_for("['done', 'failed'].includes(document.documentElement.dataset.analysis)", "the hazard overlay did not finish")
    answered = evaluate("[...document.querySelectorAll('#analysis-list li')].map((li) => li.textContent)")
    # The quick run may flood nothing 0.15 m deep: then the answer is the process's 400 saying so of
    # the chosen run (the one console error this step may leave).
    if not any(listed[0] in a for a in answered):
        fail(f"the hazard overlay on the chosen run {listed[0]} answered {answered}")
    if evaluate("document.documentElement.dataset.analysis") != "done":
        if not any("floods no area" in a for a in answered):
            fail(f"the hazard overlay on {listed[0]} failed: {answered}")
        call("Runtime.evaluate", expression="1")  # drain pending events
        errors[:] = [e for e in errors if "/processes/hazard-overlay/execution" not in e]
    print(f"webmap_check: the hazard tool offers the caller's {len(listed)} flood run(s) and answered from the chosen {listed[0]}")
    evaluate("document.querySelector('input[name=tool][value=identify]').click()")
    new_depth = next((l for l in job_layers if l.endswith("_depth")), "")
    if len(job_layers) < 4 or not new_depth:
        fail(f"the job's result layers are not listed: {job_layers}")
    wait_for(f"[...document.querySelectorAll('#tree input[data-collection]')].some((b) => b.dataset.collection === {json.dumps(new_depth)})"
             " && Number(document.documentElement.dataset.timeline || 0) >= 2 && document.documentElement.dataset.mapIdle === 'true'",
             "the job's depth layer did not appear in the layer tree and the time panel")
    print(f"webmap_check: {new_depth} is in the layer tree and the time panel")

    # Swipe: the two results side by side, the divider dragged by keyboard and pointer.
    evaluate(f"document.getElementById('time-layer').value = {json.dumps(depth)}; document.getElementById('time-layer').dispatchEvent(new Event('change'));")
    wait_for(f"document.getElementById('time-layer').value === {json.dumps(depth)} && Number(document.documentElement.dataset.timeline) >= 2", "the time panel did not reload")
    evaluate(f"document.getElementById('swipe-on').click(); const s = document.getElementById('swipe-layer'); s.value = {json.dumps(new_depth)}; s.dispatchEvent(new Event('change'));")
    wait_for("window.citytwin.mapB && window.citytwin.mapB.__ctReady && !!window.citytwin.mapB.getLayer('ct-depth-time')", "the swipe map did not draw the second result")
    wait_for("window.citytwin.mapB.loaded() && window.citytwin.mapB.areTilesLoaded() && window.citytwin.map.areTilesLoaded()", "the swipe maps did not finish drawing")
    time.sleep(0.5)
    sources = evaluate("[window.citytwin.map.getSource('ct-depth-time').tiles[0], window.citytwin.mapB.getSource('ct-depth-time').tiles[0]]")
    if depth not in sources[0] or new_depth not in sources[1]:
        fail(f"the swipe does not show the two results left and right: {sources}")
    before = evaluate("Number(document.getElementById('divider').getAttribute('aria-valuenow'))")
    evaluate("document.getElementById('divider').focus()")
    for _ in range(2):
        for kind in ("rawKeyDown", "keyUp"):
            call("Input.dispatchKeyEvent", type=kind, key="ArrowLeft", code="ArrowLeft", windowsVirtualKeyCode=37)
    after = evaluate("Number(document.getElementById('divider').getAttribute('aria-valuenow'))")
    d = rect("#divider")
    dx, dy = (d[0] + d[2]) // 2, (d[1] + d[3]) // 2
    call("Input.dispatchMouseEvent", type="mousePressed", x=dx, y=dy, button="left", clickCount=1)
    call("Input.dispatchMouseEvent", type="mouseMoved", x=dx + 150, y=dy, button="left")
    call("Input.dispatchMouseEvent", type="mouseReleased", x=dx + 150, y=dy, button="left", clickCount=1)
    dragged = evaluate("Number(document.getElementById('divider').getAttribute('aria-valuenow'))")
    clip = evaluate("document.getElementById('compare').style.clipPath")
    # The cameras move together.
    redraw_idle("m.panBy([40, 0], {duration: 0})")
    same = evaluate("(() => { const a = window.citytwin.map.getCenter(), b = window.citytwin.mapB.getCenter(); return Math.abs(a.lng - b.lng) < 1e-9 && Math.abs(a.lat - b.lat) < 1e-9; })()")
    wait_for("window.citytwin.mapB.loaded() && window.citytwin.mapB.areTilesLoaded()", "the swipe map did not follow")
    screenshot("webmap-swipe.png")
    print(f"webmap_check: swipe {depth} | {new_depth}: divider {before}% → {after}% by keys → {dragged}% by dragging ({clip}); cameras together: {same}")
    if not (after == before - 10 and dragged > after and "inset" in clip):
        fail(f"the swipe divider did not move by keyboard and pointer: {before} → {after} → {dragged}, {clip}")
    if not same:
        fail("the two maps of the swipe do not move together")
    # Contrast with everything open: the signed-in panel, results, jobs, the time panel, the
    # swipe's labels, the legend and a feature's popup.
    # The popup opens by the divider and reaches over the swipe's right-hand map: it is on top.
    evaluate("document.querySelector('input[name=tool][value=identify]').click()")
    mx, my = (x0 + x1) // 2, (y0 + y1) // 3
    for kind in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", type=kind, x=mx, y=my, button="left", clickCount=1)
    wait_for("!!document.querySelector('.maplibregl-popup .popup')", "no popup opened on a click with the identify tool", 20)
    covered = evaluate("""(() => { const p = document.querySelector('.maplibregl-popup .popup').getBoundingClientRect(), out = [];
      for (const fx of [0.1, 0.5, 0.9]) for (const fy of [0.1, 0.5, 0.9]) {
        const e = document.elementFromPoint(p.left + fx * p.width, p.top + fy * p.height);
        if (!e || !e.closest('.maplibregl-popup')) out.push(e ? (e.id || e.className || e.tagName) : 'nothing'); }
      return out; })()""")
    if covered:
        fail(f"the feature popup is hidden under the swipe map: {covered}")
    screenshot("webmap-popup.png")
    contrast("signed in, results, time panel, swipe, popup")
    label_contrast("signed in")
    evaluate("document.querySelectorAll('.maplibregl-popup-close-button').forEach((b) => b.click())")
    # Right of the divider (over the swipe's second map), a click on a feature opens its popup too.
    spot = evaluate("""(() => { const m = window.citytwin.mapB, r = m.getCanvas().getBoundingClientRect();
      const from = document.getElementById('divider').getBoundingClientRect().right - r.left + 30;
      for (let y = 0.25 * r.height; y < 0.9 * r.height; y += 12) for (let x = from; x < r.width - 30; x += 12) {
        const hit = m.queryRenderedFeatures([x, y]).find((f) => f.layer && (f.layer.metadata || {})['citytwin:collection'] && f.geometry.type !== 'Polygon');
        if (hit) return [r.left + x, r.top + y, hit.layer.metadata['citytwin:collection']]; }
      return null; })()""")
    if not spot:
        fail("no feature drawn right of the swipe divider to click")
    for kind in ("mousePressed", "mouseReleased"):
        call("Input.dispatchMouseEvent", type=kind, x=spot[0], y=spot[1], button="left", clickCount=1)
    wait_for("!!document.querySelector('.maplibregl-popup .popup')", f"no popup opened on a click right of the swipe divider (on {spot[2]})", 20)
    print(f"webmap_check: a click right of the divider, on {spot[2]}, opened its popup")
    evaluate("document.querySelectorAll('.maplibregl-popup-close-button').forEach((b) => b.click())")
    evaluate("document.getElementById('swipe-on').click(); document.getElementById('time-on').click()")

    # The print button: the current view (box, visible layers, the flood run shown) as a PDF from /map/print.
    evaluate("(() => { window.__print = null; const f = window.fetch; window.fetch = async (u, o) => { const r = await f(u, o);"
             " if (String(u).startsWith('/map/print')) window.__print = {url: String(u), status: r.status, type: r.headers.get('Content-Type')};"
             " return r; }; document.getElementById('print-map').click(); })()")
    wait_for("!!window.__print", "the print button sent no /map/print request", 120)
    printed = evaluate("window.__print")
    if printed["status"] != 200 or printed["type"] != "application/pdf" or "bbox=" not in printed["url"]:
        fail(f"the print button got no PDF of the view: {printed}")
    print(f"webmap_check: the print button got a PDF of the view ({printed['url'][:100]}…)")

    # Language: English on the switch, Chinese again after.
    evaluate("document.getElementById('lang').click()")
    if evaluate("document.documentElement.lang") != "en" or evaluate("document.getElementById('legend-h').textContent") != "Legend":
        fail("the English switch did not change the page's language")
    evaluate("document.getElementById('lang').click()")
    if evaluate("document.documentElement.lang") != "zh-CN":
        fail("the page did not switch back to Chinese")
    if not evaluate("document.getElementById('signin').hidden && getComputedStyle(document.getElementById('signin')).display === 'none'"):
        fail("the sign-in form is still shown after signing in")
    print("webmap_check: English on the switch and back to Chinese; the sign-in form hidden once signed in")

    # The 3D view after the flood run: extruded buildings, the flood draped, pipes under a transparent surface.
    check_3d(server, token, artifacts, [c for _, c in classes], stem=depth[:-len("_depth")], highlights=False)

    # 5. Console and network.
    call("Runtime.evaluate", expression="1")  # drain pending events
    outside = [u for u in requests if not (u.startswith(server + "/") or u.startswith("data:") or u.startswith("blob:"))]
    if outside:
        fail(f"requests beyond the server: {outside[:5]}")
    if errors:
        fail(f"console errors: {errors[:5]}")
    print(f"webmap_check: {len(requests)} requests, all to the server; no console errors")


if __name__ == "__main__":
    main()

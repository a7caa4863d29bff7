#!/usr/bin/env python3
"""Drives headless Chromium (DevTools protocol, through webmap_check.py's stdlib client) over /map
of a city built from its own OpenStreetMap extract and served with its base map
(`serve --basemap`). Called by Scripts/basemap_check.sh.

  basemap_check.py DEVTOOLS_PORT SERVER_URL ARTIFACTS_DIR WEST,SOUTH,EAST,NORTH

1. The map opens on the city: the view's centre lies inside the city's bounds (not the sample
   district's 114°E); it becomes idle; screenshot basemap.png.
2. The base map is drawn under the city's layers: the base-map switch offers the city's base map,
   Tianditu's vector and imagery maps (the server has a key) and "none", and choosing "none" changes many of the map's pixels (the base layers were drawn);
   screenshot basemap-none.png. Choosing it again draws the same picture as before.
3. At zoom 15.5 the base map's labels (place and water names; streets are named by the city's roads) are drawn: hiding its text layers
   changes the picture; screenshot basemap-z15.png.
4. The switch reads in English after the page's language switch, the choice kept.
5. No console error, no request to anything but the server.
"""
import json, sys
sys.path.insert(0, "Scripts")
import webmap_check as w


def changed(a, b):
    """The share of sampled map-area pixels (right of the panel) that differ between two screenshots."""
    (wa, ha, ra), (_, _, rb) = a, b
    left, same, total = wa // 3, 0, 0
    for y in range(0, ha, 3):
        for x in range(left, wa, 3):
            total += 1
            same += ra[y][x] == rb[y][x]
    return 1 - same / total


def main():
    w.port, w.server, w.artifacts = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3]
    west, south, east, north = (float(v) for v in sys.argv[4].split(","))
    w.connect()
    for domain in ("Runtime", "Log", "Network", "Page"):
        w.call(domain + ".enable")
    w.call("Page.navigate", url=f"{w.server}/map")
    w.wait_idle("the map never became idle")
    w.wait_for("document.documentElement.dataset.basemap === 'osm'", "the base-map switch did not choose the city's base map")
    lon, lat = w.evaluate("(() => { const c = window.citytwin.map.getCenter(); return [c.lng, c.lat]; })()")
    if not (west <= lon <= east and south <= lat <= north):
        w.fail(f"the map opened at {lon:.4f},{lat:.4f}, outside the city's bounds {sys.argv[4]}")
    print(f"basemap_check: the map opened on the city at {lon:.4f},{lat:.4f}, zoom {w.evaluate('window.citytwin.map.getZoom()'):.1f}")
    with_base = w.screenshot("basemap.png")
    choices = w.evaluate("[...document.querySelectorAll('#basemap-choices input')].map((i) => i.value)")
    if choices != ["osm", "tianditu-vec", "tianditu-img", "none"]:
        w.fail(f"the base-map switch offers {choices}, not the city's base map, Tianditu's vector and imagery, and none")
    w.redraw_idle("document.querySelector('#basemap-choices input[value=none]').click()")
    without = w.screenshot("basemap-none.png")
    share = changed(with_base, without)
    print(f"basemap_check: hiding the base map changes {100 * share:.1f}% of the map's pixels")
    if share < 0.05:
        w.fail("the base map draws (nearly) nothing: hiding it changes under 5% of the map")
    w.redraw_idle("document.querySelector('#basemap-choices input[value=osm]').click()")
    again = w.screenshot("basemap-again.png")
    if changed(with_base, again) > 0.01:
        w.fail("choosing the base map again does not draw it as before")
    # 3. Closer in: the base map's labels (place and water names in `name`) are drawn.
    w.redraw_idle("m.jumpTo({center: [24.9443, 60.1716], zoom: 15.5})")
    labelled = w.screenshot("basemap-z15.png")
    hide = ("for (const l of m.getStyle().layers) if (l.id.startsWith('basemap-') && l.type === 'symbol') "
            "m.setLayoutProperty(l.id, 'visibility', '{}')")
    w.redraw_idle(hide.format("none"))
    unlabelled = w.screenshot("basemap-z15-nolabels.png")
    w.redraw_idle(hide.format("visible"))
    share = changed(labelled, unlabelled)
    print(f"basemap_check: the base map's labels cover {100 * share:.2f}% of the map at zoom 15.5")
    if share < 0.0005:  # two place names are about 0.2 % of the map
        w.fail("the base map's labels are not drawn at zoom 15.5")
    # The switch speaks the page's language.
    w.evaluate("document.getElementById('lang').click()")
    w.wait_for("document.getElementById('basemap-h').textContent === 'Base map'", "the base-map switch did not switch to English")
    labels = w.evaluate("[...document.querySelectorAll('#basemap-choices label')].map((l) => l.textContent.trim())")
    if labels != ["City base map (OpenStreetMap)", "Tianditu vector", "Tianditu imagery", "No base map"]:
        w.fail(f"the base-map switch in English reads {labels}")
    if w.evaluate("document.querySelector('#basemap-choices input:checked').value") != "osm":
        w.fail("switching the language changed the base map chosen")
    foreign = [u for u in w.requests if not u.startswith(w.server) and not u.startswith(("data:", "blob:"))]
    if foreign:
        w.fail(f"requests beyond the server: {foreign[:5]}")
    if w.errors:
        w.fail(f"console errors: {w.errors[:5]}")
    print(f"basemap_check: {len(w.requests)} requests, all to the server; no console errors")


if __name__ == "__main__":
    main()

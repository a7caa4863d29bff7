// The web map's 3D view: an ES module after map-tools.js (map.js says what the parts share).
//
// 2D/3D toggle (#view-3d): in 3D the camera is pitched and may rotate (drag with the right
// button or Ctrl, two fingers); the terrain is the managed DEM's Terrarium tiles
// (/rasters/dem/terrain/tilejson.json, a `raster-dem` source; `map.setTerrain` with
// EXAGGERATION); buildings are `fill-extrusion`s of the vector tiles' `height_m` (their base on
// the terrain: MapLibre places extrusions on it); the flood run's depth (its max-depth polygons,
// or the depth tiles of the time slider) is a flat layer, so MapLibre drapes it on the terrain;
// the run's flooded buildings (`_buildings`: water enters the ground floor) are extruded in
// orange, and the buildings of the emergency resources the run cuts off (`_cutoff`) in red.
// "Transparent surface" (#surface-transparent) fades the surface layers and the buildings and
// draws the drainage network over them: pipes and manholes coloured by depth below ground and
// labelled with it. MapLibre draws every layer on or above the terrain: it has no geometry below
// the surface and cannot make the terrain mesh itself translucent, so the pipes are drawn along
// the surface at their plan position, their depth shown by colour and label, not by placement
// (true-depth pipes are the 3D Tiles drainage tileset's, for a 3D Tiles viewer).
//
// Hooks for scripted checks: <html data-view3d="on|off" data-terrain="on|off|unavailable"
// data-highlighted="<buildings highlighted>" data-highlighted-flooded="<n>" data-highlighted-cutoff="<n>" data-underground="on|off" data-manholes="<count>">.
import { TEXT, t, $, el, root, api, map, meta, collections, isVisible, auth } from "./map.js";

Object.assign(TEXT.zh, {view3d: "三维视图", to3d: "切换到三维", to2d: "切换到二维", transparent: "透明地表（显示地下排水管网）",
  hint3d: "三维：右键或 Ctrl+拖动旋转与俯仰；地形按 1.5 倍夸大显示。", noTerrain: "无地形（地形需部门令牌与已导入的 DEM）：建筑立于平面。",
  terrainOn: "地形：DEM（夸大 1.5 倍）", building3d: "建筑（按高度拉伸）", flooded3d: "首层进水建筑", cutoff3d: "受阻应急资源所在建筑",
  pipeDepth: "管底埋深", manholeDepth: "井深", underground: "地下管网（按埋深着色）"});
Object.assign(TEXT.en, {view3d: "3D view", to3d: "Switch to 3D", to2d: "Switch to 2D", transparent: "Transparent surface (show drainage underground)",
  hint3d: "3D: right-drag or Ctrl+drag to rotate and tilt; terrain exaggerated 1.5×.", noTerrain: "No terrain (needs a department token and an imported DEM): buildings stand on a plane.",
  terrainOn: "Terrain: DEM (exaggerated 1.5×)", building3d: "Buildings (extruded by height)", flooded3d: "Buildings taking water at the ground floor",
  cutoff3d: "Buildings of cut-off emergency resources", pipeDepth: "Pipe invert depth", manholeDepth: "Manhole depth", underground: "Underground network (coloured by depth)"});

// The panel's section was translated before these keys were here.
document.querySelectorAll("#view3d-section [data-i18n]").forEach((n) => { n.textContent = t(n.dataset.i18n); });

/** Terrain exaggeration: the district's relief is tens of metres over kilometres, which reads flat at city scale unexaggerated. */
const EXAGGERATION = 1.5;
const DEM = "ct3d-dem", BUILDINGS = "ct3d-buildings", PIPES = "ct3d-pipes", MANHOLES = "ct3d-manholes";
const COLOURS = {building: "#c9c2b8", flooded: "#fa8c16", cutoff: "#cf1322"};
/** Depth below ground (m) classes of pipes and manholes: stops and colours (shallow to deep). */
const DEPTHS = [["< 1.5 m", "#13c2c2"], ["1.5–3 m", "#1677ff"], ["3–5 m", "#722ed1"], ["> 5 m", "#eb2f96"]];
const STOPS = [1.5, 3, 5];
const RUN = /^(flood|scenario)_(.+)_(buildings|cutoff)$/;
const state = {on: false, transparent: false, terrain: null, faded: [], highlight: null, depths: null};

const depthColour = (value) => ["step", value, DEPTHS[0][1], STOPS[0], DEPTHS[1][1], STOPS[1], DEPTHS[2][1], STOPS[2], DEPTHS[3][1]];
const font = () => { const l = map.getStyle().layers.find((x) => x.type === "symbol" && x.layout && x.layout["text-font"]); return l ? l.layout["text-font"] : null; };
const firstSymbol = () => (map.getStyle().layers.find((l) => l.type === "symbol") || {}).id;
const sourceLayer = (id) => { const l = map.getStyle().layers.find((x) => meta(x)["citytwin:collection"] === id && x["source-layer"]); return l ? l["source-layer"] : null; };

// ---- Terrain: the managed DEM's TileJSON (departments only; absent for the public) ------------
async function terrainSource() {
  if (state.terrain === null) {
    // The rasters are the departments': the public is not asked for them (a 401 in its console).
    if (!auth().Authorization) return (state.terrain = false);
    try { const tj = await api("/rasters/dem/terrain/tilejson.json"); state.terrain = {type: "raster-dem", url: location.origin + "/rasters/dem/terrain/tilejson.json", encoding: "terrarium", tileSize: 256, maxzoom: tj.maxzoom}; }
    catch (e) { state.terrain = false; }
  }
  return state.terrain;
}

// ---- Highlighted buildings: the current run's flooded buildings and those of cut-off resources ----
const inside = (p, ring) => { let c = false; for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) { const [xi, yi] = ring[i], [xj, yj] = ring[j]; if ((yi > p[1]) !== (yj > p[1]) && p[0] < (xj - xi) * (p[1] - yi) / (yj - yi) + xi) c = !c; } return c; };
const polygons = (g) => g.type === "Polygon" ? [g.coordinates] : g.type === "MultiPolygon" ? g.coordinates : [];
async function highlighted() {
  const shown = collections().filter(isVisible).map((c) => RUN.exec(c.id)).filter(Boolean);
  const stem = shown.length ? shown[0][1] + "_" + shown[0][2] : "";
  if (state.highlight && state.highlight.stem === stem) return state.highlight;
  const out = {stem, flooded: [], cutoff: []};
  if (stem) {
    const all = new Set(collections().map((c) => c.id));
    if (all.has(stem + "_buildings")) {
      const doc = await api("/collections/" + stem + "_buildings/items?limit=10000").catch(() => ({features: []}));
      out.flooded = doc.features.map((f) => String(f.properties.building_id || "")).filter(Boolean);
    }
    if (all.has(stem + "_cutoff")) {
      const doc = await api("/collections/" + stem + "_cutoff/items?limit=200").catch(() => ({features: []}));
      for (const f of doc.features.filter((x) => x.properties.kind === "resource" && x.geometry && x.geometry.type === "Point").slice(0, 50)) {
        const [x, y] = f.geometry.coordinates, d = 0.0003;
        const near = await api("/collections/buildings/items?limit=10&bbox=" + [x - d, y - d, x + d, y + d].join(",")).catch(() => ({features: []}));
        const hit = near.features.find((b) => polygons(b.geometry || {}).some((rings) => inside([x, y], rings[0])));
        if (hit) out.cutoff.push(String(hit.id));
      }
    }
  }
  state.highlight = out;
  return out;
}
// A building's id in the tiles: its `id` attribute, or the MVT id for numeric ids.
const BUILDING_ID = ["to-string", ["coalesce", ["get", "id"], ["id"], ""]];
function extrusionColour(h) {
  const cutoff = [...new Set(h.cutoff)], flooded = [...new Set(h.flooded)].filter((id) => !cutoff.includes(id));
  const e = ["case"];
  if (cutoff.length) e.push(["in", BUILDING_ID, ["literal", cutoff]], COLOURS.cutoff);
  if (flooded.length) e.push(["in", BUILDING_ID, ["literal", flooded]], COLOURS.flooded);
  return e.length > 1 ? [...e, COLOURS.building] : COLOURS.building;
}

// ---- Underground: pipes by their upstream manhole's depth less the inlet offset ----------------
async function manholeDepths() {
  if (!state.depths) {
    const doc = await api("/collections/drainage_manholes/items?limit=10000").catch(() => ({features: []}));
    const groups = new Map();
    for (const f of doc.features) {
      const d = f.properties.depth_m;
      if (typeof d !== "number" || f.id === undefined) continue;
      const key = Math.round(d * 10) / 10;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(String(f.id));
    }
    state.depths = {count: doc.features.length, groups};
  }
  return state.depths;
}
async function addUnderground() {
  const pipes = sourceLayer("drainage_pipes"), manholes = sourceLayer("drainage_manholes");
  const depths = await manholeDepths();
  root.dataset.manholes = String(depths.count);
  if (!state.on || !state.transparent) return;
  const before = firstSymbol();
  const fonts = font();
  if (pipes && !map.getLayer(PIPES) && depths.groups.size) {
    const match = ["match", ["get", "upstream_node"]];
    for (const [d, ids] of depths.groups) match.push(ids, d);
    match.push(-1);
    const depth = ["-", match, ["coalesce", ["get", "inlet_offset_m"], 0]];
    map.addLayer({id: PIPES, type: "line", source: "citytwin", "source-layer": pipes, minzoom: 13,
      paint: {"line-color": ["case", ["<", match, 0], "#8c8c8c", depthColour(depth)], "line-width": ["interpolate", ["linear"], ["zoom"], 13, 2, 17, 5]},
      layout: {"line-cap": "round"}, metadata: {"citytwin:legend": false}}, before);
    if (fonts) map.addLayer({id: PIPES + "-label", type: "symbol", source: "citytwin", "source-layer": pipes, minzoom: 16, filter: [">=", match, 0],
      layout: {"symbol-placement": "line", "text-field": ["concat", ["number-format", depth, {"max-fraction-digits": 1}], " m"],
               "text-font": fonts, "text-size": 11},
      paint: {"text-color": "#10239e", "text-halo-color": "#ffffff", "text-halo-width": 1.5}, metadata: {"citytwin:legend": false}});
  }
  if (manholes && !map.getLayer(MANHOLES)) {
    const depth = ["coalesce", ["get", "depth_m"], 0];
    map.addLayer({id: MANHOLES, type: "circle", source: "citytwin", "source-layer": manholes, minzoom: 14,
      paint: {"circle-color": depthColour(depth), "circle-radius": ["interpolate", ["linear"], ["zoom"], 14, 2.5, 17, 6],
              "circle-stroke-color": "#ffffff", "circle-stroke-width": 1}, metadata: {"citytwin:legend": false}});
    if (fonts) map.addLayer({id: MANHOLES + "-label", type: "symbol", source: "citytwin", "source-layer": manholes, minzoom: 17,
      layout: {"text-field": ["concat", ["number-format", depth, {"max-fraction-digits": 1}], " m"], "text-offset": [0, 1.1], "text-size": 11,
               "text-font": fonts},
      paint: {"text-color": "#391085", "text-halo-color": "#ffffff", "text-halo-width": 1.5}, metadata: {"citytwin:legend": false}});
  }
}
function removeLayers(ids) { for (const id of ids) if (map.getLayer(id)) map.removeLayer(id); }

// Transparent surface: every other layer faded (its opacity kept to restore), buildings see-through.
const OPACITY = {fill: "fill-opacity", line: "line-opacity", raster: "raster-opacity", circle: "circle-opacity", background: "background-opacity"};
function fadeSurface(on) {
  for (const [id, prop, value] of state.faded) if (map.getLayer(id)) map.setPaintProperty(id, prop, value);
  state.faded = [];
  if (on) {
    for (const l of map.getStyle().layers) {
      const prop = OPACITY[l.type];
      if (!prop || l.id.startsWith("ct3d-")) continue;
      const value = map.getPaintProperty(l.id, prop);
      state.faded.push([l.id, prop, value]);
      map.setPaintProperty(l.id, prop, l.type === "background" ? 0.6 : 0.25);
    }
  }
  if (map.getLayer(BUILDINGS)) map.setPaintProperty(BUILDINGS, "fill-extrusion-opacity", on ? 0.3 : 1);
}

// ---- The view ---------------------------------------------------------------------------
async function apply() {
  if (!map.__ctReady) return;
  const flat = map.getStyle().layers.filter((l) => meta(l)["citytwin:collection"] === "buildings" && l.type === "fill").map((l) => l.id);
  if (!state.on) {
    fadeSurface(false);
    removeLayers([PIPES + "-label", PIPES, MANHOLES + "-label", MANHOLES, BUILDINGS]);
    map.setTerrain(null);
    flat.forEach((id) => map.setLayoutProperty(id, "visibility", isVisibleId(id) ? "visible" : "none"));
    root.dataset.terrain = "off"; root.dataset.underground = "off";
    drawLegend();
    return;
  }
  const dem = await terrainSource();
  if (dem) {
    if (!map.getSource(DEM)) map.addSource(DEM, dem);
    map.setTerrain({source: DEM, exaggeration: EXAGGERATION});
  }
  root.dataset.terrain = dem ? "on" : "unavailable";
  const buildings = sourceLayer("buildings");
  if (buildings) {
    const h = await highlighted();
    if (!map.getLayer(BUILDINGS)) {
      map.addLayer({id: BUILDINGS, type: "fill-extrusion", source: "citytwin", "source-layer": buildings, minzoom: 14,
        paint: {"fill-extrusion-height": ["coalesce", ["get", "height_m"], ["*", ["coalesce", ["get", "floors"], 1], 3], 3],
                "fill-extrusion-base": 0, "fill-extrusion-opacity": 1, "fill-extrusion-vertical-gradient": true},
        metadata: {"citytwin:legend": false}}, firstSymbol());
    }
    map.setPaintProperty(BUILDINGS, "fill-extrusion-color", extrusionColour(h));
    root.dataset.highlighted = String(new Set([...h.flooded, ...h.cutoff]).size);
    root.dataset.highlightedFlooded = String(new Set(h.flooded).size); root.dataset.highlightedCutoff = String(new Set(h.cutoff).size);
    flat.forEach((id) => map.setLayoutProperty(id, "visibility", "none"));
  }
  if (state.transparent) await addUnderground(); else removeLayers([PIPES + "-label", PIPES, MANHOLES + "-label", MANHOLES]);
  fadeSurface(state.transparent);
  root.dataset.underground = state.transparent && map.getLayer(PIPES) ? "on" : "off";
  drawLegend();
}
// Whether the buildings collection is switched on in the layer tree (its box).
const isVisibleId = () => { const box = document.querySelector('#tree input[data-collection="buildings"]'); return !box || box.checked; };

async function setView(on) {
  state.on = on; root.dataset.view3d = "pending";
  const b = $("view-3d");
  b.setAttribute("aria-pressed", String(on)); b.dataset.i18n = on ? "to2d" : "to3d"; b.textContent = t(b.dataset.i18n);
  $("surface-transparent").disabled = !on;
  if (!on) { state.transparent = false; $("surface-transparent").checked = false; }
  await apply();
  if (on) {
    map.dragRotate.enable(); map.touchZoomRotate.enableRotation(); map.touchPitch.enable();
    map.easeTo({pitch: 60, bearing: map.getBearing() || -25, duration: 0});
  } else {
    map.easeTo({pitch: 0, bearing: 0, duration: 0});
  }
  root.dataset.view3d = on ? "on" : "off";
}

function drawLegend() {
  const box = $("legend-3d"); box.replaceChildren();
  if (!state.on) return;
  const rows = [[t("building3d"), COLOURS.building]];
  if (state.highlight && state.highlight.flooded.length) rows.push([t("flooded3d"), COLOURS.flooded]);
  if (state.highlight && state.highlight.cutoff.length) rows.push([t("cutoff3d"), COLOURS.cutoff]);
  if (state.transparent) for (const [label, colour] of DEPTHS) rows.push([t("pipeDepth") + " / " + t("manholeDepth") + " " + label, colour]);
  box.appendChild(el("p", root.dataset.terrain === "on" ? t("terrainOn") : t("noTerrain"), "hint"));
  for (const [label, colour] of rows) {
    const row = el("div", null, "legend-item"), s = el("span", null, "swatch fill");
    s.style.background = colour; s.dataset.color = colour; s.setAttribute("aria-hidden", "true");
    row.appendChild(s); row.appendChild(el("span", label)); box.appendChild(row);
  }
}

$("view-3d").addEventListener("click", () => setView(!state.on));
$("surface-transparent").addEventListener("change", async (e) => {
  state.transparent = e.target.checked; root.dataset.underground = "pending"; await apply();
});
// A new style (sign-in, sign-out, a run's layers): the caller's terrain and run are asked again, the view re-applied.
map.on("style.load", () => { state.terrain = null; state.highlight = null; state.faded = []; if (state.on) apply(); });
root.dataset.view3d = "off";

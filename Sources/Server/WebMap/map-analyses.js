// The web map's green wave and analyses (the Processes API), an ES module after map.js.
import {
  lang, t, $, el, root, api, map, meta, titleOf, collections, buildLegend, identify, late
} from "./map.js";

// ---- A corridor's green wave (process green-wave, write=false) and its time–space diagram --
// The diagram (the process's SVG) is shown as an image (never parsed into the page); the
// corridor's signalized intersections are drawn by level of service (the worst approach
// carrying traffic, as signal_plans records it) with the LOS legend.
// The LOS colours of the style's signal_plans layer when it has them (one source of truth).
function losColours() {
  const out = {A: "#1a9850", B: "#66bd63", C: "#a6d96a", D: "#fdae61", E: "#f46d43", F: "#d73027"};
  const plans = map.getStyle().layers.find((l) => l.id === "signal_plans-circle");
  const v = plans && plans.paint && plans.paint["circle-color"];
  if (Array.isArray(v) && v[0] === "match") for (let i = 2; i + 1 < v.length; i += 2) if (out[v[i]]) out[v[i]] = v[i + 1];
  return out;
}
let diagramURL = "", lastCorridor = null;
// The offsets' objective: the widest band (the default) or the corridor's lowest delay; changing it re-runs the shown corridor.
$("corridor-objective").addEventListener("change", () => { if (lastCorridor) greenWave(lastCorridor.id, lastCorridor.name); });
async function greenWave(id, name) {
  lastCorridor = {id, name};
  const objective = $("corridor-objective").value;
  const section = $("corridor-section"), info = $("corridor-info"), list = $("corridor-list"), img = $("corridor-diagram");
  const delays = $("corridor-delays");
  section.hidden = false; root.dataset.corridor = "running";
  info.textContent = (name || id) + " · " + t("running"); list.replaceChildren(); delays.replaceChildren(); img.hidden = true;
  try {
    const out = await execute("green-wave", {corridor: id, write: false, offsetObjective: objective});
    const plan = out.plan || {};
    if (diagramURL) URL.revokeObjectURL(diagramURL);
    diagramURL = URL.createObjectURL(new Blob([out.diagram || ""], {type: "image/svg+xml"}));
    const summary = (name || id) + " · " + t("cycle") + " " + Math.round(plan.cycle_s) + " s · " + t("bandOut") + " " + Math.round(plan.outbound_bandwidth_s)
      + " s · " + t("bandIn") + " " + Math.round(plan.inbound_bandwidth_s) + " s"
      + (plan.progression && plan.progression !== "two-way" ? " · " + (t("oneWay")[plan.progression] || plan.progression) : "");
    info.textContent = summary;
    info.title = (plan.warnings || []).join("\n");
    // What each direction's through traffic waits at the signals under these offsets, beside random arrivals.
    for (const d of plan.directions || []) {
      const li = el("li", t("throughDelay")[d.direction] + ": " + Math.round(d.delay_s) + " " + t("perVeh") + ", "
        + d.stops_per_vehicle.toFixed(1) + " " + t("stops") + " (" + t("randomArrivals") + " " + Math.round(d.isolated_delay_s)
        + " " + t("perVeh") + ", " + d.isolated_stops_per_vehicle.toFixed(1) + " " + t("stops") + ")", "result");
      li.dataset.direction = d.direction;
      delays.appendChild(li);
    }
    // Offsets for delay: the corridor's mean control delay beside the widest band's.
    if (plan.at_band_offsets) {
      const li = el("li", t("meanDelay") + ": " + plan.mean_control_delay_s.toFixed(1) + " " + t("perVeh") + " (" + t("atBand") + " "
        + plan.at_band_offsets.mean_control_delay_s.toFixed(1) + " " + t("perVeh") + ")", "result");
      li.dataset.direction = "mean";
      delays.appendChild(li);
    }
    img.alt = t("diagramAlt") + summary; img.src = diagramURL; img.hidden = false;
    $("corridor-open").href = diagramURL;
    // Positions of the corridor's intersections (signalized_intersections).
    const drawn = [], legend = [], LOS = losColours();
    for (const timing of plan.intersections || []) {
      const loaded = Object.values(timing.approaches || {}).filter((a) => a.flow_veh_h > 0).map((a) => a.los).sort();
      const grade = loaded.length ? loaded[loaded.length - 1] : "A";
      let feature = null;
      try { feature = await api("/collections/signalized_intersections/items/" + encodeURIComponent(timing.intersection)); } catch (e) { /* not readable */ }
      const li = el("li", null, "result"), chip = el("span", grade, "los");
      chip.style.background = LOS[grade]; chip.style.color = grade === "F" ? "#ffffff" : "#1f1f1f";
      li.appendChild(chip);
      li.appendChild(el("span", ((feature && feature.properties && feature.properties.name) || timing.intersection) + " · "
        + t("offset") + " " + Math.round(timing.offset_s) + " s · " + t("delay") + " " + (Math.round(timing.mean_delay_s * 10) / 10) + " s"));
      li.dataset.los = grade;
      list.appendChild(li);
      if (feature && feature.geometry) drawn.push({type: "Feature", geometry: feature.geometry, properties: {kind: "point", color: LOS[grade], los: grade}});
    }
    for (const [grade, color] of Object.entries(LOS)) legend.push({label: t("los") + " " + grade, color, shape: "circle"});
    drawResults(drawn, legend);
    root.dataset.corridor = "done";
  } catch (err) { info.textContent = t("analysisFailed") + err.message; root.dataset.corridor = "failed"; }
}

// ---- Analyses through the Processes API ----------------------------------------------
const RANK = ["#d7191c", "#fdae61", "#2c7bb6", "#1a9641", "#7b3294"];
const AREA = ["#1a9850", "#fee08b", "#f46d43", "#a50026"];
const results = {data: {type: "FeatureCollection", features: []}, legend: []};
function restoreResults() {
  if (map.getSource("ct-results")) return;
  map.addSource("ct-results", {type: "geojson", data: results.data});
  // Service areas under the labels (names stay readable); routes and points on top.
  const firstText = (map.getStyle().layers.find((l) => l.type === "symbol") || {}).id;
  map.addLayer({id: "ct-results-area", type: "fill", source: "ct-results", filter: ["==", ["get", "kind"], "area"],
                paint: {"fill-color": ["get", "color"], "fill-opacity": 0.3, "fill-outline-color": ["get", "color"]}}, firstText);
  map.addLayer({id: "ct-results-route", type: "line", source: "ct-results", filter: ["==", ["get", "kind"], "route"],
                layout: {"line-cap": "round", "line-join": "round"}, paint: {"line-color": ["get", "color"], "line-width": 5, "line-opacity": 0.9}});
  map.addLayer({id: "ct-results-point", type: "circle", source: "ct-results", filter: ["==", ["get", "kind"], "point"],
                paint: {"circle-color": ["get", "color"], "circle-radius": 8, "circle-stroke-color": "#ffffff", "circle-stroke-width": 2.5}});
}
function drawResults(features, legend) {
  results.data = {type: "FeatureCollection", features};
  results.legend = legend;
  const s = map.getSource("ct-results"); if (s) s.setData(results.data);
  buildLegend();
}
function clearResults() { drawResults([], []); $("analysis-list").replaceChildren(); delete root.dataset.analysis; }
$("clear-results").addEventListener("click", clearResults);
document.addEventListener("keydown", (e) => { if (e.key === "Escape") clearResults(); });

const tool = () => document.querySelector("input[name=tool]:checked").value;
// Each tool shows the inputs it reads: the resource kind for the nearest resources, the minutes for
// service areas, the flood run for the hazard overlay.
const showToolInputs = () => {
  $("nearest-row").hidden = tool() !== "nearest"; $("breaks-row").hidden = tool() !== "service";
  $("hazard-run-row").hidden = tool() !== "hazard";
  if (tool() === "hazard") loadHazardRuns();
};
// The flood runs the caller may see (newest first), the current published one chosen; a choice the
// caller made stays while it is listed.
async function loadHazardRuns() {
  const select = $("hazard-run"), kept = select.value;
  let listed;
  try { listed = await api("/flood-runs"); } catch (err) { listed = {runs: [], current: null}; }
  const runs = listed.runs || [];
  select.replaceChildren(...runs.map((r) => {
    const when = (r.published_at || r.finished_at || r.started_at || "").replace("T", " ").slice(0, 16);
    const o = el("option", r.id + " · " + ((t("runStates") || {})[r.state] || r.state) + (r.id === listed.current ? " · " + t("currentRun") : "") + (when ? " · " + when : ""));
    o.value = r.id;
    return o;
  }));
  if (!runs.length) { const o = el("option", t("needFlood")); o.value = ""; o.disabled = true; select.appendChild(o); }
  select.value = runs.some((r) => r.id === kept) ? kept : (listed.current || (runs[0] && runs[0].id) || "");
  select.dataset.current = listed.current || "";
}
document.querySelectorAll("input[name=tool]").forEach((r) => r.addEventListener("change", showToolInputs));
showToolInputs();
const serviceBreaks = () => {
  const list = $("service-breaks").value.split(/[,，\s]+/).filter(Boolean).map(Number);
  if (!list.length || list.length > 10 || list.some((m) => !(m > 0 && m <= 240))) throw new Error(t("badBreaks"));
  return [...new Set(list)].sort((a, b) => a - b);
};
async function execute(process, inputs) {
  return api("/processes/" + process + "/execution", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({inputs})});
}
function listItem(parts, onClick) {
  const li = el("li", null, "result");
  if (parts.rank !== undefined) { const r = el("span", parts.rank, "rank"); r.style.background = parts.color; li.appendChild(r); }
  const b = el("button", parts.title, "link"); b.type = "button"; if (onClick) b.addEventListener("click", onClick);
  li.appendChild(b);
  if (parts.meta) li.appendChild(el("div", parts.meta, "meta"));
  $("analysis-list").appendChild(li);
}
const fitFeature = (f) => {
  const b = new maplibregl.LngLatBounds();
  const walk = (c) => { if (typeof c[0] === "number") b.extend(c); else c.forEach(walk); };
  walk(f.geometry.coordinates); map.fitBounds(b, {padding: 60, maxZoom: 17});
};

async function analyse(lngLat) {
  const here = [Math.round(lngLat.lng * 1e6) / 1e6, Math.round(lngLat.lat * 1e6) / 1e6];
  const which = tool();
  $("analysis-list").replaceChildren(el("li", t("running")));
  root.dataset.analysis = "running";
  const origin = {type: "Feature", geometry: {type: "Point", coordinates: here}, properties: {kind: "point", color: "#262626"}};
  try {
    $("analysis-list").replaceChildren();
    if (which === "nearest") {
      const layer = $("nearest-layer").value;
      const out = await execute("nearest-resources", {incident: here, layer, count: 3});
      const feats = (out.resources && out.resources.features) || [];
      const drawn = [origin];
      feats.forEach((f, i) => {
        const color = RANK[i % RANK.length];
        drawn.splice(1, 0, {type: "Feature", geometry: f.geometry, properties: {kind: "route", color}});  // the fastest drawn on top
        const p = f.properties;
        listItem({rank: p.rank, color, title: p.name || p.resource_id, meta: p.minutes.toFixed(1) + " " + t("minutes") + " · " + (p.metres / 1000).toFixed(2) + " " + t("km")}, () => fitFeature(f));
      });
      drawResults(drawn, feats.map((f, i) => ({label: f.properties.rank + ". " + (f.properties.name || f.properties.resource_id), color: RANK[i % RANK.length], shape: "line"})));
      if (!feats.length) listItem({title: t("noResult")});
    } else if (which === "service") {
      const breaks = serviceBreaks();
      const out = await execute("service-area", {origin: here, breaks});
      const feats = ((out.areas && out.areas.features) || []).slice().sort((a, b) => b.properties.minutes - a.properties.minutes);
      const drawn = feats.map((f) => ({type: "Feature", geometry: f.geometry, properties: {kind: "area", color: AREA[breaks.indexOf(f.properties.minutes)] || AREA[3]}}));
      drawn.push(origin);
      const legend = [];
      for (const f of feats.slice().reverse()) {
        const color = AREA[breaks.indexOf(f.properties.minutes)] || AREA[3];
        legend.push({label: f.properties.minutes + " " + t("minutes"), color, shape: "fill"});
        // reached_metres is the length of road reached within the time, not a distance from the point.
        listItem({title: f.properties.minutes + " " + t("minutes"), meta: t("roadsReached") + " " + ((f.properties.reached_metres || 0) / 1000).toFixed(1) + " " + t("km")}, () => fitFeature(f));
      }
      drawResults(drawn, legend);
      if (!feats.length) listItem({title: t("noResult")});
    } else if (which === "hazard") {
      // The run chosen in the panel (the current published one unless the caller picked another); the answer names it.
      await loadHazardRuns();   // fresh (a sign-in or a publication since), keeping the choice
      const chosen = $("hazard-run").value;
      if (!chosen) { listItem({title: t("needFlood")}); root.dataset.analysis = "failed"; return; }
      const out = await execute("hazard-overlay", {run: chosen, origin: here});
      drawResults([origin], []);
      if (out.run) listItem({title: t("floodRun") + " · " + out.run.id, meta: (out.run.published_at || out.run.finished_at || "").replace("T", " ").slice(0, 16)});
      const inside = out.inside || {};
      for (const [k, v] of Object.entries(inside)) {
        if (v && typeof v === "object" && "count" in v) listItem({title: t("inside") + " · " + titleOf(k), meta: String(v.count)});
      }
      if (typeof inside.population === "number") listItem({title: t("inside") + " · " + (lang === "en" ? "population (estimate)" : "人口（估算）"), meta: String(Math.round(inside.population))});
      if (out.closures) listItem({title: t("closures"), meta: (out.closures.pieces ?? 0) + " · " + ((out.closures.metres || 0) / 1000).toFixed(2) + " " + t("km")});
      const closed = out.access_closed || [];
      for (const r of (Array.isArray(closed) ? closed : [])) listItem({title: t("cutOff") + " · " + (r.name || r.id), meta: (r.layer || "") + " " + (r.road || "")});
    } else if (which === "fire") {
      await firePrePlan(lngLat, origin);
    }
    root.dataset.analysis = "done";
  } catch (err) {
    $("analysis-list").replaceChildren(); listItem({title: t("analysisFailed") + err.message}); root.dataset.analysis = "failed";
  }
}
// ---- Fire pre-plan (process fire-pre-plan) for the building clicked -----------------------
// The building under the click (its tile feature's id), else the nearest within about 150 m; the
// stations' routes and the hydrants drawn, the plan listed (parts the caller may not read say so).
async function firePrePlan(lngLat, origin) {
  const hit = map.queryRenderedFeatures(map.project(lngLat)).find((f) => f.layer && meta(f.layer)["citytwin:collection"] === "buildings");
  let id = hit && hit.properties.id;
  if (!id) {
    const d = 0.0015, box = [lngLat.lng - d, lngLat.lat - d, lngLat.lng + d, lngLat.lat + d].join(",");
    const near = await api("/collections/buildings/items?f=json&limit=200&bbox=" + box);
    const dist = (f) => {
      const ring = f.geometry.coordinates[0], n = ring.length;
      const x = ring.reduce((s, c) => s + c[0], 0) / n, y = ring.reduce((s, c) => s + c[1], 0) / n;
      return (x - lngLat.lng) ** 2 + (y - lngLat.lat) ** 2;
    };
    const best = (near.features || []).sort((a, b) => dist(a) - dist(b))[0];
    id = best && best.id;
  }
  if (!id) { listItem({title: t("fireNoBuilding")}); return; }
  const plan = await execute("fire-pre-plan", {building: String(id), hydrants: 3});
  const b = plan.building || {}, stations = (plan.stations && plan.stations.features) || [];
  const drawn = stations.map((f, i) => ({type: "Feature", geometry: f.geometry, properties: {kind: "route", color: RANK[i % RANK.length]}}));
  for (const h of plan.hydrants || []) drawn.push({type: "Feature", geometry: h.position, properties: {kind: "point", color: "#f5222d"}});
  drawn.push(origin);
  drawResults(drawn, stations.map((f, i) => ({label: f.properties.name, color: RANK[i % RANK.length], shape: "line"}))
    .concat([{label: t("fireHydrant"), color: "#f5222d", shape: "point"}]));
  listItem({title: t("fireBuilding") + " · " + (b.name || id), meta: [b.use, b.height_m != null ? b.height_m + " m" : "", b.floors != null ? b.floors + " " + t("fireFloors") : ""].filter(Boolean).join(" · ")});
  const occ = plan.occupants;
  if (occ) listItem({title: t("fireOccupants"), meta: occ.withheld ? t("fireWithheld") : occ.suppressed ? t("fireSuppressed").replace("{k}", occ.k)
    : occ.households + " / " + occ.residents + " · " + t("fireElderly") + " " + occ.elderly + (occ.aggregated ? " · " + t("fireAggregated") : "")});
  stations.forEach((f, i) => listItem({rank: i + 1, color: RANK[i % RANK.length], title: f.properties.name,
    meta: t("fireArrive") + " " + (f.properties.arrival_seconds / 60).toFixed(1) + " " + t("minutes") + (f.properties.within_5_minutes ? "" : " · " + t("fireLate"))}, () => fitFeature(f)));
  for (const h of plan.hydrants || []) listItem({title: t("fireHydrant") + " " + h.id, meta: t("fireHose") + " " + Math.round(h.hose_metres) + " m"});
  for (const w of Array.isArray(plan.water_sources) ? plan.water_sources : []) listItem({title: w.name, meta: t("fireHose") + " " + Math.round(w.hose_metres) + " m"});
  const access = plan.aerial_ladder_access || {};
  listItem({title: access.ladder_street ? t("fireLadderOk") : t("fireLadderNo")});
  for (const lane of Array.isArray(access.fire_lanes) ? access.fire_lanes : []) {
    listItem({title: lane.name, meta: lane.width_m + " m · " + (lane.engine_can_pass ? t("firePass") : t("fireBlocked") + " (" + lane.open_violations.length + ")")});
  }
}

map.on("click", (e) => { if (tool() === "identify") identify(e); else analyse(e.lngLat); });
map.on("mousemove", (e) => {
  map.getCanvas().style.cursor = tool() !== "identify" ? "crosshair" : (map.queryRenderedFeatures(e.point).some((f) => f.layer && meta(f.layer)["citytwin:collection"]) ? "pointer" : "");
});
// Keyboard: Enter on the focused map runs the tool at the map's centre.
$("map").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const c = map.getCenter();
  if (tool() === "identify") identify({point: map.project(c), lngLat: c}); else analyse(c);
});


Object.assign(late, {greenWave, restoreResults, results});
export { results };

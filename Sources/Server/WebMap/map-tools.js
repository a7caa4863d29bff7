// The web map's flood jobs, depth over time and the swipe, search and export: an ES module after
// map.js and map-analyses.js; it starts the page (start(), last).
import {
  lang, t, token, $, el, status, auth, root, api, ideographFonts, serverRequest, reloadStyle, map,
  trackStyle, meta, styleLayers, layerTitle, titleOf, collections, isVisible, buildLegend, late, start
} from "./map.js";
import { results } from "./map-analyses.js";

// ---- An asynchronous flood-scenario job, followed to its result layers -----------------
$("run-flood").addEventListener("click", async () => {
  const model = $("flood-model").value;
  const li = el("li", null, "job"), label = el("div", model + " · " + t("jobAccepted")), bar = el("progress");
  li.dataset.status = "accepted";
  bar.max = 100; bar.value = 0; li.appendChild(label); li.appendChild(bar); $("jobs").prepend(li);
  try {
    const r = await fetch("/processes/flood-scenario/execution", {method: "POST",
      headers: Object.assign({"Content-Type": "application/json", Accept: "application/json", Prefer: "respond-async"}, auth()),
      body: JSON.stringify({inputs: {scenario: model, durationScale: 0.02, demCoarsening: 10}})});
    const job = await r.json();
    if (!r.ok) throw new Error(job.detail || r.statusText);
    const id = job.jobID;
    for (;;) {
      await new Promise((ok) => setTimeout(ok, 1000));
      const s = await api("/jobs/" + encodeURIComponent(id));
      bar.value = s.progress || 0; li.dataset.status = s.status; li.dataset.progress = String(s.progress || 0);
      label.textContent = model + " · " + t("job" + s.status.charAt(0).toUpperCase() + s.status.slice(1)) + " " + (s.progress || 0) + " %" + (s.message ? " · " + s.message : "");
      if (s.status === "failed" || s.status === "dismissed") return;
      if (s.status === "successful") break;
    }
    const out = await api("/jobs/" + encodeURIComponent(id) + "/results");
    li.dataset.layers = (out.layers || []).join(" ");
    const show = el("button", t("show") + " (" + (out.layers || []).length + ")"); show.type = "button";
    show.addEventListener("click", reloadStyle);
    li.appendChild(show);
    reloadStyle();
  } catch (err) { li.dataset.status = "failed"; label.textContent = t("jobFailed") + ": " + err.message; }
});

// ---- Depth over time (slider) and two results side by side (swipe) ----------------------
// A run's depth at one time step is drawn from its PNG map tiles (`?datetime=`; permanent
// water left transparent by the server); the max-depth polygons of the runs hide meanwhile.
// The swipe puts a second MapLibre map (same style, the right-hand result) over the first,
// clipped at the divider; the two cameras move together.
const DEPTH_RE = /^(flood|scenario)_.+_depth$/, WATER = "#a9d3f2", TIME_SOURCE = "ct-depth-time";
const timeline = {runs: new Map(), layer: "", right: "", index: 0, on: false, swipe: false, timer: null, position: 0.5};
let mapB = null, syncing = false;
const timeShown = () => timeline.on || timeline.swipe;
const tileURL = (id, datetime) => location.origin + "/collections/" + encodeURIComponent(id)
  + "/map/tiles/WebMercatorQuad/{z}/{y}/{x}?datetime=" + encodeURIComponent(datetime);
// A design storm's steps are T+ minutes from its start, never a date on the city's clock (they
// would read as a forecast); an observed (nowcast) run's steps are real times (issue 77 §6).
function stepText(run, i) {
  const step = run.steps[Math.min(i, run.steps.length - 1)];
  const minutes = Math.round(step.seconds / 60);
  if (run.clock !== "wall") return "T+" + minutes + " " + t("minutesIn") + " · " + t("designStorm");
  const when = new Date(step.datetime).toLocaleString(lang === "en" ? "en-GB" : "zh-CN",
    {timeZone: "Asia/Shanghai", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit"});
  return when + " (+" + minutes + " " + t("minutesIn") + " · " + t("observedRain") + ")";
}

async function loadTimeline() {
  const ids = collections().map((c) => c.id).filter((id) => DEPTH_RE.test(id)).sort();
  const runs = new Map();
  for (const id of ids) {
    try { const d = await api("/collections/" + encodeURIComponent(id) + "/timesteps"); if (d.steps && d.steps.length) runs.set(id, d); }
    catch (e) { /* a result without depth over time */ }
  }
  timeline.runs = runs;
  for (const [select, key] of [[$("time-layer"), "layer"], [$("swipe-layer"), "right"]]) {
    select.replaceChildren();
    for (const id of runs.keys()) { const o = el("option", titleOf(id)); o.value = id; select.appendChild(o); }
    if (!runs.has(timeline[key])) timeline[key] = key === "right" ? ([...runs.keys()].find((id) => id !== timeline.layer) || timeline.layer) : ([...runs.keys()][0] || "");
    select.value = timeline[key];
  }
  $("time-section").hidden = runs.size === 0;
  $("swipe-on").disabled = runs.size < 2;
  if (runs.size < 2 && timeline.swipe) setSwipe(false);
  if (!runs.size) timeline.on = false;
  root.dataset.timeline = String(runs.size);
  setStep(timeline.index);
}

// The step on the slider: the tiles of that time on the map (and the nearest earlier step of
// the right-hand result on the swipe map), the time in the panel and on the slider.
function setStep(i) {
  const run = timeline.runs.get(timeline.layer);
  const slider = $("time-slider");
  if (!run) { drawTime(); return; }
  timeline.index = Math.max(0, Math.min(run.steps.length - 1, i));
  slider.max = String(run.steps.length - 1); slider.value = String(timeline.index);
  const text = stepText(run, timeline.index);
  $("time-now").textContent = text; slider.setAttribute("aria-valuetext", text);
  root.dataset.timeStep = run.steps[timeline.index].datetime;
  drawTime();
}

function beforeWater(m) {
  const layers = m.getStyle().layers;
  const hit = layers.find((l) => /^(lakes|reservoirs|drainage_storage|rivers|buildings)-/.test(l.id)) || layers.find((l) => l.type === "symbol");
  return hit ? hit.id : undefined;
}
function setRaster(m, id, step) {
  if (!m || !m.__ctReady) return;
  const depthVectors = m.getStyle().layers.filter((l) => DEPTH_RE.test(meta(l)["citytwin:collection"] || ""));
  if (!id || !step) {
    if (m.getLayer(TIME_SOURCE)) m.removeLayer(TIME_SOURCE);
    if (m.getSource(TIME_SOURCE)) m.removeSource(TIME_SOURCE);
    if (m.__ctHidden) { m.__ctHidden.forEach((l) => m.getLayer(l) && m.setLayoutProperty(l, "visibility", "visible")); m.__ctHidden = null; }
    return;
  }
  // The max-depth polygons would hide the time's depth: hidden while it is drawn.
  if (!m.__ctHidden) m.__ctHidden = depthVectors.filter((l) => m.getLayoutProperty(l.id, "visibility") !== "none").map((l) => l.id);
  m.__ctHidden.forEach((l) => m.setLayoutProperty(l, "visibility", "none"));
  const url = tileURL(id, step.datetime), source = m.getSource(TIME_SOURCE);
  if (source && source.__ctLayer === id) { if (source.__ctURL !== url) { source.setTiles([url]); source.__ctURL = url; } return; }
  if (m.getLayer(TIME_SOURCE)) m.removeLayer(TIME_SOURCE);
  if (source) m.removeSource(TIME_SOURCE);
  m.addSource(TIME_SOURCE, {type: "raster", tiles: [url], tileSize: 256, maxzoom: 18, attribution: ""});
  const added = m.getSource(TIME_SOURCE); added.__ctLayer = id; added.__ctURL = url;
  m.addLayer({id: TIME_SOURCE, type: "raster", source: TIME_SOURCE, paint: {"raster-resampling": "nearest", "raster-fade-duration": 0},
              metadata: {"citytwin:legend": false}}, beforeWater(m));
}
function drawTime() {
  const run = timeline.runs.get(timeline.layer), shown = !!run && timeShown();
  const step = shown ? run.steps[timeline.index] : null;
  setRaster(map, shown ? timeline.layer : "", step);
  if (mapB && timeline.swipe) {
    const other = timeline.runs.get(timeline.right);
    const seconds = step ? step.seconds : 0;
    const stepB = other ? (other.steps.filter((s) => s.seconds <= seconds + 1e-6).pop() || other.steps[0]) : null;
    setRaster(mapB, other ? timeline.right : "", stepB);
    $("side-a").textContent = t("left") + " · " + titleOf(timeline.layer);
    $("side-b").textContent = t("right") + " · " + titleOf(timeline.right) + (stepB ? " · T+" + Math.round(stepB.seconds / 60) + " " + t("minutesIn") : "");
    $("divider").setAttribute("aria-valuetext", $("side-a").textContent + " | " + $("side-b").textContent);
  }
  buildLegend();
}
$("time-layer").addEventListener("change", (e) => { timeline.layer = e.target.value; setStep(timeline.index); });
$("swipe-layer").addEventListener("change", (e) => { timeline.right = e.target.value; drawTime(); });
$("time-on").addEventListener("change", (e) => { timeline.on = e.target.checked; drawTime(); });
$("time-slider").addEventListener("input", (e) => setStep(Number(e.target.value)));
$("time-play").addEventListener("click", () => {
  const b = $("time-play");
  if (timeline.timer) { clearInterval(timeline.timer); timeline.timer = null; b.textContent = t("play"); b.setAttribute("aria-pressed", "false"); return; }
  const run = timeline.runs.get(timeline.layer); if (!run) return;
  if (!timeShown()) { timeline.on = true; $("time-on").checked = true; }
  if (timeline.index >= run.steps.length - 1) setStep(0);
  b.textContent = t("pause"); b.setAttribute("aria-pressed", "true");
  timeline.timer = setInterval(() => {
    if (timeline.index >= run.steps.length - 1) { b.click(); return; }
    setStep(timeline.index + 1);
  }, 1500);
});

// The swipe: map B over map A, clipped left of the divider.
function follow(from, to) {
  if (syncing || !to) return;
  syncing = true;
  to.jumpTo({center: from.getCenter(), zoom: from.getZoom(), bearing: from.getBearing(), pitch: from.getPitch()});
  syncing = false;
}
function ensureMapB() {
  if (mapB) return mapB;
  mapB = new maplibregl.Map({container: "map-b", style: "/tiles/WebMercatorQuad/style.json", center: map.getCenter(), zoom: map.getZoom(),
    bearing: map.getBearing(), pitch: map.getPitch(), attributionControl: false,
    localIdeographFontFamily: ideographFonts, transformRequest: serverRequest});
  trackStyle(mapB);
  window.citytwin.mapB = mapB;
  mapB.on("error", (e) => console.error("map error", e.error && e.error.message));
  mapB.on("style.load", () => { mapB.__ctHidden = null; drawTime(); });
  mapB.on("move", () => { if (timeline.swipe) follow(mapB, map); });
  // Clicks on the right-hand side run the same tools as on the map.
  mapB.on("click", (e) => map.fire("click", {point: e.point, lngLat: e.lngLat, originalEvent: e.originalEvent}));
  return mapB;
}
map.on("move", () => { if (timeline.swipe) follow(map, mapB); });
function placeDivider() {
  const r = $("map").getBoundingClientRect(), d = $("divider");
  d.style.left = (r.left + timeline.position * r.width) + "px"; d.style.top = r.top + "px"; d.style.height = r.height + "px";
  $("compare").style.clipPath = "inset(0 0 0 " + (timeline.position * 100).toFixed(2) + "%)";
  d.setAttribute("aria-valuenow", String(Math.round(timeline.position * 100)));
  $("side-b").style.left = (timeline.position * 100).toFixed(2) + "%";
}
function setSwipe(on) {
  timeline.swipe = on; $("swipe-on").checked = on;
  $("compare").hidden = !on; $("divider").hidden = !on; $("side-a").hidden = !on;
  if (on) { ensureMapB(); placeDivider(); follow(map, mapB); mapB.resize(); }
  else if (mapB) setRaster(mapB, "", null);
  drawTime();
}
$("swipe-on").addEventListener("change", (e) => setSwipe(e.target.checked));
(() => {
  const d = $("divider");
  const move = (x) => { const r = $("map").getBoundingClientRect(); timeline.position = Math.max(0.02, Math.min(0.98, (x - r.left) / r.width)); placeDivider(); };
  d.addEventListener("pointerdown", (e) => { d.setPointerCapture(e.pointerId); e.preventDefault(); });
  d.addEventListener("pointermove", (e) => { if (d.hasPointerCapture(e.pointerId)) move(e.clientX); });
  d.addEventListener("keydown", (e) => {
    const step = {ArrowLeft: -0.05, ArrowDown: -0.05, ArrowRight: 0.05, ArrowUp: 0.05}[e.key];
    if (step !== undefined) timeline.position = Math.max(0.02, Math.min(0.98, timeline.position + step));
    else if (e.key === "Home") timeline.position = 0.02; else if (e.key === "End") timeline.position = 0.98; else return;
    e.preventDefault(); placeDivider();
  });
  window.addEventListener("resize", () => { if (timeline.swipe) placeDivider(); });
  const a = el("span", "", "side"), b = el("span", "", "side");
  a.id = "side-a"; b.id = "side-b"; $("compare").appendChild(b);
  a.classList.add("left"); a.hidden = true; $("map").appendChild(a);
})();

// ---- Search: the geocoder (standard addresses, departments) and names of open layers ------
const NAMED = ["hospitals", "shelters", "roads", "lakes", "rivers", "parking_lots", "fire_stations", "warehouses", "rescue_teams", "buildings"];
function firstPosition(g) { let p = g.coordinates; while (Array.isArray(p[0])) p = p[Math.floor(p.length / 2)] || p[0]; return p; }
function fly(p, text) {
  map.flyTo({center: p, zoom: 17});
  new maplibregl.Popup().setLngLat(p).setText(text).addTo(map);
}
$("search").addEventListener("submit", async (e) => {
  e.preventDefault();
  const q = $("q").value.trim(), list = $("search-results");
  list.replaceChildren(); status("");
  if (!q) return;
  const found = [];
  if (token) {
    try { const m = await api("/geocode?q=" + encodeURIComponent(q)); found.push({text: m.matched_address + " (" + Math.round(m.confidence * 100) + "%)", p: [m.lon, m.lat]}); }
    catch (err) { if (err.status !== 404) status(t("searchFailed") + err.message); }
  }
  const lit = "'%" + q.replace(/'/g, "''").replace(/[%_\\]/g, "\\$&") + "%'";
  const readable = new Set(collections().map((c) => c.id));
  await Promise.all(NAMED.filter((id) => readable.has(id)).map(async (id) => {
    try {
      const doc = await api("/collections/" + id + "/items?limit=5&filter-lang=cql2-text&filter=" + encodeURIComponent("name LIKE " + lit));
      const title = (styleLayers().find((l) => meta(l)["citytwin:collection"] === id) || {}).metadata;
      for (const f of doc.features) if (f.geometry) found.push({text: f.properties.name + " · " + layerTitle(title), p: firstPosition(f.geometry)});
    } catch (err) { /* a layer without names for this caller: skip */ }
  }));
  if (!found.length) { status(t("notFound") + q); return; }
  for (const f of found.slice(0, 12)) {
    const li = el("li"), b = el("button", f.text, "link"); b.type = "button";
    b.addEventListener("click", () => fly(f.p, f.text)); li.appendChild(b); list.appendChild(li);
  }
  fly(found[0].p, found[0].text);
});

// ---- Export: the view's features of one layer as CSV or GeoPackage ---------------------
function fillExport() {
  const s = $("export-layer"), keep = s.value; s.replaceChildren();
  for (const c of collections().filter(isVisible)) { const o = el("option", layerTitle(c.meta)); o.value = c.id; s.appendChild(o); }
  if ([...s.options].some((o) => o.value === keep)) s.value = keep;
}
async function exportView(format) {
  const id = $("export-layer").value;
  if (!id) { status(t("nothingToExport")); return; }
  const b = map.getBounds();
  const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map((v) => v.toFixed(6)).join(",");
  try {
    const r = await fetch("/collections/" + encodeURIComponent(id) + "/items?f=" + format + "&bbox=" + bbox, {headers: auth()});
    if (!r.ok) { const p = await r.json().catch(() => ({})); throw new Error(p.detail || r.statusText); }
    const blob = await r.blob(), a = el("a");
    a.href = URL.createObjectURL(blob); a.download = id + (format === "csv" ? ".csv" : ".gpkg");
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    status(t("exported") + a.download + " (" + Math.round(blob.size / 1024) + " KB)", true);
  } catch (err) { status(t("exportFailed") + err.message); }
}
$("export-csv").addEventListener("click", () => exportView("csv"));
$("export-gpkg").addEventListener("click", () => exportView("gpkg"));

// ---- Print: the current view (box, visible layers, the flood run shown) as an A4 PDF ----
// GET /map/print draws it on the server from the same style (title, legend, scale bar, north
// arrow, sources, the caller's department); a run's layers are flood_<run id, '-' as '_'>_<kind>.
const RUN_LAYER = /^flood_([a-z0-9_]+_[0-9]+)_(depth|roads|buildings|cutoff)$/;
async function printView() {
  const ids = collections().filter(isVisible).map((c) => c.id).slice(0, 30);
  const runs = ids.map((id) => RUN_LAYER.exec(id)).filter(Boolean).map((m) => m[1].replace(/_/g, "-"));
  if (!ids.length) { status(t("nothingToExport")); return; }
  const b = map.getBounds();
  const q = new URLSearchParams({
    bbox: [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map((v) => v.toFixed(6)).join(","),
    layers: ids.join(","), format: "pdf", paper: "A4", orientation: "landscape",
    title: lang === "en" ? "CityTwin map" : "CityTwin 一张图"});
  if (runs.length) q.set("run", runs[0]);
  try {
    const r = await fetch("/map/print?" + q.toString(), {headers: auth()});
    if (!r.ok) { const p = await r.json().catch(() => ({})); throw new Error(p.detail || r.statusText); }
    const blob = await r.blob(), a = el("a");
    a.href = URL.createObjectURL(blob); a.download = "citytwin-map.pdf";
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    status(t("exported") + a.download + " (" + Math.round(blob.size / 1024) + " KB)", true);
  } catch (err) { status(t("exportFailed") + err.message); }
}
{
  const button = el("button", lang === "en" ? "Print (PDF)" : "打印（PDF）");
  button.type = "button"; button.id = "print-map";
  $("export-gpkg").after(" ", button);
  button.addEventListener("click", printView);
}


Object.assign(late, {fillExport, loadTimeline, timeline, timeShown, WATER, stepText, setStep, mapB: () => mapB});
start();

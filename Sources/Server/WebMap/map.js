// The web map's script, served at /static/map.js (Sources/Server/WebMap/MapPage.swift says what
// the page does; this file is a package resource of the Server target, read once from Bundle.module).
//
// Hooks for scripted checks (Scripts/webmap_check.sh): <html data-map-idle="true"> once the
// layer tree and legend are built and every tile is drawn (reset while a new style loads),
// data-style-loads counts style loads, data-analysis="done|failed" after an analysis,
// data-corridor="done|failed" after a green wave, data-timeline the results with depth over
// time, data-time-step the step shown, window.citytwin.map is the MapLibre map and
// window.citytwin.mapB the swipe's second map (once used).
"use strict";
(() => {
const TOKEN_KEY = "citytwin.token", LANG_KEY = "citytwin.lang";
const CATEGORIES = ["时空基础", "资源调查", "规划管控", "工程建设项目", "公共专题", "物联感知"];
const CATEGORY_EN = {"时空基础": "Spatio-temporal base", "资源调查": "Resource survey", "规划管控": "Planning control", "工程建设项目": "Construction projects", "公共专题": "Public themes", "物联感知": "IoT sensing"};
const TEXT = {
  zh: {skip: "跳到地图", title: "一张图", account: "身份", tokenLabel: "部门令牌", tokenPlaceholder: "部门令牌 JWT", signIn: "登录", signOut: "退出登录",
       search: "地址与地点搜索", searchLabel: "地址或地点名称", searchPlaceholder: "如：问津大道12号、人民医院", go: "搜索",
       analysis: "点击地图分析", tool: "工具", identify: "查询要素", nearest: "最近资源", service: "服务区（等时圈）", hazard: "灾害叠加",
       resource: "资源", toolHint: "选择工具后点击地图；按 Esc 清除结果。", clear: "清除结果", jobs: "模拟任务", runFlood: "运行内涝情景（快速）",
       legend: "图例", layers: "图层", restricted: "部分图层（管网、应急资源、模拟结果）需部门令牌登录后可见。", export: "导出当前视图", layer: "图层",
       public: "公众（未登录）", minutes: "分钟", km: "公里", roadsReached: "可达道路", breaks: "时间（分钟）", badBreaks: "时间须为 1–10 个逗号分隔的分钟数（0–240）", running: "正在计算…", noResult: "没有结果", notFound: "没有找到：",
       searchFailed: "搜索不可用：", signedIn: "已登录：", badToken: "令牌无效：", needFlood: "尚无已发布的内涝模拟（水务和湖泊局发布后可用）", preset: "默认图层：", floodRun: "内涝模拟", runStates: {draft: "草稿", published: "已发布", archived: "已归档"}, currentRun: "当前",
       inside: "灾害范围内", closures: "封闭道路", cutOff: "受阻资源", exported: "已导出：", exportFailed: "导出失败：", nothingToExport: "没有可导出的图层",
       jobAccepted: "已提交", jobRunning: "运行中", jobSuccessful: "完成", jobFailed: "失败", show: "显示结果图层", layerTreeFailed: "图层目录加载失败：",
       analysisFailed: "分析失败：", areas: "服务区", yes: "是", no: "否", zoomFrom: "级起", snap: "距道路", treeTitle: "图层",
       floodModel: "情景", timeTitle: "积水过程与情景对比", timeRun: "模拟结果", timeShow: "按时刻显示水深", play: "播放", pause: "暂停", timeSlider: "时刻",
       swipe: "卷帘对比（左右两个情景）", swipeRight: "右侧情景", swipeHint: "拖动分隔线，或聚焦后用方向键移动。", timeLegend: "积水深度（当前时刻）",
       permanentWater: "河湖常水面（非积水）", divider: "卷帘分隔线", left: "左", right: "右", minutesIn: "分钟",
       greenWave: "绿波协调与时空图", corridor: "干线绿波", cycle: "周期", bandOut: "上行绿波带宽", bandIn: "下行绿波带宽", offset: "相位差",
       delay: "延误", los: "服务水平", diagramAlt: "时空图：", openDiagram: "在新窗口打开时空图",
       throughDelay: {outbound: "上行直行车辆全程信号延误", inbound: "下行直行车辆全程信号延误"}, randomArrivals: "随机到达时", perVeh: "s/辆", stops: "次停车/辆",
       offsetsFor: "相位差依据", offsetsBand: "最宽绿波带", offsetsDelay: "干线延误最小", meanDelay: "干线平均控制延误", atBand: "最宽绿波带相位差时",
       oneWay: {"outbound-only": "单向绿波（仅上行）", "inbound-only": "单向绿波（仅下行）", "none": "无绿波带"}},
  en: {skip: "Skip to map", title: "City map", account: "Identity", tokenLabel: "Department token", tokenPlaceholder: "department token (JWT)", signIn: "Sign in", signOut: "Sign out",
       search: "Address and place search", searchLabel: "Address or place name", searchPlaceholder: "e.g. 问津大道12号, hospital name", go: "Search",
       analysis: "Click the map to analyse", tool: "Tool", identify: "Identify", nearest: "Nearest resources", service: "Service area", hazard: "Hazard overlay",
       resource: "Resource", toolHint: "Pick a tool, then click the map; Esc clears the results.", clear: "Clear results", jobs: "Simulation jobs", runFlood: "Run flood scenario (quick)",
       legend: "Legend", layers: "Layers", restricted: "Some layers (networks, emergency resources, simulation results) need a department token.", export: "Export the view", layer: "Layer",
       public: "Public (not signed in)", minutes: "min", km: "km", roadsReached: "roads reached", breaks: "Minutes", badBreaks: "Minutes must be 1–10 comma-separated numbers in (0, 240]", running: "Running…", noResult: "No result", notFound: "Nothing found: ",
       searchFailed: "Search unavailable: ", signedIn: "Signed in: ", badToken: "Token refused: ", needFlood: "No flood run is published yet (the water authority publishes one)", preset: "layers: ", floodRun: "Flood run", runStates: {draft: "draft", published: "published", archived: "archived"}, currentRun: "current",
       inside: "Inside the hazard", closures: "Closed roads", cutOff: "Cut-off resources", exported: "Exported: ", exportFailed: "Export failed: ", nothingToExport: "No layer to export",
       jobAccepted: "accepted", jobRunning: "running", jobSuccessful: "successful", jobFailed: "failed", show: "Show result layers", layerTreeFailed: "Layer list failed: ",
       analysisFailed: "Analysis failed: ", areas: "Service areas", yes: "yes", no: "no", zoomFrom: "from zoom", snap: "to road", treeTitle: "Layers",
       floodModel: "Scenario", timeTitle: "Flood over time and comparison", timeRun: "Result", timeShow: "Show the depth at a time", play: "Play", pause: "Pause", timeSlider: "Time",
       swipe: "Swipe: compare two results", swipeRight: "Right-hand result", swipeHint: "Drag the divider, or focus it and use the arrow keys.", timeLegend: "Water depth (at this time)",
       permanentWater: "Permanent water (not flood)", divider: "Swipe divider", left: "left", right: "right", minutesIn: "min",
       greenWave: "Green wave and time–space diagram", corridor: "Corridor green wave", cycle: "cycle", bandOut: "outbound band", bandIn: "inbound band", offset: "offset",
       delay: "delay", los: "LOS", diagramAlt: "Time–space diagram: ", openDiagram: "Open the diagram in a new window",
       throughDelay: {outbound: "Outbound through traffic, delay over the corridor", inbound: "Inbound through traffic, delay over the corridor"}, randomArrivals: "with random arrivals", perVeh: "s/veh", stops: "stops/veh",
       offsetsFor: "Offsets for", offsetsBand: "the widest band", offsetsDelay: "the lowest corridor delay", meanDelay: "Mean control delay over the corridor", atBand: "at the widest band's offsets",
       oneWay: {"outbound-only": "one-way wave (outbound only)", "inbound-only": "one-way wave (inbound only)", "none": "no band"}},
};
let lang = localStorage.getItem(LANG_KEY) === "en" ? "en" : "zh";
const t = (key) => (TEXT[lang] && TEXT[lang][key]) || TEXT.zh[key] || key;
let token = sessionStorage.getItem(TOKEN_KEY) || "";
let refreshTiles = false;   // after a sign-in or sign-out: revalidate every tile (ETag) once fetched again
let who = null;
const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined && text !== null) e.textContent = String(text); if (cls) e.className = cls; return e; };
const status = (text, ok) => { const s = $("status"); s.textContent = text || ""; s.className = ok ? "ok" : ""; };
const auth = () => token ? {Authorization: "Bearer " + token} : {};
const root = document.documentElement;

async function api(path, options) {
  const o = Object.assign({}, options || {});
  o.headers = Object.assign({Accept: "application/json"}, auth(), o.headers || {});
  const r = await fetch(path, o);
  if (!r.ok) {
    const p = await r.json().catch(() => ({}));
    const e = new Error(p.detail || p.title || (r.status + " " + r.statusText)); e.status = r.status; throw e;
  }
  return r.status === 204 ? null : r.json();
}

// ---- The map -------------------------------------------------------------------------
// Both maps (the main one and the swipe's right-hand one) ask the server alike: the caller's
// token on every request to it, the style never cached, tiles revalidated after a sign-in.
const ideographFonts = "'WenQuanYi Micro Hei', 'Noto Sans CJK SC', 'Microsoft YaHei', 'PingFang SC', sans-serif";
function serverRequest(url, kind) {
  if (new URL(url, location.href).origin !== location.origin) return {url};
  const r = {url, headers: auth()};
  if (kind === "Style") r.cache = "no-store";
  if (kind === "Tile" && refreshTiles) r.cache = "no-cache";
  return r;
}
const map = new maplibregl.Map({
  container: "map", style: "/tiles/WebMercatorQuad/style.json",
  center: [114.80, 30.84], zoom: 13, hash: false, attributionControl: {compact: true},
  localIdeographFontFamily: ideographFonts, transformRequest: serverRequest,
});
// Whether a map's style is loaded (sources and layers may be added): MapLibre's
// isStyleLoaded() is also false while tiles load.
const trackStyle = (m) => { m.on("styledataloading", () => { m.__ctReady = false; }); m.on("style.load", () => { m.__ctReady = true; }); };
trackStyle(map);
window.citytwin = {map};
map.addControl(new maplibregl.NavigationControl(), "top-right");
map.addControl(new maplibregl.ScaleControl({unit: "metric"}), "bottom-right");
map.on("error", (e) => console.error("map error", e.error && e.error.message));

let fitted = false, styleLoads = 0;
const meta = (layer) => layer.metadata || {};
const styleLayers = () => map.getStyle().layers.filter((l) => meta(l)["citytwin:collection"]);
const layerTitle = (m) => lang === "en" ? (m["citytwin:titleEn"] || m["citytwin:title"]) : m["citytwin:title"];

// After every style load: the layer tree, the legend, the analysis results, the idle flag.
map.on("style.load", () => {
  map.__ctHidden = null;
  styleLoads += 1; root.dataset.styleLoads = String(styleLoads);
  root.dataset.mapIdle = "false";
  buildTree(); buildLegend(); restoreResults(); fillExport(); loadTimeline();
  const done = () => map.once("idle", () => { root.dataset.mapIdle = "true"; });
  if (!fitted) { fitted = true; fitDistrict().finally(done); } else done();
});

async function fitDistrict() {
  try {
    const tj = await api("/tiles/WebMercatorQuad/tilejson.json");
    const b = tj.bounds;
    if (b) map.fitBounds([[b[0], b[1]], [b[2], b[3]]], {padding: 20, duration: 0});
  } catch (e) { status(t("layerTreeFailed") + e.message); }
}

// ---- Layer tree: one group per CIM category, one toggle per collection -------------------
function collections() {
  const byId = new Map();
  for (const l of styleLayers()) {
    const m = meta(l), id = m["citytwin:collection"];
    if (!byId.has(id)) byId.set(id, {id, meta: m, layers: [], minzoom: l.minzoom || 0});
    const c = byId.get(id); c.layers.push(l.id); c.minzoom = Math.min(c.minzoom, l.minzoom || 0);
  }
  return [...byId.values()];
}
const isVisible = (c) => c.layers.some((id) => map.getLayoutProperty(id, "visibility") !== "none");

function buildTree() {
  const tree = $("tree"); tree.replaceChildren();
  const groups = new Map(CATEGORIES.map((c) => [c, []]));
  for (const c of collections()) {
    const cat = c.meta["citytwin:category"] || "其他";
    if (!groups.has(cat)) groups.set(cat, []);
    groups.get(cat).push(c);
  }
  for (const [cat, list] of groups) {
    if (!list.length) continue;
    const details = el("details"); details.open = list.some(isVisible);
    details.appendChild(el("summary", (lang === "en" ? (CATEGORY_EN[cat] || cat) : cat) + " (" + list.length + ")"));
    for (const c of list) {
      const label = el("label"), box = el("input");
      box.type = "checkbox"; box.checked = isVisible(c); box.dataset.collection = c.id;
      box.addEventListener("change", () => {
        c.layers.forEach((id) => map.setLayoutProperty(id, "visibility", box.checked ? "visible" : "none"));
        buildLegend(); fillExport();
      });
      label.appendChild(box); label.appendChild(document.createTextNode(layerTitle(c.meta)));
      if (c.minzoom > 0) label.appendChild(el("span", c.minzoom + " " + t("zoomFrom"), "zoom"));
      details.appendChild(label);
    }
    tree.appendChild(details);
  }
  $("restricted-hint").hidden = !!token;
}

// ---- Legend: read from the style's paint properties (one source of truth) ----------------
const COLOR_OF = {fill: "fill-color", line: "line-color", circle: "circle-color"};
function legendEntries(layer) {
  const m = meta(layer), prop = COLOR_OF[layer.type];
  if (!prop || m["citytwin:legend"] === false) return [];
  const value = map.getPaintProperty(layer.id, prop) ?? (layer.paint || {})[prop];
  const labels = m["citytwin:labels"] || {}, unit = m["citytwin:unit"] ? " " + m["citytwin:unit"] : "";
  const shape = layer.type, casing = m["citytwin:casing"];
  if (typeof value === "string") return [{label: m["citytwin:legendTitle"] || layerTitle(m), color: value, shape, casing}];
  const extra = (m["citytwin:legendExtra"] || []).map((e) => ({label: lang === "en" ? (e.labelEn || e.label) : e.label, color: e.color, shape: e.shape || shape}));
  if (Array.isArray(value) && value[0] === "match") {
    const out = [];
    for (let i = 2; i + 1 < value.length; i += 2) out.push({label: labels[value[i]] || String(value[i]), color: value[i + 1], shape});
    if (m["citytwin:otherwise"]) out.push({label: m["citytwin:otherwise"], color: value[value.length - 1], shape});
    return out.concat(extra);
  }
  if (Array.isArray(value) && value[0] === "step") {
    const out = [], stops = [];
    for (let i = 3; i + 1 < value.length; i += 2) stops.push([value[i], value[i + 1]]);
    const from = m["citytwin:legendFrom"];
    out.push({label: (from !== undefined ? from + "–" : "< ") + (stops.length ? stops[0][0] : "") + unit, color: value[2], shape});
    stops.forEach(([s, c], i) => out.push({label: i + 1 < stops.length ? s + "–" + stops[i + 1][0] + unit : "> " + s + unit, color: c, shape}));
    return out;
  }
  return [{label: layerTitle(m), color: "#8c8c8c", shape}];
}

function swatch(entry) {
  const s = el("span", null, "swatch " + entry.shape);
  s.style.background = entry.color; s.dataset.color = entry.color;
  if (entry.casing) s.style.border = "1.5px solid " + entry.casing;
  s.setAttribute("aria-hidden", "true");
  return s;
}

function buildLegend() {
  const legend = $("legend"); legend.replaceChildren();
  const groups = new Map();
  for (const l of styleLayers()) {
    if (map.getLayoutProperty(l.id, "visibility") === "none") continue;
    const entries = legendEntries(l);
    if (!entries.length) continue;
    const m = meta(l), key = m["citytwin:collection"];
    if (!groups.has(key)) groups.set(key, {title: layerTitle(m), entries: []});
    groups.get(key).entries.push(...entries);
  }
  // The depth at the slider's time (the PNG tiles' classes, from the run's timesteps legend).
  const run = timeline.runs.get(timeline.layer);
  if (run && timeShown()) {
    const entries = (run.legend || []).slice(1).map((e) => ({label: e.label, color: e.colour, shape: "fill"}));
    entries.push({label: t("permanentWater"), color: WATER, shape: "fill"});
    groups.set("_time", {title: t("timeLegend") + " · " + stepText(run, timeline.index), entries});
  }
  // Results of the analyses drawn on the map.
  if (results.legend.length) groups.set("_results", {title: lang === "en" ? "Analysis results" : "分析结果", entries: results.legend});
  for (const g of groups.values()) {
    legend.appendChild(el("h3", g.title));
    const seen = new Set();
    for (const e of g.entries) {
      if (seen.has(e.label + e.color)) continue; seen.add(e.label + e.color);
      const row = el("div", null, "legend-item"); row.appendChild(swatch(e)); row.appendChild(el("span", e.label));
      legend.appendChild(row);
    }
  }
}

// ---- Identity: sign in with a department token (session storage only) -----------------
async function refreshIdentity() {
  try { who = await api("/whoami"); } catch (e) { who = null; throw e; }
  const signedIn = who.caller !== "anonymous";
  // The department and its role in it; the layer preset is named as a preset, not as the department's job.
  $("who").textContent = signedIn ? (who.department || "admin") + (who.role ? " · " + who.role : "") + " · " + t("preset") + (lang === "en" ? who.mapRole : who.mapRoleTitle) : t("public");
  // The flood run is offered only to those who may run one (no button that ends in a 403).
  $("signin").hidden = signedIn; $("signout").hidden = !signedIn; $("jobs-section").hidden = !(signedIn && who.mayRunFlood);
  root.dataset.caller = signedIn ? (who.department || "admin") : "anonymous";
}

// A new token: the identity, then the caller's style (its layers and role defaults); tiles
// are fetched again (MapLibre's tile cache goes with the old style; the browser revalidates).
async function applyToken(next) {
  const previous = token;
  token = next;
  try { await refreshIdentity(); } catch (e) { token = previous; status(t("badToken") + e.message); await refreshIdentity().catch(() => {}); return false; }
  if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
  refreshTiles = true;
  root.dataset.mapIdle = "false";
  map.setStyle("/tiles/WebMercatorQuad/style.json", {diff: false});
  if (mapB) mapB.setStyle("/tiles/WebMercatorQuad/style.json", {diff: false});
  queryables.clear();
  status(token ? t("signedIn") + (who.department || "admin") : "", true);
  return true;
}
$("signin").addEventListener("submit", (e) => { e.preventDefault(); const v = $("token").value.trim(); $("token").value = ""; if (v) applyToken(v); });
$("signout").addEventListener("click", () => applyToken(""));

// ---- Popups: the layer's Chinese title and field titles from its queryables --------------
const queryables = new Map();
async function fieldTitles(id) {
  if (!queryables.has(id)) queryables.set(id, api("/collections/" + encodeURIComponent(id) + "/queryables").then((q) => q.properties || {}).catch(() => ({})));
  return queryables.get(id);
}
function showValue(v) {
  if (v === true) return t("yes"); if (v === false) return t("no");
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  if (v && typeof v === "object") return JSON.stringify(v);
  return v === null || v === undefined ? "" : String(v);
}
async function identify(e) {
  const hits = map.queryRenderedFeatures(e.point).filter((f) => f.layer && meta(f.layer)["citytwin:collection"]);
  if (!hits.length) return;
  const f = hits[0], m = meta(f.layer), id = m["citytwin:collection"];
  const titles = await fieldTitles(id);
  const box = el("div", null, "popup"), table = el("table");
  box.appendChild(el("h3", layerTitle(m)));
  for (const [k, v] of Object.entries(f.properties)) {
    const tr = el("tr"), q = titles[k] || {};
    tr.appendChild(el("th", (lang === "en" ? (q.description || k) : (q.title || k))));
    tr.appendChild(el("td", showValue(v)));
    table.appendChild(tr);
  }
  box.appendChild(table);
  // A signal corridor under the click: its green wave and time–space diagram.
  const corridor = hits.find((h) => meta(h.layer)["citytwin:collection"] === "signal_corridors");
  if (corridor && corridor.properties.id) {
    const b = el("button", t("greenWave"), "corridor-run"); b.type = "button";
    b.addEventListener("click", () => greenWave(String(corridor.properties.id), corridor.properties.name || ""));
    box.appendChild(b);
  }
  new maplibregl.Popup({maxWidth: "380px"}).setLngLat(e.lngLat).setDOMContent(box).addTo(map);
}

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
      const titleOf = (id) => { const c = collections().find((x) => x.id === id); return c ? layerTitle(c.meta) : id; };
      for (const [k, v] of Object.entries(inside)) {
        if (v && typeof v === "object" && "count" in v) listItem({title: t("inside") + " · " + titleOf(k), meta: String(v.count)});
      }
      if (typeof inside.population === "number") listItem({title: t("inside") + " · " + (lang === "en" ? "population (estimate)" : "人口（估算）"), meta: String(Math.round(inside.population))});
      if (out.closures) listItem({title: t("closures"), meta: (out.closures.pieces ?? 0) + " · " + ((out.closures.metres || 0) / 1000).toFixed(2) + " " + t("km")});
      const closed = out.access_closed || [];
      for (const r of (Array.isArray(closed) ? closed : [])) listItem({title: t("cutOff") + " · " + (r.name || r.id), meta: (r.layer || "") + " " + (r.road || "")});
    }
    root.dataset.analysis = "done";
  } catch (err) {
    $("analysis-list").replaceChildren(); listItem({title: t("analysisFailed") + err.message}); root.dataset.analysis = "failed";
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
    show.addEventListener("click", () => { refreshTiles = true; map.setStyle("/tiles/WebMercatorQuad/style.json", {diff: false}); });
    li.appendChild(show);
    refreshTiles = true; map.setStyle("/tiles/WebMercatorQuad/style.json", {diff: false});
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
function stepText(run, i) {
  const step = run.steps[Math.min(i, run.steps.length - 1)];
  const when = new Date(step.datetime).toLocaleString(lang === "en" ? "en-GB" : "zh-CN",
    {timeZone: "Asia/Shanghai", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit"});
  return when + " (+" + Math.round(step.seconds / 60) + " " + t("minutesIn") + ")";
}
const titleOf = (id) => { const c = collections().find((x) => x.id === id); return c ? layerTitle(c.meta) : id; };

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
    $("side-b").textContent = t("right") + " · " + titleOf(timeline.right) + (stepB ? " · +" + Math.round(stepB.seconds / 60) + " " + t("minutesIn") : "");
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

// ---- Language ----------------------------------------------------------------------
function applyLanguage() {
  root.lang = lang === "en" ? "en" : "zh-CN";
  document.title = (lang === "en" ? "City map" : "一张图") + " · CityTwin";
  document.querySelectorAll("[data-i18n]").forEach((n) => { n.textContent = t(n.dataset.i18n); });
  document.querySelectorAll("[data-i18n-placeholder]").forEach((n) => { n.placeholder = t(n.dataset.i18nPlaceholder); });
  const b = $("lang"); b.textContent = lang === "en" ? "中文" : "EN"; b.lang = lang === "en" ? "zh-CN" : "en";
  b.setAttribute("aria-label", lang === "en" ? "切换到中文" : "Switch to English");
  $("map").setAttribute("aria-label", lang === "en" ? "Map" : "地图");
  $("legend").setAttribute("aria-label", t("legend"));
  $("divider").setAttribute("aria-label", t("divider"));
  if (timeline.runs.size) setStep(timeline.index);
  if (map.isStyleLoaded()) { buildTree(); buildLegend(); fillExport(); }
  if (who) refreshIdentity().catch(() => {});
}
$("lang").addEventListener("click", () => { lang = lang === "en" ? "zh" : "en"; localStorage.setItem(LANG_KEY, lang); applyLanguage(); });

applyLanguage();
refreshIdentity().catch((e) => { if (token) { token = ""; sessionStorage.removeItem(TOKEN_KEY); status(t("badToken") + e.message); } });
})();

// The web map's script, served at /static/map.js (Sources/Server/WebMap/MapPage.swift says what
// the page does; this file is a package resource of the Server target, read once from Bundle.module).
//
// Hooks for scripted checks (Scripts/webmap_check.sh): <html data-map-idle="true"> once the
// layer tree and legend are built and every tile is drawn (reset while a new style loads),
// data-style-loads counts style loads, data-analysis="done|failed" after an analysis,
// data-corridor="done|failed" after a green wave, data-timeline the results with depth over
// time, data-time-step the step shown, window.citytwin.map is the MapLibre map and
// window.citytwin.mapB the swipe's second map (once used).
//
// One of three ES modules (loaded in this order by /map): this one, the map and what every part
// shares (the text, the server's API, the layer tree, the legend, identity, popups, the language);
// map-analyses.js, the green wave and the analyses; map-tools.js, flood jobs, depth over time and
// the swipe, search and export. What this part calls in the later ones is in `late`, which they
// fill; map-tools.js calls start() last.
const TOKEN_KEY = "citytwin.token", LANG_KEY = "citytwin.lang";
const CATEGORIES = ["时空基础", "资源调查", "规划管控", "工程建设项目", "公共专题", "物联感知"];
const CATEGORY_EN = {"时空基础": "Spatio-temporal base", "资源调查": "Resource survey", "规划管控": "Planning control", "工程建设项目": "Construction projects", "公共专题": "Public themes", "物联感知": "IoT sensing"};
const TEXT = {
  zh: {fire: "消防预案", fireNoBuilding: "点击处没有建筑", fireBuilding: "建筑", fireFloors: "层", fireOccupants: "户数 / 人数", fireWithheld: "无权查看（实有人口）", fireSuppressed: "不足 {k} 户，不予提供（数据沙箱）", fireAggregated: "沙箱聚合",
       fireElderly: "老人", fireArrive: "到场", fireLate: "超过 5 分钟", fireHydrant: "消火栓", fireHose: "水带", fireLadderOk: "临街道路可供登高作业",
       fireLadderNo: "无可供登高作业的临街道路", firePass: "消防车可通行", fireBlocked: "受阻",
       skip: "跳到地图", title: "一张图", account: "身份", tokenLabel: "部门令牌", tokenPlaceholder: "部门令牌 JWT", signIn: "登录", signOut: "退出登录",
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
       swipe: "卷帘对比（左右两个情景）", swipeRight: "右侧情景", swipeHint: "拖动分隔线，或聚焦后用方向键移动。", timeLegend: "积水深度（当前时刻）", whatIfNote: "情景（非实况）：规划情景的模拟结果，不是实况。",
       permanentWater: "河湖常水面（非积水）", divider: "卷帘分隔线", left: "左", right: "右", minutesIn: "分钟", designStorm: "设计暴雨，非实况", observedRain: "实测降雨",
       greenWave: "绿波协调与时空图", corridor: "干线绿波", cycle: "周期", bandOut: "上行绿波带宽", bandIn: "下行绿波带宽", offset: "相位差",
       delay: "延误", los: "服务水平", diagramAlt: "时空图：", openDiagram: "在新窗口打开时空图",
       throughDelay: {outbound: "上行直行车辆全程信号延误", inbound: "下行直行车辆全程信号延误"}, randomArrivals: "随机到达时", perVeh: "s/辆", stops: "次停车/辆",
       offsetsFor: "相位差依据", offsetsBand: "最宽绿波带", offsetsDelay: "干线延误最小", meanDelay: "干线平均控制延误", atBand: "最宽绿波带相位差时",
       oneWay: {"outbound-only": "单向绿波（仅上行）", "inbound-only": "单向绿波（仅下行）", "none": "无绿波带"}},
  en: {fire: "Fire pre-plan", fireNoBuilding: "No building there", fireBuilding: "Building", fireFloors: "floors", fireOccupants: "Households / people", fireWithheld: "withheld (population register)", fireSuppressed: "fewer than {k} households: not given (sandbox)", fireAggregated: "sandbox aggregate",
       fireElderly: "elderly", fireArrive: "arrives in", fireLate: "over 5 minutes", fireHydrant: "Hydrant", fireHose: "hose", fireLadderOk: "A street an aerial ladder can work from",
       fireLadderNo: "No street an aerial ladder can work from", firePass: "engines can pass", fireBlocked: "blocked",
       skip: "Skip to map", title: "City map", account: "Identity", tokenLabel: "Department token", tokenPlaceholder: "department token (JWT)", signIn: "Sign in", signOut: "Sign out",
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
       swipe: "Swipe: compare two results", swipeRight: "Right-hand result", swipeHint: "Drag the divider, or focus it and use the arrow keys.", timeLegend: "Water depth (at this time)", whatIfNote: "What-if: a planning scenario's simulated result, not the city as it stands.",
       permanentWater: "Permanent water (not flood)", divider: "Swipe divider", left: "left", right: "right", minutesIn: "min", designStorm: "design storm, not observed", observedRain: "observed rain",
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
// A new style (after a sign-in, a sign-out or a result layer written): every tile revalidated once.
function reloadStyle() {
  refreshTiles = true;
  map.setStyle("/tiles/WebMercatorQuad/style.json", {diff: false});
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
// A collection's title in the page's language (its id when the style does not hold it).
const titleOf = (id) => { const c = collections().find((x) => x.id === id); return c ? layerTitle(c.meta) : id; };

// After every style load: the layer tree, the legend, the analysis results, the idle flag.
// (registered by start(), once every part of the page is loaded).
function onStyleLoad() {
  map.__ctHidden = null;
  styleLoads += 1; root.dataset.styleLoads = String(styleLoads);
  root.dataset.mapIdle = "false";
  buildTree(); buildLegend(); late.restoreResults(); late.fillExport(); late.loadTimeline();
  const done = () => map.once("idle", () => { root.dataset.mapIdle = "true"; });
  if (!fitted) { fitted = true; fitDistrict().finally(done); } else done();
}

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
        buildLegend(); late.fillExport();
      });
      label.appendChild(box); label.appendChild(document.createTextNode(layerTitle(c.meta)));
      // A what-if's results (a scenario's): marked in the title and set apart, never on by default.
      if (c.meta["citytwin:whatIf"]) label.classList.add("what-if");
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
    if (!groups.has(key)) groups.set(key, {title: layerTitle(m), whatIf: !!m["citytwin:whatIf"], entries: []});
    groups.get(key).entries.push(...entries);
  }
  // The depth at the slider's time (the PNG tiles' classes, from the run's timesteps legend).
  const timeline = late.timeline;
  const run = timeline.runs.get(timeline.layer);
  if (run && late.timeShown()) {
    const entries = (run.legend || []).slice(1).map((e) => ({label: e.label, color: e.colour, shape: "fill"}));
    entries.push({label: t("permanentWater"), color: late.WATER, shape: "fill"});
    // A what-if's depth (a scenario's) says so here too: its title carries the marking.
    const shown = collections().find((c) => c.id === timeline.layer), whatIf = !!(shown && shown.meta["citytwin:whatIf"]);
    const prefix = whatIf ? "【" + (lang === "en" ? "What-if" : shown.meta["citytwin:whatIfLabel"]) + "】" : "";
    groups.set("_time", {title: prefix + t("timeLegend") + " · " + late.stepText(run, timeline.index), whatIf, entries});
  }
  // Results of the analyses drawn on the map.
  const results = late.results;
  if (results.legend.length) groups.set("_results", {title: lang === "en" ? "Analysis results" : "分析结果", entries: results.legend});
  for (const g of groups.values()) {
    legend.appendChild(el("h3", g.title, g.whatIf ? "what-if" : undefined));
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
  root.dataset.mapIdle = "false";
  reloadStyle();
  const mapB = late.mapB();
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
  if (m["citytwin:whatIf"]) { box.classList.add("what-if"); box.appendChild(el("p", t("whatIfNote"), "what-if-note")); }
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
    b.addEventListener("click", () => late.greenWave(String(corridor.properties.id), corridor.properties.name || ""));
    box.appendChild(b);
  }
  new maplibregl.Popup({maxWidth: "380px"}).setLngLat(e.lngLat).setDOMContent(box).addTo(map);
}

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
  if (late.timeline.runs.size) late.setStep(late.timeline.index);
  if (map.isStyleLoaded()) { buildTree(); buildLegend(); late.fillExport(); }
  if (who) refreshIdentity().catch(() => {});
}
$("lang").addEventListener("click", () => { lang = lang === "en" ? "zh" : "en"; localStorage.setItem(LANG_KEY, lang); applyLanguage(); });


// Once every part of the page is loaded (map-tools.js calls it last): the style's load handled (also
// when the style loaded before), the page's language, who is signed in.
function start() {
  map.on("style.load", onStyleLoad);
  if (map.__ctReady) onStyleLoad();
  applyLanguage();
  refreshIdentity().catch((e) => { if (token) { token = ""; sessionStorage.removeItem(TOKEN_KEY); status(t("badToken") + e.message); } });
}

/** What the later parts provide, for this one's callbacks: filled by map-analyses.js and map-tools.js. */
const late = {};

export {
  TOKEN_KEY, LANG_KEY, CATEGORIES, CATEGORY_EN, TEXT, lang, t, token, refreshTiles, who, $, el, status, auth,
  root, api, ideographFonts, serverRequest, reloadStyle, map, trackStyle, fitted, styleLoads, meta,
  styleLayers, layerTitle, titleOf, onStyleLoad, fitDistrict, collections, isVisible, buildTree, COLOR_OF,
  legendEntries, swatch, buildLegend, refreshIdentity, applyToken, queryables, fieldTitles, showValue,
  identify, applyLanguage, start, late
};

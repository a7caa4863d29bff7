// The web map's base-layer switch, served at /static/basemap.js after map.js (a package resource
// of the Server target, like map.js). The style's base layers (WebMap/BaseMapStyle.swift) carry
// metadata "citytwin:basemap" (their group: osm, tianditu-vec, tianditu-img); one group is
// visible. This offers each group and "none" as radio buttons, keeps the choice across style
// reloads (a sign-in reloads the style) and in the session, and labels in the page's language.
// Hook for scripted checks: <html data-basemap="GROUP|none"> once a choice is applied.
"use strict";
(() => {
const KEY = "citytwin.basemap";
const NONE = {zh: "无底图", en: "No base map"}, TITLE = {zh: "底图", en: "Base map"};
const map = window.citytwin && window.citytwin.map;
const section = document.getElementById("basemap-section");
if (!map || !section) return;
const list = document.getElementById("basemap-choices"), heading = document.getElementById("basemap-h");
const english = () => document.documentElement.lang === "en";
let chosen = sessionStorage.getItem(KEY);

// The groups of the current style (the city's base map, Tianditu's vector, its imagery, any other), with their titles and visibility.
function groups() {
  const out = new Map();
  for (const l of map.getStyle().layers) {
    const m = l.metadata || {}, g = m["citytwin:basemap"];
    if (!g) continue;
    if (!out.has(g)) out.set(g, {id: g, zh: m["citytwin:basemapTitle"] || g, en: m["citytwin:basemapTitleEn"] || g, layers: [], visible: false});
    const entry = out.get(g);
    entry.layers.push(l.id);
    if ((l.layout || {}).visibility !== "none") entry.visible = true;
  }
  const order = ["osm", "tianditu-vec", "tianditu-img"], rank = (g) => (order.indexOf(g.id) + order.length + 1) % (order.length + 1);
  return [...out.values()].sort((a, b) => rank(a) - rank(b));
}

function apply(group) {
  for (const g of groups()) {
    for (const id of g.layers) map.setLayoutProperty(id, "visibility", g.id === group ? "visible" : "none");
  }
  document.documentElement.dataset.basemap = group;
}

function build() {
  const all = groups();
  section.hidden = all.length === 0;
  list.replaceChildren();
  if (!all.length) return;
  if (!chosen || (chosen !== "none" && !all.some((g) => g.id === chosen))) {
    const shown = all.find((g) => g.visible);
    chosen = shown ? shown.id : "none";
  }
  apply(chosen);
  const lang = english() ? "en" : "zh";
  heading.textContent = TITLE[lang];
  for (const g of [...all, {id: "none", zh: NONE.zh, en: NONE.en}]) {
    const label = document.createElement("label"), input = document.createElement("input");
    input.type = "radio"; input.name = "basemap"; input.value = g.id; input.checked = g.id === chosen;
    input.addEventListener("change", () => { chosen = g.id; sessionStorage.setItem(KEY, chosen); apply(chosen); });
    label.appendChild(input);
    label.appendChild(document.createTextNode(" " + g[lang]));
    list.appendChild(label);
  }
}

map.on("style.load", build);
if (map.__ctReady) build();
// The language switch (map.js's) relabels after its own handler.
const switcher = document.getElementById("lang");
if (switcher) switcher.addEventListener("click", () => setTimeout(() => { if (map.__ctReady) build(); }, 0));
})();

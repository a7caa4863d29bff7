/// The web map at `/map`: MapLibre GL JS from `/static/` drawing the whole-map vector tiles
/// with `/tiles/WebMercatorQuad/style.json`; a layer tree grouped by CIM category (from
/// `/collections`, the category is each collection's first keyword) with toggles; a popup with
/// the clicked feature's properties; a search over the standard addresses
/// (`/collections/addresses/items?filter=…`) that flies to the result. No external network.
///
/// A bearer token saved in the page (browser `localStorage`) is sent with every request, so a
/// department sees its shared layers; without one the map shows the open layers. All feature
/// text is put in the page with `textContent`, never as markup.
enum MapPage {
    static let html = #"""
    <!DOCTYPE html>
    <html lang="zh-CN"><head><meta charset="utf-8"><title>一张图 · CityTwin</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="stylesheet" href="/static/maplibre-gl.css">
    <script src="/static/maplibre-gl.js"></script>
    <style>
    html,body{margin:0;height:100%;font-family:system-ui,sans-serif;font-size:14px}
    #map{position:absolute;left:260px;right:0;top:0;bottom:0}
    #panel{position:absolute;left:0;top:0;bottom:0;width:260px;overflow:auto;box-sizing:border-box;padding:.75em;background:#fafafa;border-right:1px solid #ddd}
    #panel h1{font-size:1.1em;margin:0 0 .5em}
    #panel h2{font-size:.95em;margin:.8em 0 .2em;color:#444}
    #panel label{display:block;margin:.1em 0 .1em .4em}
    #panel label.off{color:#999}
    form{display:flex;gap:.25em}form input{flex:1 1 0;width:0;min-width:0}form button{flex:none}
    #results{list-style:none;margin:.3em 0;padding:0}#results li{cursor:pointer;padding:.15em 0;color:#0645ad}
    #status{color:#a33;margin:.3em 0}
    .popup table{border-collapse:collapse}.popup th,.popup td{border:1px solid #ddd;padding:1px 4px;text-align:left;font-size:12px}
    </style></head>
    <body>
    <div id="panel">
      <h1><a href="/">CityTwin</a> 一张图</h1>
      <form id="search"><input id="q" placeholder="地址搜索，如：中山大道" aria-label="地址搜索"><button>搜索</button></form>
      <ul id="results"></ul>
      <div id="status"></div>
      <div id="tree" aria-label="图层"></div>
      <h2>令牌 Token</h2>
      <form id="token"><input id="t" type="password" placeholder="ct1.… (可选)" aria-label="令牌"><button>保存</button></form>
    </div>
    <div id="map"></div>
    <script>
    "use strict";
    const CATEGORIES = ["时空基础", "资源调查", "规划管控", "工程建设项目", "公共专题", "物联感知"];
    const token = localStorage.getItem("citytwin.token") || "";
    const auth = token ? {Authorization: "Bearer " + token} : {};
    const status = (text) => { document.getElementById("status").textContent = text; };
    const el = (tag, text) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); return e; };

    document.getElementById("token").addEventListener("submit", (e) => {
      e.preventDefault();
      const v = document.getElementById("t").value.trim();
      if (v) localStorage.setItem("citytwin.token", v); else localStorage.removeItem("citytwin.token");
      location.reload();
    });

    const map = new maplibregl.Map({
      container: "map",
      style: "/tiles/WebMercatorQuad/style.json",
      center: [114.3055, 30.5928], zoom: 12,
      transformRequest: (url) => (token && new URL(url, location.href).origin === location.origin) ? {url, headers: auth} : {url},
    });
    map.addControl(new maplibregl.NavigationControl());
    map.addControl(new maplibregl.ScaleControl());

    async function getJSON(path) {
      const r = await fetch(path, {headers: Object.assign({Accept: "application/json"}, auth)});
      if (!r.ok) { const p = await r.json().catch(() => ({})); throw new Error(p.detail || (r.status + " " + r.statusText)); }
      return r.json();
    }

    // The layer tree: one group per CIM category, one toggle per collection drawn in the style.
    async function buildTree() {
      const doc = await getJSON("/collections");
      const styleLayers = map.getStyle().layers;
      const groups = new Map(CATEGORIES.map((c) => [c, []]));
      let bounds = null;
      for (const c of doc.collections) {
        const cat = (c.keywords && c.keywords[0]) || "其他";
        if (!groups.has(cat)) groups.set(cat, []);
        groups.get(cat).push(c);
        const b = c.extent && c.extent.spatial && c.extent.spatial.bbox && c.extent.spatial.bbox[0];
        if (b && b.length >= 4) bounds = bounds ? [Math.min(bounds[0], b[0]), Math.min(bounds[1], b[1]), Math.max(bounds[2], b[2]), Math.max(bounds[3], b[3])] : b.slice(0, 4);
      }
      const tree = document.getElementById("tree");
      for (const [cat, list] of groups) {
        if (!list.length) continue;
        tree.appendChild(el("h2", cat));
        for (const c of list) {
          const ids = styleLayers.filter((l) => l["source-layer"] === c.id).map((l) => l.id);
          const label = el("label"), box = el("input");
          box.type = "checkbox"; box.checked = ids.length > 0; box.disabled = ids.length === 0; box.dataset.collection = c.id;
          box.addEventListener("change", () => ids.forEach((id) => map.setLayoutProperty(id, "visibility", box.checked ? "visible" : "none")));
          label.appendChild(box); label.appendChild(document.createTextNode(" " + (c.title || c.id)));
          if (!ids.length) { label.className = "off"; label.title = "无矢量瓦片（属性表）"; }
          tree.appendChild(label);
        }
      }
      if (bounds) map.fitBounds([[bounds[0], bounds[1]], [bounds[2], bounds[3]]], {padding: 30, duration: 0});
    }

    // Popups: the properties of the top feature under the click.
    map.on("click", (e) => {
      const hits = map.queryRenderedFeatures(e.point).filter((f) => f.sourceLayer);
      if (!hits.length) return;
      const f = hits[0], box = el("div"), table = el("table");
      box.className = "popup";
      box.appendChild(el("b", f.sourceLayer));
      for (const [k, v] of Object.entries(f.properties)) {
        const tr = el("tr"); tr.appendChild(el("th", k)); tr.appendChild(el("td", typeof v === "object" ? JSON.stringify(v) : v)); table.appendChild(tr);
      }
      box.appendChild(table);
      new maplibregl.Popup({maxWidth: "360px"}).setLngLat(e.lngLat).setDOMContent(box).addTo(map);
    });
    map.on("mousemove", (e) => { map.getCanvas().style.cursor = map.queryRenderedFeatures(e.point).some((f) => f.sourceLayer) ? "pointer" : ""; });

    // Address search: CQL2 LIKE on the standard address name and full address.
    document.getElementById("search").addEventListener("submit", async (e) => {
      e.preventDefault();
      const q = document.getElementById("q").value.trim();
      const list = document.getElementById("results");
      list.replaceChildren(); status("");
      if (!q) return;
      const lit = "'%" + q.replace(/'/g, "''").replace(/[%_\\]/g, "\\$&") + "%'";
      const filter = "full_address LIKE " + lit + " OR name LIKE " + lit;
      try {
        const doc = await getJSON("/collections/addresses/items?limit=10&filter-lang=cql2-text&filter=" + encodeURIComponent(filter));
        if (!doc.features.length) { status("没有找到：" + q); return; }
        for (const f of doc.features) {
          const li = el("li", f.properties.full_address || f.properties.name || f.id);
          li.addEventListener("click", () => flyTo(f));
          list.appendChild(li);
        }
        flyTo(doc.features[0]);
      } catch (err) { status("地址搜索不可用：" + err.message); }
    });

    function flyTo(f) {
      if (!f.geometry) return;
      let p = f.geometry.coordinates;
      while (Array.isArray(p[0])) p = p[0];
      map.flyTo({center: p, zoom: 17});
      new maplibregl.Popup().setLngLat(p).setText(f.properties.full_address || f.properties.name || String(f.id)).addTo(map);
    }

    // After the tree is built and the view fitted, the next idle means every tile is drawn: a hook
    // for scripted checks (Scripts/webmap_check.sh).
    const drawn = () => map.once("idle", () => { document.documentElement.dataset.mapIdle = "true"; });
    map.on("load", () => buildTree().catch((err) => status("图层目录加载失败：" + err.message)).finally(drawn));
    map.on("error", (e) => console.error("map error", e.error && e.error.message));
    </script>
    </body></html>
    """#
}

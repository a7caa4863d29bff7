import Foundation

/// The web map at `/map`: MapLibre GL JS from `/static/` drawing the whole-map vector tiles with
/// the caller's style `/tiles/WebMercatorQuad/style.json` (WebMap/MapStyle.swift: designed per
/// layer, labels from `/fonts/`, the default layers of the caller's role). The page's script
/// and stylesheet are `/static/map.js`, `/static/map-analyses.js`, `/static/map-tools.js`, `/static/map-3d.js` (ES modules), `/static/basemap.js` and `/static/map.css` (beside this file).
///
/// What a person does there: read the legend (made from the style, so the two agree), switch
/// layers by CIM category, sign in with a department token (kept in the browser's session
/// storage; style, tiles and features are fetched again without a page reload), search an
/// address or place, click a feature for its attributes under their Chinese titles, click a
/// point to run nearest resources, a service area or a hazard overlay through the Processes
/// API, follow a flood-scenario job to its result layers, step a flood result's depth through
/// time (slider over `/collections/{id}/timesteps`, PNG depth tiles per `datetime`), compare two
/// results side by side (a second MapLibre map clipped at a draggable divider, cameras kept in
/// step), run a signal corridor's green wave from its popup (time–space diagram, intersections
/// by level of service), switch to a 3D view (`/static/map-3d.js`: terrain from the managed DEM's
/// Terrarium tiles, buildings extruded by height, the flood draped, flooded and cut-off buildings
/// highlighted, a transparent surface over the drainage network by depth), and export the view as CSV or
/// GeoPackage; switch the base map (`/static/basemap.js`: the city's OpenStreetMap base map, Tianditu's
/// vector or imagery, or none) when the server has one. Chinese by default, English on a switch; every control is keyboard reachable.
/// All feature text is put in the page with `textContent`, never as markup. No external network.
enum MapPage {
    static let html = #"""
    <!DOCTYPE html>
    <html lang="zh-CN"><head><meta charset="utf-8"><title>一张图 · CityTwin</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/static/maplibre-gl.css">
    <link rel="stylesheet" href="/static/map.css">
    <script src="/static/maplibre-gl.js"></script>
    </head>
    <body>
    <a class="skip" href="#map" data-i18n="skip">跳到地图</a>
    <aside id="panel" aria-label="工具面板">
      <header class="bar">
        <h1><a href="/">CityTwin</a> <span data-i18n="title">一张图</span></h1>
        <button type="button" id="lang" lang="en" aria-label="Switch to English">EN</button>
      </header>
      <section id="account" aria-labelledby="account-h">
        <h2 id="account-h" data-i18n="account">身份</h2>
        <p id="who" role="status">公众（未登录）</p>
        <form id="signin" autocomplete="off">
          <label for="token" class="sr" data-i18n="tokenLabel">部门令牌</label>
          <input id="token" type="password" placeholder="JWT" data-i18n-placeholder="tokenPlaceholder">
          <button type="submit" data-i18n="signIn">登录</button>
        </form>
        <button type="button" id="signout" hidden data-i18n="signOut">退出登录</button>
      </section>
      <section aria-labelledby="search-h">
        <h2 id="search-h" data-i18n="search">地址与地点搜索</h2>
        <form id="search" role="search">
          <label for="q" class="sr" data-i18n="searchLabel">地址或地点名称</label>
          <input id="q" placeholder="如：问津大道12号、人民医院" data-i18n-placeholder="searchPlaceholder">
          <button type="submit" data-i18n="go">搜索</button>
        </form>
        <ul id="search-results" class="list"></ul>
      </section>
      <section aria-labelledby="tools-h">
        <h2 id="tools-h" data-i18n="analysis">点击地图分析</h2>
        <fieldset id="tools">
          <legend class="sr" data-i18n="tool">工具</legend>
          <label><input type="radio" name="tool" value="identify" checked> <span data-i18n="identify">查询要素</span></label>
          <label><input type="radio" name="tool" value="nearest"> <span data-i18n="nearest">最近资源</span></label>
          <label><input type="radio" name="tool" value="service"> <span data-i18n="service">服务区（等时圈）</span></label>
          <label><input type="radio" name="tool" value="hazard"> <span data-i18n="hazard">灾害叠加</span></label>
          <label><input type="radio" name="tool" value="fire"> <span data-i18n="fire">消防预案</span></label>
        </fieldset>
        <label class="row" id="nearest-row"><span data-i18n="resource">资源</span>
          <select id="nearest-layer">
            <option value="shelters">应急避难场所</option><option value="hospitals">医疗机构</option>
            <option value="fire_stations">消防救援站</option><option value="warehouses">应急物资仓库</option>
            <option value="rescue_teams">应急救援队伍</option>
          </select></label>
        <label class="row" id="breaks-row" hidden><span data-i18n="breaks">时间（分钟）</span>
          <input id="service-breaks" value="2,5,10" inputmode="numeric" size="10"></label>
        <label class="row" id="hazard-run-row" hidden><span data-i18n="floodRun">内涝模拟</span>
          <select id="hazard-run"></select></label>
        <p class="hint" data-i18n="toolHint">选择工具后点击地图；按 Esc 清除结果。</p>
        <div id="analysis" aria-live="polite"><ol id="analysis-list" class="list"></ol></div>
        <button type="button" id="clear-results" data-i18n="clear">清除结果</button>
      </section>
      <section id="jobs-section" aria-labelledby="jobs-h" hidden>
        <h2 id="jobs-h" data-i18n="jobs">模拟任务</h2>
        <label class="row"><span data-i18n="floodModel">情景</span>
          <select id="flood-model"><option value="p50-waterlogging">50 年一遇内涝（p50-waterlogging）</option>
            <option value="p50-with-storage">50 年一遇 + 调蓄池（p50-with-storage）</option></select></label>
        <button type="button" id="run-flood" data-i18n="runFlood">运行内涝情景（快速）</button>
        <ul id="jobs" class="list" aria-live="polite"></ul>
      </section>
      <section id="corridor-section" aria-labelledby="corridor-h" hidden>
        <h2 id="corridor-h" data-i18n="corridor">干线绿波</h2>
        <p id="corridor-info" aria-live="polite"></p>
        <label class="row"><span data-i18n="offsetsFor">相位差依据</span>
          <select id="corridor-objective"><option value="band" data-i18n="offsetsBand">最宽绿波带</option>
            <option value="delay" data-i18n="offsetsDelay">干线延误最小</option></select></label>
        <ul id="corridor-delays" class="list"></ul>
        <a id="corridor-open" target="_blank" rel="noopener"><img id="corridor-diagram" alt="" hidden></a>
        <ol id="corridor-list" class="list"></ol>
      </section>
      <section id="time-section" aria-labelledby="time-h" hidden>
        <h2 id="time-h" data-i18n="timeTitle">积水过程与情景对比</h2>
        <label class="row"><span data-i18n="timeRun">模拟结果</span> <select id="time-layer"></select></label>
        <label class="row"><input type="checkbox" id="time-on"> <span data-i18n="timeShow">按时刻显示水深</span></label>
        <div class="row time">
          <button type="button" id="time-play" aria-pressed="false" data-i18n="play">播放</button>
          <label for="time-slider" class="sr" data-i18n="timeSlider">时刻</label>
          <input type="range" id="time-slider" min="0" max="0" value="0" step="1">
        </div>
        <output id="time-now" for="time-slider" aria-live="polite"></output>
        <label class="row"><input type="checkbox" id="swipe-on"> <span data-i18n="swipe">卷帘对比（左右两个情景）</span></label>
        <label class="row"><span data-i18n="swipeRight">右侧情景</span> <select id="swipe-layer"></select></label>
        <p class="hint" data-i18n="swipeHint">拖动分隔线，或聚焦后用方向键移动。</p>
      </section>
      <section id="view3d-section" aria-labelledby="view3d-h">
        <h2 id="view3d-h" data-i18n="view3d">三维视图</h2>
        <button type="button" id="view-3d" aria-pressed="false" data-i18n="to3d">切换到三维</button>
        <label class="row"><input type="checkbox" id="surface-transparent" disabled> <span data-i18n="transparent">透明地表（显示地下排水管网）</span></label>
        <p class="hint" data-i18n="hint3d">三维：右键或 Ctrl+拖动旋转与俯仰；地形按 1.5 倍夸大显示。</p>
        <div id="legend-3d" aria-live="polite"></div>
      </section>
      <section id="basemap-section" aria-labelledby="basemap-h" hidden>
        <h2 id="basemap-h">底图</h2>
        <fieldset id="basemap-choices" class="basemaps"><legend class="sr">底图</legend></fieldset>
      </section>
      <section aria-labelledby="legend-h">
        <h2 id="legend-h" data-i18n="legend">图例</h2>
        <div id="legend" tabindex="0" aria-label="图例"></div>
      </section>
      <section aria-labelledby="tree-h">
        <h2 id="tree-h" data-i18n="layers">图层</h2>
        <div id="tree"></div>
        <p class="hint" id="restricted-hint" data-i18n="restricted">部分图层（管网、应急资源、模拟结果）需部门令牌登录后可见。</p>
      </section>
      <section aria-labelledby="export-h">
        <h2 id="export-h" data-i18n="export">导出当前视图</h2>
        <label class="row"><span data-i18n="layer">图层</span> <select id="export-layer"></select></label>
        <div class="buttons"><button type="button" id="export-csv">CSV</button> <button type="button" id="export-gpkg">GeoPackage</button></div>
      </section>
      <p id="status" role="status" aria-live="polite"></p>
    </aside>
    <main id="map" tabindex="0" aria-label="地图"></main>
    <div id="compare" hidden><div id="map-b" aria-hidden="true"></div></div>
    <div id="divider" role="slider" tabindex="0" hidden aria-valuemin="0" aria-valuemax="100" aria-valuenow="50" aria-label="卷帘分隔线"><span aria-hidden="true">⟷</span></div>
    <script type="module" src="/static/map.js"></script>
    <script type="module" src="/static/map-analyses.js"></script>
    <script type="module" src="/static/map-tools.js"></script>
    <script type="module" src="/static/map-3d.js"></script>
    <script type="module" src="/static/basemap.js"></script>
    </body></html>
    """#

    /// The page's own static files, its scripts (ES modules: `map.js`, `map-analyses.js`,
    /// `map-tools.js`, `map-3d.js`, `basemap.js`) and `map.css`: package resources of the Server target
    /// (Sources/Server/WebMap/), read once from `Bundle.module`, which SwiftPM places beside the
    /// binary (`CityTwin_Server.resources`) and the binary also finds in its build folder when
    /// copied elsewhere. Name → media type and bytes.
    static let files: [String: (mediaType: String, body: [UInt8])] = {
        var files = [String: (mediaType: String, body: [UInt8])]()
        for (name, mediaType) in [("map.js", "text/javascript; charset=utf-8"), ("map-analyses.js", "text/javascript; charset=utf-8"),
                                  ("map-tools.js", "text/javascript; charset=utf-8"), ("map-3d.js", "text/javascript; charset=utf-8"),
                                  ("basemap.js", "text/javascript; charset=utf-8"),
                                  ("map.css", "text/css; charset=utf-8")] {
            guard let url = Bundle.module.url(forResource: name, withExtension: nil),
                  let data = FileManager.default.contents(atPath: url.path) else {
                fatalError("the web map's \(name) is missing from the Server target's resources (\(Bundle.module.bundlePath))")
            }
            files[name] = (mediaType, [UInt8](data))
        }
        return files
    }()

    /// One entity tag for the page's files (they change only with the server build).
    static let etag = EntityTag.of(bytes: files.keys.sorted().flatMap { files[$0]!.body })
}

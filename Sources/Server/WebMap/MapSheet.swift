/// The web map's stylesheet, served at `/static/map.css`. Text colours pass WCAG AA (4.5:1) on
/// their backgrounds; focus is always visible. Popups (in the main map) sit above the swipe's
/// right-hand map and its divider, so a feature's popup is readable on either side.
enum MapSheet {
    static let source = #"""
    [hidden]{display:none!important}
    :root{--ink:#1f1f1f;--muted:#4a4a4a;--line:#d6d3cc;--accent:#0b57d0;--accent-ink:#ffffff;--panel:#fbfaf7;--danger:#a8071a}
    html,body{margin:0;height:100%;font-family:"WenQuanYi Micro Hei","Noto Sans CJK SC","Microsoft YaHei","PingFang SC",system-ui,sans-serif;font-size:14px;color:var(--ink)}
    #map{position:absolute;left:320px;right:0;top:0;bottom:0}
    #map:focus-visible{outline:3px solid var(--accent);outline-offset:-3px}
    #panel{position:absolute;left:0;top:0;bottom:0;width:320px;overflow-x:hidden;overflow-y:auto;overflow-wrap:anywhere;box-sizing:border-box;padding:0 .8em .8em;background:var(--panel);border-right:1px solid var(--line)}
    .bar{display:flex;align-items:center;justify-content:space-between;position:sticky;top:0;background:var(--panel);padding:.6em 0 .4em;z-index:2;border-bottom:1px solid var(--line)}
    h1{font-size:1.15em;margin:0}h1 a{color:var(--ink);text-decoration:none;font-weight:700}
    h2{font-size:.95em;margin:1em 0 .35em;color:var(--muted);letter-spacing:.02em}
    a{color:var(--accent)}
    button,select,input{font:inherit;color:var(--ink)}
    button{background:var(--accent);color:var(--accent-ink);border:1px solid var(--accent);border-radius:4px;padding:.25em .7em;cursor:pointer}
    button[type=button]#lang{background:#fff;color:var(--accent)}
    #clear-results,#signout{background:#fff;color:var(--accent);margin-top:.3em}
    button:focus-visible,select:focus-visible,input:focus-visible,a:focus-visible,#legend:focus-visible,summary:focus-visible{outline:3px solid #f59e0b;outline-offset:1px}
    input,select{border:1px solid #8c8c8c;border-radius:4px;padding:.25em .4em;background:#fff}
    form{display:flex;gap:.3em}form input{flex:1 1 0;min-width:0}form button{flex:none}
    fieldset{border:0;padding:0;margin:0;display:grid;grid-template-columns:1fr 1fr;gap:.1em .4em}
    .row{display:flex;align-items:center;gap:.4em;margin:.35em 0}.row select{flex:1}
    .hint{color:var(--muted);font-size:.85em;margin:.3em 0}
    .sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
    .skip{position:absolute;left:-999px;top:0;background:#fff;padding:.4em;z-index:9}.skip:focus{left:.5em}
    .list{list-style:none;margin:.3em 0;padding:0}
    .list li{padding:.2em 0;border-bottom:1px solid #ece9e2}
    .list li button.link{background:none;border:0;color:var(--accent);padding:0;text-align:left;text-decoration:underline}
    #analysis-list li .meta{color:var(--muted);font-size:.9em}
    #analysis-list li .rank{display:inline-block;width:1.4em;height:1.4em;border-radius:50%;color:#fff;text-align:center;line-height:1.4em;font-size:.85em;margin-right:.3em}
    #who{margin:.2em 0 .4em;font-weight:600}
    #status{color:var(--danger);min-height:1.2em}
    #status.ok{color:#135200}
    #tree details{margin:.2em 0}#tree summary{cursor:pointer;font-weight:600;padding:.15em 0}
    #tree label{display:flex;gap:.35em;align-items:center;margin:.1em 0 .1em 1em}
    #tree .zoom{color:var(--muted);font-size:.8em}
    #legend{border:1px solid var(--line);border-radius:4px;padding:.4em .5em;background:#fff}
    #legend h3{font-size:.85em;margin:.45em 0 .15em;color:var(--ink)}#legend h3:first-child{margin-top:0}
    .legend-item{display:flex;align-items:center;gap:.45em;font-size:.85em;margin:.1em 0;color:var(--ink)}
    .swatch{flex:none;display:inline-block;width:22px;height:14px;box-sizing:border-box}
    .swatch.fill{border:1px solid rgba(0,0,0,.25)}
    .swatch.line{height:6px;border-radius:3px}
    .swatch.circle{width:12px;height:12px;border-radius:50%;border:1.5px solid #fff;box-shadow:0 0 0 1px rgba(0,0,0,.35);margin:0 5px}
    .swatch.result-route{height:5px}
    progress{width:100%}
    .popup h3{font-size:1em;margin:0 0 .3em}
    .popup table{border-collapse:collapse}.popup th,.popup td{border:1px solid #e3e0d8;padding:2px 5px;text-align:left;font-size:12px;vertical-align:top}
    .popup th{color:var(--muted);font-weight:600;white-space:nowrap}
    .maplibregl-ctrl button{background-color:#fff;border:0;border-radius:0}
    .maplibregl-popup-close-button{background:transparent;color:var(--ink);border:0;border-radius:0;font-size:18px;line-height:1;padding:2px 6px}
    .maplibregl-popup-close-button:hover{background:#ece9e2}
    #corridor-diagram{width:100%;height:auto;border:1px solid var(--line);background:#fff}
    #corridor-list .los{display:inline-block;min-width:1.5em;text-align:center;border-radius:3px;color:#1f1f1f;font-weight:700;margin-right:.4em}
    .corridor-run{margin-top:.4em}
    .row.time{gap:.5em}.row.time input{flex:1}
    #time-now{display:block;font-variant-numeric:tabular-nums;font-weight:600;margin:.1em 0 .3em}
    #compare{position:absolute;left:320px;right:0;top:0;bottom:0;clip-path:inset(0 0 0 50%)}
    #map .maplibregl-popup{z-index:6}
    #map-b{position:absolute;inset:0}
    #divider{position:absolute;top:0;bottom:0;width:4px;margin-left:-2px;background:#1f1f1f;cursor:ew-resize;z-index:5;touch-action:none}
    #divider span{position:absolute;top:50%;left:-14px;width:32px;height:32px;margin-top:-16px;border-radius:50%;background:#1f1f1f;color:#fff;text-align:center;line-height:32px;font-size:16px}
    #divider:focus-visible{outline:3px solid #f59e0b}
    .side{position:absolute;top:8px;z-index:3;background:rgba(255,255,255,.95);color:#1f1f1f;border:1px solid #8c8c8c;border-radius:4px;padding:2px 6px;font-size:12px;pointer-events:none;max-width:30%}
    .side.left{left:8px}#side-b{margin-left:10px}
    @media (max-width:720px){#panel{width:100%;bottom:50%;border-right:0;border-bottom:1px solid var(--line)}#map,#compare{left:0;top:50%}}
    """#
}

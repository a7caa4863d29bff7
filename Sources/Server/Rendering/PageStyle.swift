import Foundation
import Hummingbird

/// The one look of the server's HTML pages: `/static/citytwin.css`, compiled in (no CDN, no
/// file to install), loaded by every page `HTMLPage` builds.
///
/// Colours come from `palette`, whose text/background pairs (`contrastPairs`) pass WCAG 2.x AA
/// for normal text (contrast ≥ 4.5:1; tests check them), and focus is always visible (a 3 px
/// outline, ≥ 3:1 against its background) so every control is usable from the keyboard.
enum PageStyle {
    /// The stylesheet's name under `/static/`.
    static let fileName = "citytwin.css"
    static let mediaType = "text/css; charset=utf-8"
    static var href: String { "/static/" + fileName }

    /// Name → `#rrggbb`.
    static let palette: [String: String] = [
        "ink": "#1b2530",          // body text
        "muted": "#4b5866",        // secondary text
        "paper": "#ffffff",        // page background
        "panel": "#f3f6f9",        // table heads, cards
        "line": "#c9d3dd",         // borders (not text)
        "link": "#0a58a8",         // links
        "brand": "#0f2f4f",        // header background
        "brandInk": "#ffffff",     // header text
        "accent": "#ffc857",       // focus ring and current item on the header
        "focus": "#a54d00",        // focus ring on light backgrounds
        "warnBack": "#fff3e0",     // token-needed notice
        "warnInk": "#7a3300",
        "okInk": "#1d6b35",        // successful job
        "badInk": "#a61b1b",       // failed job
    ]

    /// (text, background) colour names that must pass AA for normal text.
    static let contrastPairs: [(String, String)] = [
        ("ink", "paper"), ("muted", "paper"), ("link", "paper"), ("ink", "panel"), ("link", "panel"), ("muted", "panel"),
        ("brandInk", "brand"), ("accent", "brand"), ("warnInk", "warnBack"), ("link", "warnBack"),
        ("okInk", "paper"), ("badInk", "paper"), ("okInk", "panel"), ("badInk", "panel"),
    ]

    /// (focus ring, background) pairs that must reach 3:1 (WCAG 2.2 §1.4.11 non-text contrast).
    static let focusPairs: [(String, String)] = [("focus", "paper"), ("focus", "panel"), ("accent", "brand")]

    /// WCAG relative luminance of `#rrggbb`.
    static func luminance(_ hex: String) -> Double {
        let digits = hex.dropFirst()
        guard digits.count == 6, let value = Int(digits, radix: 16) else { return 0 }
        func channel(_ shift: Int) -> Double {
            let c = Double((value >> shift) & 0xFF) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
    }

    /// WCAG contrast ratio of two `#rrggbb` colours (1…21).
    static func contrast(_ a: String, _ b: String) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    /// The stylesheet.
    static let css: String = {
        let vars = palette.keys.sorted().map { "--\($0):\(palette[$0] ?? "#000")" }.joined(separator: ";")
        return ":root{\(vars)}\n" + rules
    }()

    private static let rules = """
        *{box-sizing:border-box}
        html{font-size:100%}
        body{margin:0;color:var(--ink);background:var(--paper);line-height:1.6;
          font-family:"Noto Sans CJK SC","Source Han Sans SC","WenQuanYi Micro Hei","Microsoft YaHei","PingFang SC",system-ui,sans-serif}
        a{color:var(--link);text-underline-offset:2px}
        a:hover{text-decoration-thickness:2px}
        :focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:2px}
        .skip{position:absolute;left:.5rem;top:-3rem;background:var(--paper);color:var(--link);padding:.5rem 1rem;z-index:10}
        .skip:focus{top:.5rem}
        header.site{background:var(--brand);color:var(--brandInk);padding:.5rem 1.5rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 2rem}
        header.site a{color:var(--brandInk)}
        header.site :focus-visible{outline-color:var(--accent)}
        .brand{font-weight:700;font-size:1.15rem;text-decoration:none}
        nav.main ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1.25rem}
        nav.main a{text-decoration:none;padding:.25rem 0;border-bottom:3px solid transparent}
        nav.main a:hover{border-bottom-color:var(--brandInk)}
        nav.main a[aria-current]{border-bottom-color:var(--accent);color:var(--accent)}
        .lang{margin-left:auto;display:flex;gap:.75rem}
        .lang a[aria-current]{font-weight:700;text-decoration:none;color:var(--accent)}
        main{max-width:80rem;margin:0 auto;padding:1.5rem}
        main:focus{outline:none}
        h1{font-size:1.6rem;margin:.5rem 0 1rem;line-height:1.3}
        h2{font-size:1.2rem;margin:1.75rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
        .lead{color:var(--muted);max-width:60rem}
        table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.95rem}
        .scroll{overflow-x:auto;max-width:100%}
        th,td{border:1px solid var(--line);padding:.35rem .6rem;text-align:left;vertical-align:top}
        th{background:var(--panel);font-weight:600}
        caption{text-align:left;color:var(--muted);padding:.25rem 0}
        code,pre{font-family:ui-monospace,"DejaVu Sans Mono",monospace;background:var(--panel);border-radius:3px}
        code{padding:0 .2rem}
        pre{padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
        ul.links{padding-left:1.2rem}
        .muted{color:var(--muted)}
        .cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:1rem;margin:1rem 0;padding:0;list-style:none}
        .cards li{border:1px solid var(--line);border-radius:6px;background:var(--panel);padding:1rem}
        .cards a{font-weight:600;font-size:1.05rem}
        .cards p{margin:.35rem 0 0;color:var(--muted)}
        .actions{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin:.75rem 0;padding:0;list-style:none}
        .actions a{display:inline-block;border:1px solid var(--link);border-radius:4px;padding:.3rem .8rem;text-decoration:none}
        .actions a:hover{background:var(--panel)}
        .notice{background:var(--warnBack);color:var(--warnInk);border-left:4px solid var(--warnInk);padding:.75rem 1rem;margin:1rem 0}
        .notice a{color:var(--link)}
        .badge{display:inline-block;background:var(--warnBack);color:var(--warnInk);border:1px solid var(--warnInk);border-radius:3px;padding:0 .4rem;font-size:.9rem}
        .status-successful{color:var(--okInk);font-weight:600}
        .status-failed,.status-dismissed{color:var(--badInk);font-weight:600}
        progress{width:8rem;vertical-align:middle}
        footer.site{max-width:80rem;margin:2rem auto 0;padding:1rem 1.5rem 2rem;border-top:1px solid var(--line);color:var(--muted);font-size:.9rem}
        footer.site a{color:var(--link)}
        @media (max-width:40rem){header.site{padding:.5rem}.lang{margin-left:0}main{padding:1rem}}
        @media print{header.site,footer.site,.skip,.lang{display:none}}

        """
}

extension PageStyle {
    /// `/static/citytwin.css`: public (the same for every caller), kept an hour.
    static var representation: Representation {
        var headers = HTTPFields()
        headers[.cacheControl] = "public, max-age=3600"
        return Representation(mediaType: mediaType, body: Array(css.utf8), headers: headers)
    }
}

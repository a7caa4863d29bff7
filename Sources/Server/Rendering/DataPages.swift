import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import TwinStore

/// The HTML pages of the data and processing resources (collections, a collection, items, a
/// feature, processes, jobs): the same `HTMLPage` look, the caller's language, downloads and
/// next steps as links. The JSON documents stay as the routes build them.
enum DataPages {
    /// A layer's title in the page's language.
    static func title(_ d: LayerDefinition, _ language: PageLanguage) -> String {
        language == .zh || d.title.en.isEmpty ? d.title.zh : d.title.en
    }

    /// Who may read a layer, in words of the page's language.
    static func sharing(_ d: LayerDefinition, _ language: PageLanguage) -> String {
        switch d.sharing.type {
        case .open: language.text("无条件开放", "open to all")
        case .shared: language.text("无条件共享（各部门）", "shared with departments")
        case .conditional: language.text("有条件共享（各部门）", "shared with departments on conditions")
        case .notShared: language.text("不予共享", "not shared")
        }
    }

    /// The whole-selection downloads of a collection (`f=csv`, `f=gpkg`), keeping the
    /// selection's filters from `query` when given (paging does not apply to downloads).
    static func downloadActions(_ id: String, query: QueryParameters? = nil, _ page: HTMLPage) -> [(String, String)] {
        let base = "/collections/\(id)/items"
        func href(_ f: String) -> String {
            guard let query else { return base + "?f=" + f }
            return base + query.encoded(replacing: ["f": f, "cursor": nil, "limit": nil, "lang": nil])
        }
        return [(href("csv"), page.tr("下载 CSV", "Download CSV")), (href("gpkg"), page.tr("下载 GeoPackage", "Download GeoPackage"))]
    }

    /// `/collections` as a page: the layers the caller reads, then those that need a token.
    static func collectionsPage(visible: [LayerInfo], needToken: [LayerInfo], links: [JSONValue]) -> String {
        var page = HTMLPage(title: "图层", english: "Collections")
        let language = page.language
        page.paragraph(page.tr("城市一张图的图层。点击图层名查看说明、要素与下载。", "The layers of the city's one map. Open a layer for its description, features and downloads."),
                       class: "lead")
        let columns = [page.tr("图层", "Collection"), "id", page.tr("类别", "Category"), page.tr("责任部门", "Owner"),
                       page.tr("共享", "Sharing"), page.tr("要素数", "Features"), page.tr("下载", "Download")]
        let rows = visible.map { info -> [String] in
            let d = info.definition
            let downloads = downloadActions(d.id, page).map { HTMLPage.link($0.0, $0.1) }.joined(separator: " · ")
            return [HTMLPage.link("/collections/\(d.id)?f=html", Self.title(d, language)), "<code>\(HTMLPage.escape(d.id))</code>",
                    HTMLPage.escape(d.category.rawValue), HTMLPage.escape(d.owner), HTMLPage.escape(Self.sharing(d, language)),
                    String(info.count), downloads]
        }
        page.table(columns, rows, caption: page.tr("你可以读取的图层（\(visible.count) 个）", "Layers you may read (\(visible.count))"))
        if !needToken.isEmpty {
            page.heading(page.tr("需要令牌的图层", "Layers that need a token"))
            page.notice(page.tr("以下图层向各部门共享，匿名访问看不到其内容：需要令牌。请在", "These layers are shared with departments and hidden from anonymous callers: a token is needed. Sign in on the "),
                        html: HTMLPage.link("/map", page.tr("一张图", "map")) + HTMLPage.escape(page.tr("中用部门令牌登录，或在请求中携带 Authorization: Bearer <令牌>。",
                                                                                                     ", or send Authorization: Bearer <token>.")))
            let restricted = needToken.map { info -> [String] in
                let d = info.definition
                return [HTMLPage.link("/collections/\(d.id)?f=html", Self.title(d, language)), "<code>\(HTMLPage.escape(d.id))</code>",
                        HTMLPage.escape(d.category.rawValue), HTMLPage.escape(d.owner), HTMLPage.escape(Self.sharing(d, language)),
                        "<span class=\"badge\">\(HTMLPage.escape(page.tr("需要令牌", "token needed")))</span>"]
            }
            page.table([page.tr("图层", "Collection"), "id", page.tr("类别", "Category"), page.tr("责任部门", "Owner"),
                        page.tr("共享", "Sharing"), page.tr("访问", "Access")], restricted)
        }
        page.links(links)
        return page.text
    }

    /// `/collections/{id}` as a page: what the layer is, its features and downloads, its links.
    static func collectionPage(_ info: LayerInfo, document: JSONValue) -> String {
        let d = info.definition
        var page = HTMLPage(title: d.title.zh, english: d.title.en.isEmpty ? d.title.zh : d.title.en)
        let language = page.language
        var facts: [[String]] = [
            ["id", "<code>\(HTMLPage.escape(d.id))</code>"],
            [page.tr("类别", "Category"), HTMLPage.escape(d.category.rawValue)],
            [page.tr("责任部门", "Owner"), HTMLPage.escape(d.owner)],
            [page.tr("更新频率", "Updated"), HTMLPage.escape(d.updateFrequency)],
            [page.tr("共享", "Sharing"), HTMLPage.escape(Self.sharing(d, language) + " · " + d.sharing.requirements)],
            [page.tr("要素数", "Features"), String(info.count)],
        ]
        if let g = d.geometryType { facts.append([page.tr("几何类型", "Geometry"), HTMLPage.escape(g.rawValue)]) }
        if let level = d.cimLevel { facts.append([page.tr("CIM 等级", "CIM level"), HTMLPage.escape("\(level.rawValue) \(level.name)")]) }
        if let e = info.extent {
            facts.append([page.tr("范围 (CRS84)", "Extent (CRS84)"),
                          HTMLPage.escape([e.minX, e.minY, e.maxX, e.maxY].map { String(format: "%.5f", $0) }.joined(separator: ", "))])
        }
        page.table([page.tr("项", "Item"), page.tr("内容", "Value")], facts)
        page.actions([("/collections/\(d.id)/items?f=html", page.tr("浏览要素", "Browse features"))] + downloadActions(d.id, page)
                     + [("/collections/\(d.id)/queryables?f=html", page.tr("可查询属性", "Queryables")), ("/map", page.tr("在一张图中查看", "View on the map"))],
                     label: page.tr("数据与下载", "Data and downloads"))
        page.links(document["links"]?.arrayValue ?? [])
        return page.text
    }

    /// `/collections/{id}/items` as a page: the page's features in a table, downloads of the
    /// whole selection, paging links.
    static func itemsPage(_ info: LayerInfo, features: [Feature], numberMatched: Int?, crs: String, query: QueryParameters,
                   links: [JSONValue]) -> String {
        let d = info.definition
        var page = HTMLPage(title: d.title.zh, english: d.title.en.isEmpty ? d.title.zh : d.title.en)
        let shown = page.tr("本页 \(features.count) 个要素", "\(features.count) features in this page")
            + (numberMatched.map { page.tr("，共匹配 \($0) 个", " of \($0) matched") } ?? "")
            + page.tr("；坐标系 \(crs)。", "; coordinates in \(crs).")
        page.paragraph(shown, class: "lead")
        page.actions(downloadActions(d.id, query: query, page) + [("/collections/\(d.id)?f=html", page.tr("图层说明", "About this layer"))],
                     label: page.tr("下载整个选择", "Download the whole selection"))
        let columns = Set(features.flatMap { $0.properties.keys }).sorted()
        let rows = features.map { f -> [String] in
            let id = f.id?.description ?? ""
            return [HTMLPage.link("/collections/\(d.id)/items/\(QueryParameters.escape(id))?f=html", id)]
                + columns.map { c in f.properties[c].map(HTMLPage.render) ?? "" }
                + [HTMLPage.escape(f.geometry?.type.rawValue ?? "—")]
        }
        page.table(["id"] + columns + [page.tr("几何", "geometry")], rows)
        page.links(links)
        return page.text
    }

    /// `/collections/{id}/items/{fid}` as a page: its properties, its geometry, its layer's downloads.
    static func itemPage(_ layer: LayerDefinition, id fid: String, feature: Feature, geometry: String, links: [JSONValue]) -> String {
        var page = HTMLPage(title: "\(layer.title.zh) · \(fid)", english: "\(layer.title.en.isEmpty ? layer.title.zh : layer.title.en) · \(fid)")
        let rows = feature.properties.keys.sorted().map { key in
            ["<code>\(HTMLPage.escape(key))</code>", HTMLPage.render(feature.properties[key] ?? .null)]
        }
        page.table([page.tr("属性", "Property"), page.tr("值", "Value")], rows)
        page.actions([("/collections/\(layer.id)/items?f=html", page.tr("图层全部要素", "All features of the layer"))]
                     + downloadActions(layer.id, page).map { ($0.0, page.tr("图层", "Layer ") + $0.1) },
                     label: page.tr("数据与下载", "Data and downloads"))
        page.heading(page.tr("几何", "Geometry"))
        page.raw("<pre>\(HTMLPage.escape(geometry))</pre>\n")
        page.links(links)
        return page.text
    }

    /// `/processes` as a page: a table of the processes, each linked to its description.
    static func processesPage(_ processes: ProcessRegistry, links: [JSONValue]) -> String {
        var page = HTMLPage(title: "处理服务", english: "Processes")
        page.paragraph(page.tr("服务器运行的分析与模拟（OGC API Processes）。同步执行或以任务方式异步执行；执行需要 POST 请求。",
                               "The analyses and simulations the server runs (OGC API Processes), synchronously or as jobs; executing takes a POST request."),
                       class: "lead")
        let rows = processes.processes.map { p -> [String] in
            [HTMLPage.link("/processes/\(p.id)?f=html", p.id), HTMLPage.escape(p.title), HTMLPage.escape(p.description),
             HTMLPage.escape(p.jobControlOptions.map(\.rawValue).joined(separator: ", "))]
        }
        page.table(["id", page.tr("名称", "Title"), page.tr("说明", "Description"), page.tr("执行方式", "Execution")], rows)
        page.links(links)
        return page.text
    }

    /// `/jobs` as a page: the caller's jobs with status and progress.
    static func jobsPage(_ jobs: [JobRecord], links: [JSONValue]) -> String {
        var page = HTMLPage(title: "任务", english: "Jobs")
        page.paragraph(page.tr("你的分析任务，最新的在前（匿名调用方看到匿名任务）。", "Your jobs, newest first (anonymous callers see the anonymous jobs)."),
                       class: "lead")
        if jobs.isEmpty {
            page.paragraph(page.tr("还没有任务。", "No jobs yet."))
        } else {
            page.table(["id", page.tr("处理", "Process"), page.tr("状态", "Status"), page.tr("进度", "Progress"), page.tr("更新于", "Updated")],
                       jobs.map { jobRow($0, page) })
        }
        page.links(links)
        return page.text
    }

    /// `/jobs/{id}` as a page: status, progress, message, result link.
    static func jobPage(_ job: JobRecord, document: JSONValue) -> String {
        var page = HTMLPage(title: "任务 \(job.id)", english: "Job \(job.id)")
        page.table(["id", page.tr("处理", "Process"), page.tr("状态", "Status"), page.tr("进度", "Progress"), page.tr("更新于", "Updated")],
                   [jobRow(job, page)])
        if let message = job.message { page.paragraph(message) }
        if job.status == .successful {
            page.actions([("/jobs/\(job.id)/results", page.tr("结果 (JSON)", "Results (JSON)"))], label: page.tr("结果", "Results"))
        }
        page.links(document["links"]?.arrayValue ?? [])
        return page.text
    }

    private static func jobRow(_ job: JobRecord, _ page: HTMLPage) -> [String] {
        let percent = Int(job.progress.rounded(.down))
        return [HTMLPage.link("/jobs/\(job.id)?f=html", job.id), HTMLPage.link("/processes/\(job.process)?f=html", job.process),
                "<span class=\"status-\(HTMLPage.escape(job.status.rawValue))\">\(HTMLPage.escape(job.status.rawValue))</span>",
                "<progress max=\"100\" value=\"\(percent)\" aria-label=\"\(HTMLPage.escape(page.tr("进度", "Progress")))\">\(percent) %</progress> \(percent) %",
                HTMLPage.escape(job.updated.formatted(.iso8601))]
    }
}

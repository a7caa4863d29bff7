import Foundation
import Hummingbird
import Logging

/// Turns every error below it (route handlers, the caller middleware, the router's "not
/// found") into an `application/problem+json` response through `Problem(mapping:)`.
/// Internal errors are logged with their real text; the body never carries it.
struct ProblemMiddleware: RouterMiddleware {
    let compressionThreshold: Int

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = Problem(mapping: error)
            if problem.kind.status.code >= 500 {
                context.logger.error("request failed", metadata: [
                    "path": .string(request.uri.path), "error": .string(String(describing: error)),
                ])
            }
            return Self.response(problem, for: request, compressionThreshold: compressionThreshold)
        }
    }

    static func response(_ problem: Problem, for request: Request, compressionThreshold: Int) -> Response {
        var representation = Representation.json(problem.document(instance: request.uri.path), mediaType: MediaTypeName.problem,
                                                 status: problem.kind.status)
        if let query = try? QueryParameters(request.uri.query), (try? OutputFormat.negotiate(query, request)) == .html {
            // A browser (or f=html) gets the problem as a page, in its language.
            let page = try? PageRequest(request, query, baseURL: "")
            representation = Representation.html(PageRequest.$current.withValue(page) { problemPage(problem) }, status: problem.kind.status)
        }
        if let challenge = challenge(problem) { representation.headers[.wwwAuthenticate] = challenge }
        if let seconds = problem.retryAfter { representation.headers[.retryAfter] = String(seconds) }
        return representation.response(for: request, compressionThreshold: compressionThreshold)
    }

    /// A problem as an HTML page: what went wrong in words and, for a 401, that a token is
    /// needed and how to get and send one.
    static func problemPage(_ problem: Problem) -> String {
        let status = problem.kind.status.code
        let titles: [Int: (String, String)] = [
            401: ("需要令牌", "Token needed"), 403: ("无权访问", "Not allowed"), 404: ("未找到", "Not found"),
            400: ("请求有误", "Bad request"), 503: ("暂时不可用", "Temporarily unavailable"),
        ]
        let (zh, en) = titles[status] ?? (problem.kind.title, problem.kind.title)
        var page = HTMLPage(title: zh, english: en)
        if status == 401 {
            page.notice(page.tr("此内容只向持有部门令牌的调用方开放。请在“一张图”中用令牌登录，或在请求头中携带 Authorization: Bearer <令牌>；令牌由平台管理员签发（citytwin token create）。",
                                "This is open only to callers with a department token. Sign in with a token on the map, or send Authorization: Bearer <token>; the platform administrator issues tokens (citytwin token create)."))
        }
        page.table([page.tr("项", "Item"), page.tr("内容", "Value")], [
            [page.tr("状态", "Status"), String(status)],
            [page.tr("类型", "Type"), HTMLPage.link(problem.kind.typeURI, problem.kind.slug)],
            [page.tr("详情", "Detail"), HTMLPage.escape(problem.detail)],
        ])
        page.actions([("/?f=html", page.tr("首页", "Home")), ("/collections?f=html", page.tr("全部图层", "All collections")),
                      ("/map", page.tr("一张图", "Map"))], label: page.tr("接下来", "Next"))
        return page.text
    }

    /// The RFC 6750 §3 challenge of a 401: `error="invalid_token"` for a rejected token, a bare
    /// challenge when credentials are missing.
    static func challenge(_ problem: Problem) -> String? {
        guard problem.kind.status == .unauthorized else { return nil }
        guard problem.kind == .invalidToken else { return "Bearer realm=\"citytwin\"" }
        let description = problem.detail.replacingOccurrences(of: "\\", with: "").replacingOccurrences(of: "\"", with: "'")
            .unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 }.map(String.init).joined()
        return "Bearer realm=\"citytwin\", error=\"invalid_token\", error_description=\"\(description)\""
    }
}

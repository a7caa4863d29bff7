import Foundation
import GeoCore
import Testing
@testable import TwinStore

@Suite("Filters compile to SQL with bound parameters")
struct FilterCompilerTests {
    @Test(arguments: [SQLDialectChoice.spatiaLite, .postGIS])
    func literalsNeverAppearInTheSQLText(dialect: SQLDialectChoice) throws {
        let evil = "x'); DROP TABLE catalog; --"
        let filter = FilterExpression.or([
            .comparison(.equal, "name", .literal(.string(evil))),
            .like("name", pattern: evil, caseInsensitive: true),
            .in("kind", [.literal("紧急"), .literal("固定")]),
            .comparison(.greater, .arithmetic(.divide, "area_m2", .literal(2)), "capacity"),
        ])
        var b = SQLBuilder(dialect: dialect.dialect)
        let sql = try FilterCompiler(table: FeatureTable(layer: Fixtures.shelters)).compile(filter, into: &b)
        #expect(!sql.contains("DROP"))
        #expect(!sql.contains("紧急"))
        #expect(!sql.contains("name"))
        #expect(b.bindings.contains(.text(evil)))
    }

    @Test func caseSensitiveLikeBecomesAnEscapedGlob() {
        let d = SpatiaLiteDialect()
        #expect(d.likePattern("Wu%han_*", caseInsensitive: false) == "Wu*han?[*]")
        #expect(d.likePattern("100\\%", caseInsensitive: false) == "100%")
    }
}

enum SQLDialectChoice: String, CaseIterable, Sendable, CustomStringConvertible {
    case spatiaLite, postGIS
    var description: String { rawValue }
    var dialect: any SQLDialect {
        switch self {
        case .spatiaLite: SpatiaLiteDialect()
        case .postGIS: PostGISDialect()
        }
    }
}

import GeoCore

/// One road centreline segment between two adjacent grid intersections.
struct RoadSegment {
    let id: String
    let name: String
    let roadClass: String
    let lanes: Int
    let speed: Int
    let oneway: Bool
    /// Grid (col, row) of the first and last vertex, in digitised (and one-way) direction.
    let from: (col: Int, row: Int)
    let to: (col: Int, row: Int)
    var horizontal: Bool { from.row == to.row }
}

enum BlockUse: String {
    case residential = "居住用地"
    case commercial = "商业服务业用地"
    case publicService = "公共管理与公共服务用地"
    case industrial = "工业用地"
    case green = "绿地与广场用地"

    var imperviousness: Double {
        switch self {
        case .residential: 0.65
        case .commercial: 0.85
        case .publicService: 0.6
        case .industrial: 0.75
        case .green: 0.2
        }
    }
}

/// A street block between grid columns col…col+1 and rows row…row+1.
struct Block {
    let col: Int
    let row: Int
    var use: BlockUse
    var community: Int
    /// A facility role reserved for this block ("hospital-0", "plaza", …), if any.
    var role: String?
    /// The year the block was built (set with its buildings).
    var builtYear = 0
    /// A residential block's 院落: its name and address code.
    var yard: (name: String, code: String)?
}

struct Community {
    let code: String
    let name: String
    let cols: Range<Int>
    let rows: Range<Int>
}

extension DistrictDraft {
    static let countyCode = "420117000000"
    static let streetCode = "420117001000"

    static let arterialNS = ["举水大道", "齐安大道", "问津大道", "邾城大道", "涨渡湖路"]
    static let localNS = ["仓埠街", "李集街", "凤凰街", "三店街", "双柳街", "徐古街", "潘塘街", "汪集街",
                          "辛冲街", "柴泊街", "紫薇街", "将军街", "道观街", "阳逻街", "衡店街", "大埠街"]
    static let arterialEW = ["沿江大道", "邾城大街", "新洲大街", "问津路"]
    static let communityNames = ["问津社区", "齐安社区", "邾城社区", "凤凰社区", "李集社区", "仓埠社区",
                                 "阳逻路社区", "道观河社区", "柴泊湖社区", "紫薇社区", "将军山社区", "三店社区",
                                 "双柳社区", "徐古社区", "潘塘社区", "汪集社区"]

    var blockColumns: Int { columns - 1 }
    var blockRows: Int { rows - 1 }

    func isArterialColumn(_ c: Int) -> Bool { c % 4 == 0 }
    func isArterialRow(_ r: Int) -> Bool { r % 5 == 0 }
    /// The 主干路 pair: 问津大道 (column 8) and 新洲大街 (row 10), when the grid reaches them.
    func isMainColumn(_ c: Int) -> Bool { c == 8 }
    func isMainRow(_ r: Int) -> Bool { r == 10 }

    func columnName(_ c: Int) -> String {
        if isArterialColumn(c) { return c / 4 < Self.arterialNS.count ? Self.arterialNS[c / 4] : "纵\(chineseNumeral(c))路" }
        let i = c - c / 4 - 1
        return i < Self.localNS.count ? Self.localNS[i] : "纵\(chineseNumeral(c))路"
    }

    func rowName(_ r: Int) -> String {
        if isArterialRow(r) { return r / 5 < Self.arterialEW.count ? Self.arterialEW[r / 5] : "横\(chineseNumeral(r))路" }
        return "邾城\(chineseNumeral(r - r / 5))路"
    }

    func intersectionID(_ c: Int, _ r: Int) -> String { "IX-" + padded(r * columns + c + 1, 4) }

    func blockIndex(fx: Double, fy: Double) -> Int {
        let c = min(blockColumns - 1, max(0, Int(fx * Double(blockColumns))))
        let r = min(blockRows - 1, max(0, Int(fy * Double(blockRows))))
        return r * blockColumns + c
    }

    func buildStreetGrid() {
        // Intersections.
        for r in 0..<rows {
            for c in 0..<columns {
                let legs = (c > 0 ? 1 : 0) + (c < columns - 1 ? 1 : 0) + (r > 0 ? 1 : 0) + (r < rows - 1 ? 1 : 0)
                let art = (isArterialColumn(c) ? 1 : 0) + (isArterialRow(r) ? 1 : 0)
                let control = art == 2 || (isMainColumn(c) && r % 5 == 2) ? "信号控制" : (art == 1 ? "停车让行" : "无控制")
                add("intersections", Feature(id: .string(intersectionID(c, r)), geometry: point(x(col: c), y(row: r)),
                                             properties: ["name": .string("\(columnName(c))与\(rowName(r))交叉口"),
                                                          "control": .string(control), "legs": .integer(Int64(legs))]))
            }
        }
        // Road segments: horizontal ones first, then vertical ones.
        func classify(arterial: Bool, main: Bool) -> (String, Int, Int) {
            main ? ("主干路", 6, 60) : (arterial ? ("次干路", 4, 50) : ("支路", 2, 30))
        }
        for r in 0..<rows {
            for c in 0..<(columns - 1) {
                let (cls, lanes, speed) = classify(arterial: isArterialRow(r), main: isMainRow(r))
                let westbound = !isArterialRow(r) && r % 5 == 3
                let oneway = !isArterialRow(r) && (r % 5 == 2 || r % 5 == 3)
                let a = (col: c, row: r), b = (col: c + 1, row: r)
                roads.append(RoadSegment(id: "RD-" + padded(roads.count + 1, 4), name: rowName(r), roadClass: cls,
                                         lanes: oneway ? 1 : lanes, speed: speed, oneway: oneway,
                                         from: westbound ? b : a, to: westbound ? a : b))
            }
        }
        for c in 0..<columns {
            for r in 0..<(rows - 1) {
                let (cls, lanes, speed) = classify(arterial: isArterialColumn(c), main: isMainColumn(c))
                roads.append(RoadSegment(id: "RD-" + padded(roads.count + 1, 4), name: columnName(c), roadClass: cls,
                                         lanes: lanes, speed: speed, oneway: false,
                                         from: (col: c, row: r), to: (col: c, row: r + 1)))
            }
        }
        for s in roads {
            let pts = [(x(col: s.from.col), y(row: s.from.row)), (x(col: s.to.col), y(row: s.to.row))]
            add("roads", Feature(id: .string(s.id), geometry: line(pts), properties: [
                "name": .string(s.name), "class": .string(s.roadClass), "lanes": .integer(Int64(s.lanes)),
                "speed_kmh": .integer(Int64(s.speed)), "oneway": .bool(s.oneway),
                "from_intersection": .string(intersectionID(s.from.col, s.from.row)),
                "to_intersection": .string(intersectionID(s.to.col, s.to.row)),
                "length_m": .number(round2(length(pts))),
            ]))
        }
        buildBlocksAndCommunities()
        buildAdminDivisions()
    }

    private func buildBlocksAndCommunities() {
        let groupCols = 4, groupRows = 6
        let gc = (blockColumns + groupCols - 1) / groupCols
        for r in 0..<blockRows {
            for c in 0..<blockColumns {
                let nearMain = isMainColumn(c) || isMainColumn(c + 1) || isMainRow(r) || isMainRow(r + 1)
                let fx = Double(c) / Double(blockColumns), fy = Double(r) / Double(blockRows)
                var use: BlockUse
                let u = rng.unit()
                if fx > 0.75 && fy < 0.3 && u < 0.7 { use = .industrial }
                else if nearMain && u < 0.5 { use = .commercial }
                else if u < 0.86 { use = .residential }
                else if u < 0.93 { use = .publicService }
                else { use = .green }
                blocks.append(Block(col: c, row: r, use: use, community: (r / groupRows) * gc + c / groupCols, role: nil))
            }
        }
        let roles: [(String, Double, Double, BlockUse)] = [
            ("plaza", 0.5, 0.55, .green), ("stadium", 0.3, 0.35, .green), ("park-0", 0.8, 0.75, .green),
            ("park-1", 0.15, 0.8, .green),
            ("hospital-0", 0.45, 0.45, .publicService), ("hospital-1", 0.7, 0.6, .publicService),
            ("hospital-2", 0.2, 0.25, .publicService),
            ("fire-0", 0.55, 0.3, .publicService), ("fire-1", 0.25, 0.7, .publicService),
            ("fire-2", 0.85, 0.45, .publicService),
            ("school-0", 0.4, 0.8, .publicService), ("school-1", 0.65, 0.2, .publicService),
            ("government", 0.6, 0.5, .publicService),
            ("warehouse-0", 0.9, 0.1, .industrial), ("warehouse-1", 0.05, 0.5, .industrial),
        ]
        for (role, fx, fy, use) in roles {
            var i = blockIndex(fx: fx, fy: fy)
            while blocks[i].role != nil { i = (i + 1) % blocks.count }
            blocks[i].role = role
            blocks[i].use = use
        }
        let gr = (blockRows + groupRows - 1) / groupRows
        for j in 0..<gr {
            for i in 0..<gc {
                let k = j * gc + i
                communities.append(Community(
                    code: "420117001" + padded(k + 1, 3),
                    name: k < Self.communityNames.count ? Self.communityNames[k] : "邾城第\(chineseNumeral(k + 1))社区",
                    cols: (i * groupCols)..<min(blockColumns, (i + 1) * groupCols),
                    rows: (j * groupRows)..<min(blockRows, (j + 1) * groupRows)))
            }
        }
    }

    private func buildAdminDivisions() {
        func multi(_ g: Geometry) -> Geometry {
            if case .polygon(let p) = g { return .multiPolygon(MultiPolygon([p])) }
            return g
        }
        let gx1 = x(col: columns - 1), gy1 = y(row: rows - 1)
        add("admin_divisions", Feature(id: .string(Self.countyCode), geometry: multi(rectangle(0, 0, extent, extent)), properties: [
            "code": .string(Self.countyCode), "name": "新洲区", "level": "区县", "parent_code": .null,
            "area_km2": .number(round3(extent * extent / 1e6)),
        ]))
        let (sx0, sy0, sx1, sy1) = (gx0Margin, gy0Margin, gx1 + 200, gy1 + 200)
        add("admin_divisions", Feature(id: .string(Self.streetCode), geometry: multi(rectangle(sx0, sy0, sx1, sy1)), properties: [
            "code": .string(Self.streetCode), "name": "邾城街道", "level": "乡镇街道", "parent_code": .string(Self.countyCode),
            "area_km2": .number(round3((sx1 - sx0) * (sy1 - sy0) / 1e6)),
        ]))
        for cm in communities {
            let x0 = x(col: cm.cols.lowerBound), x1 = x(col: cm.cols.upperBound)
            let y0 = y(row: cm.rows.lowerBound), y1 = y(row: cm.rows.upperBound)
            add("admin_divisions", Feature(id: .string(cm.code), geometry: multi(rectangle(x0, y0, x1, y1)), properties: [
                "code": .string(cm.code), "name": .string(cm.name), "level": "社区/村",
                "parent_code": .string(Self.streetCode), "area_km2": .number(round3((x1 - x0) * (y1 - y0) / 1e6)),
            ]))
        }
    }

    private var gx0Margin: Double { gridX0 - 200 }
    private var gy0Margin: Double { gridY0 - 200 }
}

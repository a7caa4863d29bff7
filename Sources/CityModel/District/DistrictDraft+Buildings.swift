import GeoCore

/// A building footprint in local metres, with the links later stages need.
struct BuildingDraft {
    let id: String
    let name: String
    let use: String
    let cx: Double, cy: Double, width: Double, depth: Double
    let floors: Int
    let ground: Double
    let block: Int
    /// Index into `roads` of the street segment the building fronts (its service connection comes from there).
    let road: Int
    var addressCode: String = ""
    var residential: Bool { use == "住宅" }
}

extension DistrictDraft {
    static let yardPrefixes = ["问津", "齐安", "邾城", "凤凰", "紫薇", "将军", "阳逻", "涨渡", "柴泊", "道观",
                               "仓埠", "李集", "双柳", "三店", "衡店", "汪集"]
    static let yardSuffixes = ["苑", "花园", "小区", "家园", "新村", "雅居"]
    static let roleNames: [String: (String, String)] = [
        "hospital-0": ("新洲区人民医院", "公共服务"), "hospital-1": ("新洲区中医医院", "公共服务"),
        "hospital-2": ("新洲区妇幼保健院", "公共服务"),
        "fire-0": ("邾城消防救援站", "公共服务"), "fire-1": ("问津消防救援站", "公共服务"),
        "fire-2": ("齐安小型消防救援站", "公共服务"),
        "school-0": ("邾城第一中学", "公共服务"), "school-1": ("问津小学", "公共服务"),
        "government": ("邾城街道办事处", "办公"),
        "warehouse-0": ("新洲区防汛物资仓库", "工业"), "warehouse-1": ("新洲区应急物资储备库", "工业"),
    ]

    /// Horizontal road segment index for grid row `row` between columns col and col+1.
    func horizontalRoad(col: Int, row: Int) -> Int { row * (columns - 1) + col }

    func buildBuildingsAndAddresses() {
        var book = AddressBook()
        book.add(code: "420117", parent: nil, level: "区县", name: "新洲区", prefix: "湖北省武汉市",
                 at: lonLat(extent / 2, extent / 2), validFrom: "1998-09-01")
        book.add(code: "420117001", parent: "420117", level: "乡镇街道", name: "邾城街道",
                 at: lonLat(x(col: columns / 2), y(row: rows / 2)), validFrom: "1998-09-01")
        for cm in communities {
            let cx = (x(col: cm.cols.lowerBound) + x(col: cm.cols.upperBound)) / 2
            let cy = (y(row: cm.rows.lowerBound) + y(row: cm.rows.upperBound)) / 2
            book.add(code: cm.code, parent: "420117001", level: "社区/村", name: cm.name, at: lonLat(cx, cy), validFrom: "2005-06-01")
        }
        var sections = StreetSections()
        var doorNumbers: [String: Int] = [:]    // 街路巷 code or road name → last 门牌 number

        func streetNode(community: Int, road: String, at p: (Double, Double)) -> String {
            sections.section(of: road, in: communities[community], at: lonLat(p.0, p.1), book: &book)
        }
        func nextDoor(_ road: String) -> Int {
            let n = doorNumbers[road, default: 0] + 2
            doorNumbers[road] = n
            return n
        }

        for (bi, block) in blocks.enumerated() {
            let x0 = x(col: block.col), x1 = x(col: block.col + 1), y0 = y(row: block.row), y1 = y(row: block.row + 1)
            let builtYear = rng.integer(1992...2023)
            blocks[bi].builtYear = builtYear
            let validFrom = isoDate(builtYear, rng.integer(1...12), rng.integer(1...28))
            let community = block.community
            switch block.use {
            case .green:
                continue
            case .residential:
                // A 院落 (小区) with one gate 门牌 on its south street, buildings in two rows of five.
                let seq = sections.next(in: communities[community])
                let yardCode = communities[community].code + "2" + padded(seq, 3)
                let yardName = rng.pick(Self.yardPrefixes) + rng.pick(Self.yardSuffixes)
                blocks[bi].yard = (yardName, yardCode)
                let former: [String] = rng.chance(0.05) ? [rng.pick(Self.yardPrefixes) + "新村"] : []
                book.add(code: yardCode, parent: communities[community].code, level: "院落", name: yardName,
                         at: lonLat((x0 + x1) / 2, (y0 + y1) / 2), validFrom: validFrom, formerNames: former)
                let gateRoad = rowName(block.row)
                let gateCode = yardCode + padded(nextDoor(gateRoad) / 2, 4)
                let gateNo = doorNumbers[gateRoad] ?? 0
                book.add(code: gateCode, parent: yardCode, level: "门牌", name: "\(gateRoad)\(gateNo)号",
                         at: lonLat((x0 + x1) / 2, y0 + 12), validFrom: validFrom)
                var number = 0
                for side in 0..<2 {
                    for i in 0..<5 where !rng.chance(0.08) {
                        let w = rng.uniform(18, 26), d = rng.uniform(11, 14)
                        let cx = x0 + 36 + Double(i) * 32, cy = side == 0 ? y0 + 20 + d / 2 : y1 - 20 - d / 2
                        let u = rng.unit()
                        let floors = u < 0.55 ? rng.integer(2...3) : (u < 0.98 ? rng.integer(4...6) : rng.integer(11...18))
                        number += 1
                        var b = BuildingDraft(id: "BLD-" + padded(buildings.count + 1, 5), name: "\(yardName)\(number)栋",
                                              use: "住宅", cx: cx, cy: cy, width: w, depth: d, floors: floors,
                                              ground: ground(cx, cy), block: bi,
                                              road: horizontalRoad(col: block.col, row: block.row + side))
                        b.addressCode = gateCode + padded(number, 3)
                        addResidentialTree(&book, building: b, number: number, validFrom: validFrom)
                        buildings.append(b)
                    }
                }
            case .commercial, .publicService, .industrial:
                let slots: [(Double, Double, Double, Double)]   // cx, cy, w, d
                switch block.use {
                case .commercial:
                    slots = [(x0 + 55, y0 + 45), (x0 + 145, y0 + 45), (x0 + 55, y1 - 45), (x0 + 145, y1 - 45)].map {
                        ($0.0, $0.1, rng.uniform(50, 70), rng.uniform(25, 40))
                    }
                case .industrial:
                    slots = [(x0 + 60, y0 + 60), (x0 + 145, y0 + 60), (x0 + 100, y1 - 50)].map {
                        ($0.0, $0.1, rng.uniform(55, 70), rng.uniform(40, 55))
                    }
                default:
                    slots = [(x0 + 45, y0 + 40), (x0 + 100, y0 + 40), (x0 + 155, y0 + 40)].map {
                        ($0.0, $0.1, rng.uniform(40, 48), rng.uniform(20, 30))
                    }
                }
                let role = block.role.flatMap { Self.roleNames[$0] }
                for (k, s) in slots.enumerated() {
                    let north = s.1 > (y0 + y1) / 2
                    let roadName = rowName(block.row + (north ? 1 : 0))
                    let streetCode = streetNode(community: community, road: roadName, at: (s.0, north ? y1 : y0))
                    let door = nextDoor(roadName)
                    let doorCode = streetCode + padded(door / 2, 4)
                    let use: String = role?.1 ?? (block.use == .commercial ? (k % 2 == 0 ? "商业" : "办公")
                                                   : (block.use == .industrial ? "工业" : "公共服务"))
                    let floors = block.use == .industrial ? rng.integer(1...3)
                        : (block.use == .commercial ? rng.integer(3...12) : rng.integer(2...6))
                    let name = role.map { k == 0 ? $0.0 : "\($0.0)\(chineseNumeral(k + 1))号楼" } ?? "\(roadName)\(door)号"
                    var b = BuildingDraft(id: "BLD-" + padded(buildings.count + 1, 5), name: name, use: use,
                                          cx: s.0, cy: s.1, width: s.2, depth: s.3, floors: floors,
                                          ground: ground(s.0, s.1), block: bi,
                                          road: horizontalRoad(col: block.col, row: block.row + (north ? 1 : 0)))
                    b.addressCode = doorCode + "001"
                    book.add(code: doorCode, parent: streetCode, level: "门牌", name: "\(roadName)\(door)号",
                             at: lonLat(s.0, north ? s.1 + s.3 / 2 : s.1 - s.3 / 2), validFrom: validFrom)
                    book.add(code: b.addressCode, parent: doorCode, level: "楼栋", name: role == nil ? "1栋" : name,
                             at: lonLat(s.0, s.1), validFrom: validFrom)
                    buildings.append(b)
                }
            }
        }
        addRoadAddresses(&book, sections: &sections)
        for b in buildings {
            let hw = b.width / 2, hd = b.depth / 2
            let storey = b.residential ? 3.0 : (b.use == "工业" ? 6.0 : 4.0)
            add("buildings", Feature(id: .string(b.id), geometry: rectangle(b.cx - hw, b.cy - hd, b.cx + hw, b.cy + hd), properties: [
                "name": .string(b.name), "use": .string(b.use), "floors": .integer(Int64(b.floors)),
                "height_m": .number(round1(Double(b.floors) * storey)), "ground_elevation_m": .number(round2(b.ground)),
                "address_code": .string(b.addressCode), "footprint_m2": .number(round1(b.width * b.depth)),
            ]))
        }
        layers["addresses"] = book.features()
        layers["population_by_address"] = book.households.map { h in
            let residents = rng.integer(1...5)
            return Feature(id: .string("POP-" + h.code), geometry: .point(Point(h.position)), properties: [
                "address_code": .string(h.code), "residents": .integer(Int64(residents)),
                "elderly": .integer(Int64(rng.integer(0...min(2, residents)))),
                "children": .integer(Int64(rng.integer(0...max(0, residents - 2)))), "as_of": "2025-12-31",
            ])
        }
    }

    /// 楼栋 → 单元 → 楼层 → 户室 for one residential building.
    private func addResidentialTree(_ book: inout AddressBook, building b: BuildingDraft, number: Int, validFrom: String) {
        let code = b.addressCode
        let at = lonLat(b.cx, b.cy)
        book.add(code: code, parent: String(code.dropLast(3)), level: "楼栋", name: "\(number)栋", at: at, validFrom: validFrom)
        let units = 1   // one stairwell (单元) per building in the sample district
        let roomsPerFloor = b.floors <= 3 ? 1 : 2
        for u in 1...units {
            let unitCode = code + padded(u, 2)
            book.add(code: unitCode, parent: code, level: "单元", name: "\(u)单元", at: at, validFrom: validFrom)
            for f in 1...b.floors {
                let z = b.ground + Double(f - 1) * 3
                let floorCode = unitCode + padded(f, 3)
                let p = lonLat(b.cx, b.cy, z: z)
                book.add(code: floorCode, parent: unitCode, level: "楼层", name: "\(f)层", at: p, validFrom: validFrom)
                for k in 1...roomsPerFloor {
                    let room = f * 100 + k
                    let retired = rng.chance(0.01)
                    book.add(code: floorCode + padded(room, 4), parent: floorCode, level: "户室", name: "\(room)室", at: p,
                             validFrom: validFrom, validTo: retired ? isoDate(2024, rng.integer(1...12), rng.integer(1...28)) : nil)
                }
            }
        }
    }
}

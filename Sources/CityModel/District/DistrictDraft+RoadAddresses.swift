import GeoCore

/// The 街路巷 sections of the sample district: one record per (community, road) that has door
/// plates in that community, and the 街路巷/院落 sequence numbers each community has handed out.
struct StreetSections {
    /// Roads renamed since the addresses were first issued (current → former name, kept as 曾用名).
    static let renamed = ["新洲大街": "人民大街", "沿江大道": "江堤路"]

    private var nextSequence: [String: Int] = [:]   // community code → last 街路巷/院落 sequence
    private var codes: [String: String] = [:]       // "community|road" → 街路巷 code

    /// The next 街路巷/院落 sequence number in `community`.
    mutating func next(in community: Community) -> Int {
        let seq = nextSequence[community.code, default: 0] + 1
        nextSequence[community.code] = seq
        return seq
    }

    /// The code of `road`'s section in `community`, adding the 街路巷 record (at `position`) the first time.
    mutating func section(of road: String, in community: Community, at position: Position, book: inout AddressBook) -> String {
        let key = "\(community.code)|\(road)"
        if let code = codes[key] { return code }
        let code = community.code + "1" + padded(next(in: community), 3)
        book.add(code: code, parent: community.code, level: "街路巷", name: road, at: position,
                 validFrom: "2005-06-01", formerNames: Self.renamed[road].map { [$0] } ?? [])
        codes[key] = code
        return code
    }
}

extension DistrictDraft {
    /// The 街路巷 code of a whole road: the roads cross communities, so they hang under the 乡镇街道,
    /// with the 街道's 12-digit region code (`420117001000`) and the road's sequence (东西 rows first).
    static func roadCode(_ sequence: Int) -> String { streetCode + "1" + padded(sequence, 3) }

    /// Standard addresses of the roads themselves and of the plates along the 南北 roads.
    ///
    /// - Every named road gets one 街路巷 record under 邾城街道, its point the middle of its centre
    ///   line (a grid road is straight, so the point lies on it), with its 曾用名.
    /// - Every block side along a 南北 road gets one 门牌 (a street-front entrance 12 m inside the
    ///   block, half-way between the cross streets), under that road's section in the block's
    ///   community. Numbers run south to north, odd on the west side and even on the east side:
    ///   the plate of block row `r` is `2r+1` (west) or `2r+2` (east). A park's frontage (green
    ///   block) has no plate: its number is reserved, as in a real district.
    ///
    /// Added after every other address, with no random draws, so the earlier records keep their codes.
    func addRoadAddresses(_ book: inout AddressBook, sections: inout StreetSections) {
        let (xMid, yMid) = ((x(col: 0) + x(col: columns - 1)) / 2, (y(row: 0) + y(row: rows - 1)) / 2)
        var sequence = 0
        for r in 0..<rows {
            sequence += 1
            let name = rowName(r)
            book.add(code: Self.roadCode(sequence), parent: "420117001", level: "街路巷", name: name, at: lonLat(xMid, y(row: r)),
                     validFrom: "2005-06-01", formerNames: StreetSections.renamed[name].map { [$0] } ?? [])
        }
        for c in 0..<columns {
            sequence += 1
            let name = columnName(c)
            book.add(code: Self.roadCode(sequence), parent: "420117001", level: "街路巷", name: name, at: lonLat(x(col: c), yMid),
                     validFrom: "2005-06-01", formerNames: StreetSections.renamed[name].map { [$0] } ?? [])
        }
        for c in 0..<columns {
            let road = columnName(c)
            for r in 0..<blockRows {
                let yc = (y(row: r) + y(row: r + 1)) / 2
                for (side, blockColumn, dx) in [(1, c - 1, -12.0), (2, c, 12.0)] where (0..<blockColumns).contains(blockColumn) {
                    let block = blocks[r * blockColumns + blockColumn]
                    guard block.use != .green else { continue }
                    let community = communities[block.community]
                    let number = 2 * r + side
                    let street = sections.section(of: road, in: community, at: lonLat(x(col: c), yc), book: &book)
                    book.add(code: street + padded(number, 4), parent: street, level: "门牌", name: "\(road)\(number)号",
                             at: lonLat(x(col: c) + dx, yc), validFrom: "2005-06-01")
                }
            }
        }
    }
}

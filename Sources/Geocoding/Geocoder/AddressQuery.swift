/// An address string split into its name text and its numbered parts (门牌号, 栋, 单元, 层, 室),
/// after `AddressText` normalisation.
///
/// Numbers are recognised by the word that follows them: `N号` is a door number until a building
/// or unit has been seen (then a room: `3栋502号`), `N栋`, `N单元`, `N层`, `N室`; bare numbers
/// (`3-1-502`, or a trailing `502`) fill building, unit and room in that order. Digits followed by
/// anything else (`邾城3路`, `第3社区`) stay part of the name text. A Latin-script address (a city
/// outside China) writes its door number without 号: `Korkeavuorenkatu 26` or `26 Main Street`.
struct AddressQuery {
    /// Name text before the door number (province … community, yard, road), normalised.
    var head: [Unicode.Scalar] = []
    /// Name text after the door number (a yard named after the plate: `沿江大道2号双柳小区3栋`).
    var tail: [Unicode.Scalar] = []
    /// The door (门牌) number; the road name is then the end of `head`.
    var doorNumber: Int?
    var building: Int?
    var unit: Int?
    var floor: Int?
    var room: Int?

    init(_ text: String) {
        let s = AddressText.normalizedScalars(text)
        var i = 0
        var bare: [Int] = []
        var seenDoor = false
        func suffix(_ word: String, at k: Int) -> Bool {
            var k = k
            for w in word.unicodeScalars {
                guard k < s.count, s[k] == w else { return false }
                k += 1
            }
            return true
        }
        while i < s.count {
            let c = s[i]
            guard AddressText.isDigit(c) else {
                if c != "-" { if seenDoor { tail.append(c) } else { head.append(c) } }
                i += 1
                continue
            }
            var j = i, value = 0
            while j < s.count, AddressText.isDigit(s[j]) {
                value = value &* 10 &+ Int(s[j].value - 0x30)
                if value > 99_999_999 { value = 99_999_999 }
                j += 1
            }
            let word: (name: String, length: Int)? = {
                if j >= s.count || s[j] == "-" { return ("bare", j < s.count ? 1 : 0) }
                for (w, name) in [("号", "号"), ("栋", "栋"), ("单元", "单元"), ("层", "层"), ("室", "室")]
                where suffix(w, at: j) { return (name, w.unicodeScalars.count) }
                return nil
            }()
            guard let word else {
                // Part of a name (邾城3路): keep the digits as text.
                for k in i..<j { if seenDoor { tail.append(s[k]) } else { head.append(s[k]) } }
                i = j
                continue
            }
            switch word.name {
            case "号":
                if !seenDoor && building == nil && unit == nil {
                    doorNumber = value
                    seenDoor = true
                } else {
                    room = value
                }
            case "栋": building = value
            case "单元": unit = value
            case "层": floor = value
            case "室": room = value
            default: bare.append(value)
            }
            i = j + word.length
        }
        // A Latin-script address (a city outside China) writes its door number without 号, after the
        // street (`Korkeavuorenkatu 26`) or before it (`26 Main Street`).
        if !seenDoor, !hasBuildingParts, Self.isLatinScript(head) {
            if bare.count == 1 {
                doorNumber = bare.removeFirst()
            } else if bare.isEmpty, let digits = head.firstIndex(where: { !AddressText.isDigit($0) }), digits > 0,
                      !head[digits...].contains(where: AddressText.isDigit) {
                doorNumber = head[..<digits].reduce(0) { min($0 &* 10 &+ Int($1.value - 0x30), 99_999_999) }
                head.removeFirst(digits)
            }
        }
        // Bare numbers: 3-1-502 (栋-单元-室), 3-502 (栋-室), or a trailing room number.
        switch bare.count {
        case 0: break
        case 1:
            if building != nil || unit != nil || floor != nil { room = room ?? bare[0] }
            else if seenDoor { building = bare[0] }
            else { room = room ?? bare[0] }
        case 2:
            if building == nil { building = bare[0]; room = room ?? bare[1] }
            else { unit = unit ?? bare[0]; room = room ?? bare[1] }
        default:
            if building == nil { building = bare[0] }
            unit = unit ?? bare[1]
            room = room ?? bare[2]
        }
    }

    /// Whether `text` is written in Latin script (letters, with digits, no Chinese): a street name
    /// of a city outside China.
    static func isLatinScript(_ text: [Unicode.Scalar]) -> Bool {
        text.contains { $0.properties.isAlphabetic && !AddressText.isDigit($0) } && text.allSatisfy { $0.value < 0x2E80 }
    }

    /// Whether the query names anything below the door plate.
    var hasBuildingParts: Bool { building != nil || unit != nil || floor != nil || room != nil }
}

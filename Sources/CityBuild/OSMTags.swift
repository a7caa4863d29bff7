/// An OpenStreetMap object's tags as GDAL's OSM driver hands them: a few as their own fields
/// (`highway`, `name`, …) and the rest in `other_tags`, PostgreSQL hstore text
/// (`"oneway"=>"yes","maxspeed"=>"50"`, `\"` and `\\` escaped inside quotes).
public struct OSMTags: Sendable, Hashable {
    public private(set) var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    /// The tags of a feature: its own string fields (empty ones left out) and its `other_tags`.
    public init(fields: [String: String], otherTags: String?) {
        values = fields.filter { !$0.value.isEmpty && $0.key != "other_tags" && $0.key != "osm_id" && $0.key != "osm_way_id" }
        if let otherTags { for (k, v) in Self.hstore(otherTags) where values[k] == nil { values[k] = v } }
    }

    public subscript(key: String) -> String? { values[key] }

    /// The pairs of hstore text, in order; a pair that does not parse ends the list.
    static func hstore(_ text: String) -> [(String, String)] {
        var pairs: [(String, String)] = []
        var chars = Array(text.unicodeScalars)[...]
        func quoted() -> String? {
            guard chars.first == "\"" else { return nil }
            chars = chars.dropFirst()
            var out = String.UnicodeScalarView()
            while let c = chars.first {
                chars = chars.dropFirst()
                if c == "\\", let next = chars.first { out.append(next); chars = chars.dropFirst(); continue }
                if c == "\"" { return String(out) }
                out.append(c)
            }
            return nil
        }
        while !chars.isEmpty {
            while chars.first == "," || chars.first == " " { chars = chars.dropFirst() }
            guard let key = quoted() else { break }
            guard chars.starts(with: "=>".unicodeScalars) else { break }
            chars = chars.dropFirst(2)
            guard let value = quoted() else { break }
            pairs.append((key, value))
        }
        return pairs
    }
}

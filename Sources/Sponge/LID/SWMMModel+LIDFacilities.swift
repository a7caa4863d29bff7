import Foundation
import SWMMFormat

extension SWMMModel {
    /// This model with a plan's LID facilities written in: one `[LID_CONTROLS]` control per
    /// facility (named by its id, its layers in the model's units) and its `[LID_USAGE]` line, in
    /// place of the model's own LID sections (a plan replaces the model's LIDs). The model's writer
    /// (`inpText()`) then writes them as SWMM reads them.
    /// - Throws: `SpongeInputError` naming the facility (`lid_facilities[2].unitArea`): an id that is
    ///   empty, has spaces or is used twice; a subcatchment the model does not have; units < 1; an area,
    ///   width or percent out of range; a layer with the wrong number of parameters or a negative one;
    ///   facilities that together cover more than their subcatchment, or treat more than all of its
    ///   impervious or pervious area (SWMM's own checks, said before SWMM would refuse the file).
    public func withLIDFacilities(_ facilities: [LIDFacility], input: String = "lid_facilities") throws -> SWMMModel {
        let u = units
        let areas = Dictionary(subcatchments.map { ($0.name, $0.area * u.landArea) }, uniquingKeysWith: { a, _ in a })
        var covered: [String: Double] = [:], fromImperv: [String: Double] = [:], fromPerv: [String: Double] = [:]
        var ids = Set<String>()
        var controls: [[String]] = [], usage: [[String]] = []
        let mmToModel = 1 / (u.rainDepth * 1000)             // model depth units per mm
        let squareMetresToModel = 1 / (u.length * u.length)  // ft² or m² per m²
        for (k, f) in facilities.enumerated() {
            func fail(_ field: String, _ why: String) -> SpongeInputError { SpongeInputError("\(input)[\(k)].\(field)", why) }
            guard !f.id.isEmpty, !f.id.contains(where: \.isWhitespace), !f.id.hasPrefix(";"), !f.id.hasPrefix("[") else {
                throw fail("id", "an LID control's name is one word without spaces, got '\(f.id)'")
            }
            guard ids.insert(f.id).inserted else { throw fail("id", "the id \(f.id) is used by another facility") }
            guard let subArea = areas[f.subcatchment] else { throw fail("subcatchment", "the model has no subcatchment \(f.subcatchment)") }
            guard f.units >= 1 else { throw fail("units", "at least 1 unit, got \(f.units)") }
            guard f.unitArea > 0, f.unitArea.isFinite else { throw fail("unitArea", "a unit's area is more than 0 m², got \(f.unitArea)") }
            guard f.width >= 0, f.width.isFinite else { throw fail("width", "a width is 0 m or more, got \(f.width)") }
            for (field, v) in [("fromImperviousPercent", f.fromImperviousPercent), ("fromPerviousPercent", f.fromPerviousPercent),
                               ("initialSaturationPercent", f.initialSaturationPercent)] where !(0...100).contains(v) {
                throw fail(field, "a percent is 0…100, got \(v)")
            }
            covered[f.subcatchment, default: 0] += Double(f.units) * f.unitArea
            fromImperv[f.subcatchment, default: 0] += f.fromImperviousPercent
            fromPerv[f.subcatchment, default: 0] += f.fromPerviousPercent
            if covered[f.subcatchment]! > subArea * (1 + 1e-9) {
                throw fail("unitArea", "the LID facilities of subcatchment \(f.subcatchment) cover \(covered[f.subcatchment]!) m², more than its \(subArea) m²")
            }
            if fromImperv[f.subcatchment]! > 100 + 1e-9 {
                throw fail("fromImperviousPercent", "the LID facilities of subcatchment \(f.subcatchment) treat \(fromImperv[f.subcatchment]!) % of its impervious area, more than 100 %")
            }
            if fromPerv[f.subcatchment]! > 100 + 1e-9 {
                throw fail("fromPerviousPercent", "the LID facilities of subcatchment \(f.subcatchment) treat \(fromPerv[f.subcatchment]!) % of its pervious area, more than 100 %")
            }
            controls.append([f.id, f.kind.rawValue])
            for (layer, given) in f.resolvedLayers {
                guard given.count == layer.parameters.count else {
                    throw fail("layers.\(layer.rawValue)", "\(layer.rawValue) takes \(layer.parameters.count) parameters (\(layer.parameters.joined(separator: ", "))), got \(given.count)")
                }
                if let bad = given.firstIndex(where: { !$0.isFinite || $0 < 0 }) {
                    throw fail("layers.\(layer.rawValue)", "\(layer.parameters[bad]) cannot be negative, got \(given[bad])")
                }
                var values = given
                for i in layer.depthIndices { values[i] *= mmToModel }
                for i in layer.rateIndices { values[i] *= mmToModel }
                if layer == .drain {
                    // q = C·hⁿ: C in mm/h per mmⁿ becomes in/h per inⁿ in a US model.
                    values[0] *= pow(mmToModel, 1 - values[1])
                }
                controls.append([f.id, layer.rawValue] + values.map(Self.number))
            }
            usage.append([f.subcatchment, f.id, String(f.units), Self.number(f.unitArea * squareMetresToModel), Self.number(f.width / u.length),
                          Self.number(f.initialSaturationPercent), Self.number(f.fromImperviousPercent), f.toPervious ? "1" : "0",
                          "*", "*", Self.number(f.fromPerviousPercent)])
        }
        var m = self
        m.rawSections.removeAll { $0.name == "LID_CONTROLS" || $0.name == "LID_USAGE" }
        if !facilities.isEmpty {
            m.rawSections.append(SWMMRawSection(name: "LID_CONTROLS", lines: controls))
            m.rawSections.append(SWMMRawSection(name: "LID_USAGE", lines: usage))
        }
        return m
    }

    /// A number as the `.inp` holds it: up to 10 significant digits, no exponent for ordinary values.
    static func number(_ v: Double) -> String {
        let text = String(format: "%.10g", v)
        return text.contains("e") ? String(v) : text
    }
}

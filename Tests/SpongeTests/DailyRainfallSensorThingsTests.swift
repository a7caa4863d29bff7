import Foundation
import GeoCore
import Sponge
import TestSupport
import Testing
import TwinStore

/// A rain gauge's record read from its SensorThings Datastream (as the SensorThings API writes
/// it) into the city's calendar days, for the design rainfall and continuous runs.
@Suite("Daily rainfall from a rain gauge's SensorThings Datastream")
struct DailyRainfallSensorThingsTests {
    static let day0: Int64 = 1_782_835_200_000_000  // 2026-06-30T16:00:00Z = 2026-07-01 00:00 in Shanghai
    static let hour: Int64 = 3_600_000_000
    let shanghai = TimeZone(identifier: "Asia/Shanghai")!

    static func gauge(_ store: any SensingStore, unit: String) async throws -> Int64 {
        try await RainGauges.register(store, unit: unit, name: "雨量站")
    }

    /// Readings `(hours from day0, hours long or nil, value)`.
    static func observe(_ store: any SensingStore, _ datastream: Int64, _ readings: [(Int64, Int64?, Double)]) async throws {
        try await RainGauges.observe(store, datastream, readings.map { r in (day0 + r.0 * hour, r.1.map { day0 + (r.0 + $0) * hour }, r.2) })
    }

    @Test("depth and intensity readings summed into the city's days, every day of the window listed")
    func days() async throws {
        try await withTemporaryDirectory("sponge-sta") { dir in
            let store = try dir.openStore("rain.sqlite")
            let depth = try await Self.gauge(store, unit: "mm")
            let intensity = try await Self.gauge(store, unit: "mm/h")
            // July 1: 5 mm over 10:00–12:00 and 2.5 mm at 23:00; July 2 dry; July 3: 4 mm over 23:00–24:00.
            try await Self.observe(store, depth, [(10, 2, 5), (23, nil, 2.5), (71, 1, 4)])
            // 6 mm/h from July 1 22:00, held to the next reading at 23:00 (6 mm); 2 mm/h from 23:00, the
            // last reading, held one hour at most (2 mm), counted on the day it starts: July 1.
            try await Self.observe(store, intensity, [(22, nil, 6), (23, nil, 2)])
            let record = try await DailyRainfall(datastream: depth, from: Self.day0, to: Self.day0 + 72 * Self.hour, sensing: store, zone: shanghai)
            #expect(record.days.map(\.date) == ["2026-07-01", "2026-07-02", "2026-07-03"])
            #expect(record.days.map(\.millimetres) == [7.5, 0, 4])
            #expect(record.readings == 3)
            let held = try await DailyRainfall(datastream: intensity, from: Self.day0, to: Self.day0 + 48 * Self.hour, sensing: store, zone: shanghai)
            #expect(held.days.map(\.millimetres) == [8, 0])
            let design = try DesignRainfall(record: record, rate: 0.75)
            #expect(design.countedDays == 2)
        }
    }

    @Test("a Datastream that is not rain, or silent in the window, is refused naming it")
    func refusals() async throws {
        try await withTemporaryDirectory("sponge-sta") { dir in
            let store = try dir.openStore("rain.sqlite")
            let level = try await Self.gauge(store, unit: "m")
            let rain = try await Self.gauge(store, unit: "mm")
            let notRain = await #expect(throws: SpongeInputError.self) {
                try await DailyRainfall(datastream: level, from: Self.day0, to: Self.day0 + Self.hour, sensing: store)
            }
            #expect(notRain?.input == "datastream \(level)")
            #expect(notRain?.reason.contains("not rain") == true)
            let silent = await #expect(throws: SpongeInputError.self) {
                try await DailyRainfall(datastream: rain, from: Self.day0, to: Self.day0 + Self.hour, sensing: store)
            }
            #expect(silent?.reason.contains("no reading") == true)
            let unknown = await #expect(throws: SpongeInputError.self) {
                try await DailyRainfall(datastream: 999_999, from: Self.day0, to: Self.day0 + Self.hour, sensing: store)
            }
            #expect(unknown?.reason.contains("no Datastream") == true)
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import Server
import Testing
import TwinStore

/// Issue 18 §6: a burst of observations is accepted or refused with 429/503, never lost once
/// acknowledged. CI-sized: 96 concurrent writes from one gateway token over a small rate and a
/// write queue of 4 (`Benchmarks/sensing/burst.py` sends 1 M observations to `citytwin serve`).
@Suite("SensorThings observation bursts")
struct SensorThingsBurstTests {
    static let requests = 96
    static let perBatch = 50
    static let start = SensingTime.instant("2026-06-01T00:00:00Z")!

    /// Request `i`: every third a single `POST Datastreams(ds)/Observations`, the others a
    /// `CreateObservations` batch; phenomenon times one second apart, distinct across requests.
    static func request(_ i: Int, datastream ds: Int64) -> (path: String, body: String, times: [Int64]) {
        if i % 3 == 0 {
            let t = start + Int64(i * perBatch) * 1_000_000
            return ("/sta/v1.1/Datastreams(\(ds))/Observations", #"{"phenomenonTime": "\#(SensingTime.format(t))", "result": \#(i)}"#, [t])
        }
        let times = (0..<perBatch).map { start + Int64(i * perBatch + $0) * 1_000_000 }
        let rows = times.enumerated().map { j, t in "[\"\(SensingTime.format(t))\", \(i).\(j)]" }
        let body = """
            [{"Datastream": {"@iot.id": \(ds)}, "components": ["phenomenonTime", "result"],
              "dataArray@iot.count": \(rows.count), "dataArray": [\(rows.joined(separator: ","))]}]
            """
        return ("/sta/v1.1/CreateObservations", body, times)
    }

    /// The ids a 201 answer acknowledges: the `@iot.id` of a created Observation, or the ids in
    /// the self links of CreateObservations.
    static func acknowledged(_ r: TestResponse) throws -> [Int64] {
        let json = try r.json
        if let id = json["@iot.id"]?.integerValue { return [id] }
        return try #require(json.arrayValue).map { link in
            let text = link.stringValue ?? ""
            return Int64(text.split(separator: "(").last?.dropLast() ?? "") ?? -1
        }
    }

    @Test("every request of a burst is answered 201, 429 or 503 with Retry-After; each acknowledged observation is stored once, a re-send keeps its id")
    func burst() async throws {
        let limits = RequestLimits(tokenRate: 40, tokenBurst: 40, addressRate: 0, sensingWriteQueue: 4)
        try await SensorThingsTileTests.run(limits: limits) { api, _ in
            let (_, ds) = try await api.postGauge()
            let gateway = api.authority.issue(TokenClaims(department: SensorThingsAPI.owner, role: .editor, subject: "网关 burst", lifetime: 3600))
            let sent = (0..<Self.requests).map { Self.request($0, datastream: ds) }
            // All at once, from one gateway token.
            let answers = try await withThrowingTaskGroup(of: (Int, TestResponse).self) { group in
                for (i, r) in sent.enumerated() {
                    group.addTask { (i, try await api.send(.post, r.path, token: gateway, basic: false, body: r.body)) }
                }
                var out = [Int: TestResponse]()
                for try await (i, r) in group { out[i] = r }
                return out
            }
            var ids = [Int: [Int64]]()
            var statuses = [Int: Int]()
            for (i, r) in answers {
                statuses[r.status.code, default: 0] += 1
                switch r.status {
                case .created:
                    ids[i] = try Self.acknowledged(r)
                    #expect(ids[i]?.count == sent[i].times.count && ids[i]?.contains(-1) == false, "\(r.text.prefix(200))")
                case .tooManyRequests, .serviceUnavailable:
                    let wait = try #require(r.headers[.retryAfter].flatMap(Int.init), "a refusal says when to come back")
                    #expect(wait >= 1)
                    #expect(r.headers[.contentType] == "application/problem+json")
                default:
                    Issue.record("request \(i) answered \(r.status): \(r.text.prefix(300))")
                }
            }
            #expect(statuses[201, default: 0] > 0 && statuses[429, default: 0] > 0, "\(statuses)")
            #expect(statuses[503, default: 0] > 0, "the write queue of 4 refused some of the 40 the rate let through: \(statuses)")

            // Stored: exactly the acknowledged observations, each once; nothing of a refused request.
            let sensing = try #require(api.store as (any SensingStore)?)
            func stored() async throws -> [Int64: Int64] {
                let all = try await sensing.observations(ObservationRange(datastream: ds, order: .phenomenonTime, limit: 100_000))
                #expect(Set(all.map(\.phenomenonStart)).count == all.count, "one observation per phenomenonTime")
                return Dictionary(uniqueKeysWithValues: all.map { ($0.phenomenonStart, $0.id) })
            }
            var expected = [Int64: Int64]()
            for (i, list) in ids { for (t, id) in zip(sent[i].times, list) { expected[t] = id } }
            #expect(try await stored() == expected)

            // Every gateway sends again what was refused (after Retry-After) and, not knowing, some of
            // what was acknowledged: the refused ones are stored, the acknowledged ones keep their ids.
            let retry = api.authority.issue(TokenClaims(department: SensorThingsAPI.owner, role: .editor, subject: "网关 retry", lifetime: 3600))
            for (i, r) in sent.enumerated() where ids[i] == nil || i % 4 == 0 {
                var answer = try await api.send(.post, r.path, token: retry, basic: false, body: r.body)
                while answer.status == .tooManyRequests || answer.status == .serviceUnavailable {
                    try await Task.sleep(for: .seconds(Double(answer.headers[.retryAfter].flatMap(Int.init) ?? 1)))
                    answer = try await api.send(.post, r.path, token: retry, basic: false, body: r.body)
                }
                #expect(answer.status == .created, "\(answer.text.prefix(300))")
                let again = try Self.acknowledged(answer)
                if let first = ids[i] { #expect(again == first, "request \(i): a re-sent observation keeps its id") }
                for (t, id) in zip(r.times, again) { expected[t] = id }
            }
            let final = try await stored()
            #expect(final == expected)
            #expect(final.count == sent.map(\.times.count).reduce(0, +))
        }
    }
}

import Foundation
import GeoCore
import HummingbirdTesting
import Server
import Testing
import TwinStore

@Suite("SensorThings API 1.1: entities, deep insert, query options, Data Array, access and audit")
struct SensorThingsTests {
    @Test("the service root lists the entity sets and the conformance classes, Data Array included")
    func serviceRoot() async throws {
        try await SensorThingsAPI.run { api in
            let r = try await api.get("/sta/v1.1")
            #expect(r.status == .ok)
            let doc = try r.json
            let names = try #require(doc["value"]?.arrayValue).compactMap { $0["name"]?.stringValue }
            #expect(names.contains("Things") && names.contains("FeaturesOfInterest") && names.count == 8)
            let conformance = try #require(doc["serverSettings"]?["conformance"]?.arrayValue).compactMap(\.stringValue)
            #expect(conformance.contains("http://www.opengis.net/spec/iot_sensing/1.1/req/data-array/data-array"))
            #expect(conformance.contains("http://www.opengis.net/spec/iot_sensing/1.1/req/create-update-delete"))
        }
    }

    @Test("a deep insert creates Thing, Location, HistoricalLocation, Datastream, Sensor and ObservedProperty, read back with nested $expand")
    func deepInsert() async throws {
        try await SensorThingsAPI.run { api in
            let (thing, ds) = try await api.postGauge()
            let r = try await api.get("/sta/v1.1/Things(\(thing))?$expand=Locations,Datastreams($select=name,unitOfMeasurement;$expand=Sensor,ObservedProperty)")
            #expect(r.status == .ok, "\(r.text)")
            let doc = try r.json
            #expect(doc["@iot.selfLink"]?.stringValue == "http://test.local/sta/v1.1/Things(\(thing))")
            #expect(doc["properties"]?["station"] == "JS-01")
            #expect(doc["Locations"]?.arrayValue?.first?["location"]?["coordinates"] == [114.8012, 30.8437])
            let stream = try #require(doc["Datastreams"]?.arrayValue?.first)
            #expect(stream["name"] == "water level")
            #expect(stream["description"] == nil, "$select inside $expand applies")
            #expect(stream["Sensor"]?["metadata"] == "https://example.org/vega")
            #expect(stream["ObservedProperty"]?["definition"] == "http://vocabs.lter-europe.net/EnvThes/22035")
            #expect(doc["HistoricalLocations@iot.navigationLink"]?.stringValue?.hasSuffix("Things(\(thing))/HistoricalLocations") == true)
            let history = try await api.get("/sta/v1.1/Things(\(thing))/HistoricalLocations?$expand=Locations($select=name)")
            #expect(try history.json["value"]?.arrayValue?.first?["Locations"]?.arrayValue?.first?["name"] == "邾城大桥")
            // Navigation both ways, properties, $value and $ref.
            #expect(try await api.get("/sta/v1.1/Datastreams(\(ds))/Thing/name").json["name"] == "举水 邾城 水位站")
            #expect(try await api.get("/sta/v1.1/Datastreams(\(ds))/Thing/name/$value").text == "举水 邾城 水位站")
            let refs = try await api.get("/sta/v1.1/Things(\(thing))/Datastreams/$ref").json
            #expect(refs["value"]?.arrayValue?.first?["@iot.selfLink"]?.stringValue == "http://test.local/sta/v1.1/Datastreams(\(ds))")
            #expect(try await api.get("/sta/v1.1/Sensors").json["value"]?.arrayValue?.count == 1)
            // A Location posted to the Thing's Locations moves it there: linked, with a new HistoricalLocation.
            let moved = try await api.send(.post, "/sta/v1.1/Things(\(thing))/Locations", token: api.token(), body: """
                {"name": "邾城新站", "description": "moved upstream", "encodingType": "application/geo+json",
                 "location": {"type": "Point", "coordinates": [114.8101, 30.8502]}}
                """)
            #expect(moved.status == .created, "\(moved.text)")
            #expect(try await api.get("/sta/v1.1/Things(\(thing))/Locations").json["value"]?.arrayValue?.count == 2)
            #expect(try await api.get("/sta/v1.1/Things(\(thing))/HistoricalLocations").json["value"]?.arrayValue?.count == 2)
            // Every entity written is audited in the governing layer's log.
            let audit = try await api.store.auditLog(layer: "iot_devices", after: 0, limit: 100, by: .admin)
            #expect(audit.filter { $0.featureID.hasPrefix("sta:") }.count == 9, "6 of the deep insert, then Location, Thing, HistoricalLocation")
            #expect(audit.allSatisfy { $0.department == SensorThingsAPI.owner })
        }
    }

    @Test("CreateObservations stores a Data Array; $filter, $orderby, $top, $skip, $count and nextLink page through it")
    func observationsQuery() async throws {
        try await SensorThingsAPI.run { api in
            let (_, ds) = try await api.postGauge()
            let levels = (0..<72).map { 20 + Double($0 % 24) / 4 }   // a daily tide 20.00 … 25.75 m
            let created = try await api.postLevels(ds, levels)
            #expect(created.status == .created, "\(created.text)")
            #expect(try created.json.arrayValue?.count == 72)

            let q = "/sta/v1.1/Datastreams(\(ds))/Observations?$filter=result ge 25 and phenomenonTime ge 2026-06-02T00:00:00Z&$orderby=phenomenonTime desc&$top=3&$count=true"
            let r = try await api.get(q)
            #expect(r.status == .ok, "\(r.text)")
            let doc = try r.json
            let expected = levels.enumerated().filter { $0.offset >= 24 && $0.element >= 25 }.count
            #expect(doc["@iot.count"]?.integerValue == Int64(expected))
            let page = try #require(doc["value"]?.arrayValue)
            #expect(page.map { $0["phenomenonTime"]?.stringValue } == ["2026-06-03T23:00:00Z", "2026-06-03T22:00:00Z", "2026-06-03T21:00:00Z"])
            #expect(page.first?["result"]?.doubleValue == 25.75)
            let next = try #require(doc["@iot.nextLink"]?.stringValue)
            let second = try await api.get(relative(next))
            #expect(try second.json["value"]?.arrayValue?.first?["phenomenonTime"] == "2026-06-03T20:00:00Z")

            // Filters the index cannot answer alone (functions, arithmetic) agree too.
            let hours = try await api.get("/sta/v1.1/Observations?$filter=hour(phenomenonTime) eq 6 and result mul 4 eq 86&$count=true")
            #expect(try hours.json["@iot.count"]?.integerValue == 3, "\(hours.text)")

            // The Data Array result format.
            let array = try await api.get("/sta/v1.1/Datastreams(\(ds))/Observations?$resultFormat=dataArray&$select=phenomenonTime,result&$top=2&$orderby=phenomenonTime")
            let group = try #require(try array.json["value"]?.arrayValue?.first)
            #expect(group["components"] == ["phenomenonTime", "result"])
            let rows = try #require(group["dataArray"]?.arrayValue)
            #expect(rows.map { $0.arrayValue?.first } == ["2026-06-01T00:00:00Z", "2026-06-01T01:00:00Z"])
            #expect(rows.map { $0.arrayValue?.last?.doubleValue } == [20.0, 20.25])

            // `$select` reads only what it shows; the FeatureOfInterest link and `$expand` still find theirs.
            let narrow = try await api.get("/sta/v1.1/Datastreams(\(ds))/Observations?$select=result,resultTime,FeatureOfInterest&$expand=FeatureOfInterest($select=name)&$top=1&$orderby=phenomenonTime desc")
            let newest = try #require(try narrow.json["value"]?.arrayValue?.first, "\(narrow.text)")
            #expect(newest["result"]?.doubleValue == 25.75)
            #expect(newest["resultTime"] == .null)
            #expect(newest["phenomenonTime"] == nil && newest["@iot.id"] == nil)
            #expect(newest["FeatureOfInterest"]?["name"]?.stringValue != nil, "\(narrow.text)")
            #expect(newest["FeatureOfInterest@iot.navigationLink"]?.stringValue != nil)

            // An expanded collection's nextLink keeps its own options.
            let expanded = try await api.get("/sta/v1.1/Datastreams(\(ds))?$expand=Observations($top=1;$orderby=phenomenonTime desc;$filter=result lt 21)")
            let nested = try expanded.json
            #expect(nested["Observations"]?.arrayValue?.first?["phenomenonTime"] == "2026-06-03T03:00:00Z", "levels under 21 m are hours 0-3 of each day")
            let nestedNext = try #require(nested["Observations@iot.nextLink"]?.stringValue)
            #expect(try await api.get(relative(nestedNext)).json["value"]?.arrayValue?.first?["phenomenonTime"] == "2026-06-03T02:00:00Z")

            // Re-sending the same rows is idempotent: same ids, nothing added.
            let again = try await api.postLevels(ds, Array(levels.prefix(2)))
            #expect(again.status == .created)
            #expect(try again.json.arrayValue?.first == created.json.arrayValue?.first)
            let all = try await api.get("/sta/v1.1/Observations?$count=true&$top=0")
            #expect(try all.json["@iot.count"]?.integerValue == 72, "\(all.text)")
            #expect(try all.json["@iot.nextLink"] == nil, "$top=0 asks for the count alone")

            // An observation posted singly gets the FeatureOfInterest generated from the Thing's Location.
            let one = try await api.send(.post, "/sta/v1.1/Observations", token: api.token(),
                                         body: #"{"phenomenonTime": "2026-06-10T00:00:00Z", "result": 21.5, "Datastream": {"@iot.id": \#(ds)}}"#)
            #expect(one.status == .created, "\(one.text)")
            let foi = try await api.get(relative(try #require(one.headers[.location])) + "/FeatureOfInterest")
            #expect(try foi.json["feature"]?["coordinates"] == [114.8012, 30.8437])
        }
    }

    @Test("bad input is a 400 naming the field, and nothing is written")
    func badInput() async throws {
        try await SensorThingsAPI.run { api in
            let (thing, ds) = try await api.postGauge()
            let unknown = try await api.send(.post, "/sta/v1.1/CreateObservations", token: api.token(), body: """
                [{"Datastream": {"@iot.id": \(thing + 1000)}, "components": ["phenomenonTime", "result"], "dataArray": [["2026-06-01T00:00:00Z", 1]]}]
                """)
            try expectProblem(unknown, status: 400, type: "invalid-body")
            #expect(try unknown.json["position"] == "$[0].Datastream")

            let wrongType = try await api.send(.post, "/sta/v1.1/CreateObservations", token: api.token(), body: """
                [{"Datastream": {"@iot.id": \(ds)}, "components": ["phenomenonTime", "result"], "dataArray": [["2026-06-01T00:00:00Z", 1.5], ["2026-06-01T01:00:00Z", "high"]]}]
                """)
            try expectProblem(wrongType, status: 400, type: "invalid-body", naming: "result")
            #expect(try wrongType.json["position"] == "$[0].dataArray[1].result")

            let duplicate = try await api.postLevels(ds, [1, 2, 3], startHour: 5).status
            #expect(duplicate == .created)
            let twice = try await api.send(.post, "/sta/v1.1/CreateObservations", token: api.token(), body: """
                [{"Datastream": {"@iot.id": \(ds)}, "components": ["phenomenonTime", "result"], "dataArray": [["2026-07-01T00:00:00Z", 1], ["2026-07-01T00:00:00Z", 2]]}]
                """)
            try expectProblem(twice, status: 400, type: "invalid-feature", naming: "phenomenonTime")
            let changed = try await api.postLevels(ds, [9], startHour: 5)
            try expectProblem(changed, status: 400, type: "invalid-feature", naming: "phenomenonTime")

            let filter = try await api.get("/sta/v1.1/Observations?$filter=result gt and true")
            try expectProblem(filter, status: 400, type: "invalid-filter", naming: "$filter")
            #expect(try filter.json["position"] == "offset 10")

            let missing = try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: #"{"name": "x", "description": "y", "Datastreams": [{"name": "d"}]}"#)
            try expectProblem(missing, status: 400, type: "invalid-body")
            #expect(try missing.json["position"] == "$.Datastreams[0].description")

            let all = try await api.get("/sta/v1.1/Observations?$count=true")
            #expect(try all.json["@iot.count"]?.integerValue == 3, "nothing half-written: \(all.text.prefix(300))")
            #expect(try await api.get("/sta/v1.1/Things?$count=true").json["@iot.count"]?.integerValue == 1)
        }
    }

    @Test("a re-sent reading keeps its id and writes nothing; a late one is stored in time order; CSV export for notebooks")
    func idempotentLateAndCSV() async throws {
        try await SensorThingsAPI.run { api in
            let (_, ds) = try await api.postGauge()
            let first = try await api.postLevels(ds, [26.5, 26.7], startHour: 1)
            #expect(first.status == .created)
            let again = try await api.postLevels(ds, [26.5, 26.7], startHour: 1)
            #expect(again.status == .created)
            #expect(try again.json == first.json, "the same readings answer with the ids they were stored under")
            // Out of order: 00:00 arrives after 01:00 and 02:00; accepted, and read in phenomenonTime order.
            let late = try await api.postLevels(ds, [26.4], startHour: 0)
            #expect(late.status == .created)
            let all = try await api.get("/sta/v1.1/Datastreams(\(ds))/Observations?$orderby=phenomenonTime&$count=true")
            #expect(try all.json["@iot.count"]?.integerValue == 3, "the re-sent readings are not doubled")
            #expect(try all.json["value"]?.arrayValue?.map { $0["result"] } == [26.4, 26.5, 26.7])

            // The export: FROST's $resultFormat=CSV, one header, one row per observation, in the asked order.
            let csv = try await api.get("/sta/v1.1/Datastreams(\(ds))/Observations?$orderby=phenomenonTime&$resultFormat=CSV")
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = csv.text.split(separator: "\r\n").map(String.init)
            #expect(lines.first == "id,phenomenonTime,resultTime,result,Datastream/id,FeatureOfInterest/id")
            #expect(lines.count == 4)
            #expect(lines[1].contains(",2026-06-01T00:00:00Z,,26.4,\(ds),"), "\(lines)")
            let selected = try await api.get("/sta/v1.1/Datastreams(\(ds))/Observations?$select=phenomenonTime,result&$top=2&$orderby=phenomenonTime desc&$resultFormat=csv")
            #expect(selected.text == "phenomenonTime,result\r\n2026-06-01T02:00:00Z,26.7\r\n2026-06-01T01:00:00Z,26.5\r\n")
            #expect(selected.headers.first { $0.name.rawName == "Link" }?.value.contains("rel=\"next\"") == true, "the next page is a Link header")
            let things = try await api.get("/sta/v1.1/Things?$resultFormat=CSV")
            try expectProblem(things, status: 400, type: "invalid-parameter", naming: "$resultFormat")
        }
    }

    @Test("readers follow the governing layer's sharing class; writers are its owner's editors, by Bearer or Basic")
    func access() async throws {
        try await SensorThingsAPI.run { api in
            let anonymous = try await api.send(.get, "/sta/v1.1/Things")
            try expectProblem(anonymous, status: 401, type: "unauthorized")
            let otherDepartment = try await api.send(.get, "/sta/v1.1/Things", token: api.token("水务局"))
            #expect(otherDepartment.status == .ok, "iot_devices is shared between departments")
            let write = try await api.send(.post, "/sta/v1.1/Things", token: api.token("水务局"), body: #"{"name": "x", "description": "y"}"#)
            try expectProblem(write, status: 403, type: "forbidden")
            let viewer = try await api.send(.post, "/sta/v1.1/Things", token: api.token(SensorThingsAPI.owner, .viewer), body: #"{"name": "x", "description": "y"}"#)
            try expectProblem(viewer, status: 403, type: "forbidden")
            let bearer = try await api.send(.post, "/sta/v1.1/Things", token: api.token(), basic: false, body: #"{"name": "x", "description": "y"}"#)
            #expect(bearer.status == .created)
            let badBasic = try await api.client.execute(uri: "/sta/v1.1/Things", method: .get, headers: [.authorization: "Basic bm90LWEtdG9rZW4="])
            try expectProblem(badBasic, status: 401, type: "invalid-token")
        }
    }

    @Test("PATCHes of one Thing through two servers on one store at the same instant: each applies to the Thing as stored, neither is lost")
    func patchesThroughTwoServers() async throws {
        try await SensorThingsAPI.run(secondServer: true) { api in
            let other = try #require(api.other)
            let (thing, _) = try await api.postGauge()
            for round in 0..<10 {
                async let named = api.send(.patch, "/sta/v1.1/Things(\(thing))", token: api.token(), body: #"{"name": "举水 邾城 水位站 \#(round)"}"#)
                async let described = other.send(.patch, "/sta/v1.1/Things(\(thing))", token: api.token(),
                                                 body: #"{"description": "river gauge, round \#(round)"}"#)
                let (a, b) = try await (named, described)
                #expect(a.status == .ok && b.status == .ok, "\(a.text) \(b.text)")
                let stored = try await api.get("/sta/v1.1/Things(\(thing))").json
                #expect(stored["name"]?.stringValue == "举水 邾城 水位站 \(round)" && stored["description"]?.stringValue == "river gauge, round \(round)",
                        "round \(round): \(stored)")
            }
        }
    }

    @Test("Two corrections of one reading through two servers at once keep both: an Observation's update is written only if the row is still as read")
    func observationPatchesThroughTwoServers() async throws {
        try await SensorThingsAPI.run(secondServer: true) { api in
            let other = try #require(api.other)
            let (_, ds) = try await api.postGauge()
            _ = try await api.postLevels(ds, [26.4])
            let observation = try #require(try await api.get("/sta/v1.1/Datastreams(\(ds))/Observations").json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
            for round in 0..<10 {
                let level = 26.5 + Double(round) / 100
                async let corrected = api.send(.patch, "/sta/v1.1/Observations(\(observation))", token: api.token(), body: #"{"result": \#(level)}"#)
                async let qualified = other.send(.patch, "/sta/v1.1/Observations(\(observation))", token: api.token(),
                                                 body: #"{"parameters": {"checked_by": "round \#(round)"}}"#)
                let (a, b) = try await (corrected, qualified)
                #expect(a.status == .ok && b.status == .ok, "\(a.text) \(b.text)")
                let stored = try await api.get("/sta/v1.1/Observations(\(observation))").json
                #expect(stored["result"]?.doubleValue == level && stored["parameters"]?["checked_by"]?.stringValue == "round \(round)",
                        "round \(round): \(stored)")
            }
        }
    }

    @Test("PATCH changes members and links; DELETE removes a Thing with its Datastreams and Observations")
    func patchAndDelete() async throws {
        try await SensorThingsAPI.run { api in
            let (thing, ds) = try await api.postGauge()
            _ = try await api.postLevels(ds, [1, 2, 3])
            let patched = try await api.send(.patch, "/sta/v1.1/Datastreams(\(ds))", token: api.token(),
                                             body: #"{"description": "stage, Wusong datum", "properties": {"thresholds": [{"level": "warning", "value": 27.5}]}}"#)
            #expect(patched.status == .ok, "\(patched.text)")
            #expect(try patched.json["description"] == "stage, Wusong datum")
            let badThreshold = try await api.send(.patch, "/sta/v1.1/Datastreams(\(ds))", token: api.token(),
                                                  body: #"{"properties": {"thresholds": [{"level": "warning", "value": "high"}]}}"#)
            try expectProblem(badThreshold, status: 400, type: "invalid-body")
            #expect(try badThreshold.json["position"] == "$.properties.thresholds[0].value")

            let deleted = try await api.send(.delete, "/sta/v1.1/Things(\(thing))", token: api.token())
            #expect(deleted.status == .ok)
            try expectProblem(try await api.get("/sta/v1.1/Datastreams(\(ds))"), status: 404, type: "not-found")
            #expect(try await api.get("/sta/v1.1/Observations?$count=true").json["@iot.count"]?.integerValue == 0)
            #expect(try await api.get("/sta/v1.1/Locations").json["value"]?.arrayValue?.count == 1, "a Location outlives its Thing")
        }
    }
}

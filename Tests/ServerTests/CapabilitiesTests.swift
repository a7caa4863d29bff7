import GeoCore
import HummingbirdTesting
import Server
import Testing

@Suite("Landing page, conformance and collections")
struct CapabilitiesTests {
    @Test("the landing page links the API definition, its documentation, conformance and data")
    func landingPage() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/")
            #expect(r.status == .ok)
            let doc = try r.json
            #expect(linkHref(doc, rel: "service-desc", type: "application/vnd.oai.openapi+json;version=3.0") == "http://test.local/api")
            #expect(linkHref(doc, rel: "service-doc", type: "text/html") == "http://test.local/api.html")
            #expect(linkHref(doc, rel: "conformance") == "http://test.local/conformance")
            #expect(linkHref(doc, rel: "data") == "http://test.local/collections")
            #expect(linkHref(doc, rel: "self", type: "application/json") != nil)
            #expect(linkHref(doc, rel: "alternate", type: "text/html") != nil)
        }
    }

    @Test("conformance declares exactly the implemented classes")
    func conformance() async throws {
        try await ServerFixture.withAPI { client in
            let classes = try await client.get("/conformance").json["conformsTo"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(Set(classes) == [
                "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
                "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
                "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
                "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
                "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
                "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
                "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
                "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
                "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
                "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
                "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
                "http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
                "http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
                "http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison",
                "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
                "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus",
                "http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions",
                "http://www.opengis.net/spec/cql2/1.0/conf/temporal-functions",
                "http://www.opengis.net/spec/cql2/1.0/conf/arithmetic",
                "http://www.opengis.net/spec/cql2/1.0/conf/property-property",
                "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete",
                "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/update",
                "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/features",
                "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/optimistic-locking-etags",
                // OGC API Tiles Part 1
                "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core",
                "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset",
                "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list",
                "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
                "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/dataset-tilesets",
                "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/collections-selection",
                "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt",
                "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/oas30",
                // OGC API Processes Part 1
                "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core",
                "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/ogc-process-description",
                "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/json",
                "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/oas30",
                "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/job-list",
                "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/dismiss",
                // OGC API – 3D GeoVolumes (draft): collections with 3D Tiles containers
                "https://www.opengis.net/spec/ogcapi-geovolumes-1/1.0/conf/core",
                "https://www.opengis.net/spec/ogcapi-geovolumes-1/1.0/conf/3d-tiles",
            ])
        }
    }

    @Test("the public sees the open layer and not the not-shared one")
    func collectionsForAnonymous() async throws {
        try await ServerFixture.withAPI { client in
            let doc = try await client.get("/collections").json
            let ids = doc["collections"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids == ["shelters"])
            try expectProblem(try await client.get("/collections/wells"), status: 404, type: "collection-not-found")
            try expectProblem(try await client.get("/collections/wells/items"), status: 404, type: "collection-not-found")
        }
    }

    @Test("a collection has a CRS84 extent, the Part 2 CRS list, storageCrs and items links")
    func collection() async throws {
        try await ServerFixture.withAPI { client in
            let doc = try await client.get("/collections/shelters").json
            #expect(doc["id"] == "shelters")
            #expect(doc["title"] == "应急避难场所")
            #expect(doc["description"]?.stringValue?.contains("Emergency shelters") == true)
            #expect(doc["itemType"] == "feature")
            let bbox = doc["extent"]?["spatial"]?["bbox"]?.arrayValue?.first?.arrayValue?.compactMap(\.doubleValue) ?? []
            #expect(bbox.count == 4)
            if bbox.count == 4 {
                #expect(abs(bbox[0] - 114.3055) < 1e-9 && abs(bbox[1] - 30.5928) < 1e-9)
                #expect(abs(bbox[2] - 114.315) < 1e-9 && abs(bbox[3] - 30.603) < 1e-9)
            }
            #expect(doc["extent"]?["spatial"]?["crs"] == "http://www.opengis.net/def/crs/OGC/1.3/CRS84")
            #expect(doc["extent"]?["temporal"]?["interval"] != nil)
            let crs = doc["crs"]?.arrayValue?.compactMap(\.stringValue) ?? []
            for code in ["OGC/1.3/CRS84", "EPSG/0/4490", "EPSG/0/4326", "EPSG/0/4547", "EPSG/0/4526", "EPSG/0/3857"] {
                #expect(crs.contains("http://www.opengis.net/def/crs/\(code)"), "crs list lacks \(code)")
            }
            #expect(doc["storageCrs"] == "http://www.opengis.net/def/crs/EPSG/0/4490")
            #expect(linkHref(doc, rel: "items", type: "application/geo+json") != nil)
            #expect(linkHref(doc, rel: "self") == "http://test.local/collections/shelters?f=json")
        }
    }
}

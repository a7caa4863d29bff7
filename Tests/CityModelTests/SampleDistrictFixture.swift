import GeoCore
@testable import CityModel

/// The default district (seed 2026, full size), generated once per test process.
let defaultDistrict: Result<SampleDistrict, any Error> = Result { try SampleDistrict.generate() }

func generatedDistrict() throws -> SampleDistrict { try defaultDistrict.get() }

import CityModel
import GeoCore

/// The default district (seed 2026, full size), generated once per test process.
public let defaultDistrict: Result<SampleDistrict, any Error> = Result { try SampleDistrict.generate() }

public func generatedDistrict() throws -> SampleDistrict { try defaultDistrict.get() }

import Testing
@testable import CityModel

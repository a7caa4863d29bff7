import Testing
@testable import Tiles

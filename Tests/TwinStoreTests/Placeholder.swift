import Testing
@testable import TwinStore

import ProcessRuntime

/// The district's address data, not the request, is at fault: a job that ends on it is `failed`
/// naming the record and field.
extension AddressDataError: AnalysisFailure {
    public var failureMessage: String { "address data: \(description)" }
}

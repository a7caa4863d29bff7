// The filters a store evaluates (CQL2's `FilterExpression`, SensorThings `$filter`) are parsed in
// QueryLanguage; whoever reads a store reads them with it.
@_exported import QueryLanguage

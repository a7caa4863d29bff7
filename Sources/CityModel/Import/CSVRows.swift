import GeoCore

/// The importers' name for the project's one CSV reader, GeoCore's `CSVRecords` (RFC 4180 records,
/// BOM skipped, CR LF or LF, quoted fields with commas, quotes and line breaks). `package`: the
/// geocoder's batch reads its tables with it.
package typealias CSVRows = CSVRecords

/// A quoted field never closed (`CSVSyntaxError`).
package typealias CSVSyntaxFailure = CSVSyntaxError

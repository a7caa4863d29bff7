import GeoCore

/// The time the job table reads: when a job is submitted, claimed, renewed, reported or
/// finished, and so whether a lease has lapsed. Each store keeps one (`JobStore.jobClock`) and
/// reads it instead of the wall clock, so a test moves a store's time forward (`advance(by:)`)
/// to see a lease lapse instead of sleeping through it: the project's one injectable clock.
public typealias JobClock = TwinClock

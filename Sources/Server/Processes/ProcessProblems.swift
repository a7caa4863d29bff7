extension Problem.Kind {
    private static let processesExceptions = "http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/"

    /// OGC API Processes: the process id names no process.
    public static let noSuchProcess = Problem.Kind(slug: "no-such-process", title: "No such process", status: .notFound,
                                                   standardType: processesExceptions + "no-such-process")
    /// OGC API Processes: the job id names no job the caller may see (or a dismissed one).
    public static let noSuchJob = Problem.Kind(slug: "no-such-job", title: "No such job", status: .notFound,
                                               standardType: processesExceptions + "no-such-job")
    /// OGC API Processes: the job has not finished yet.
    public static let resultNotReady = Problem.Kind(slug: "result-not-ready", title: "Result not ready", status: .notFound,
                                                    standardType: processesExceptions + "result-not-ready")
    /// A process input is missing, unknown or has a bad value.
    public static let invalidInput = Problem.Kind(slug: "invalid-input", title: "Invalid process input", status: .badRequest)
    /// The analysis could not answer from the district's data (a network that does not connect,
    /// a hydraulic model that cannot be solved); `detail` says why.
    public static let analysisFailed = Problem.Kind(slug: "analysis-failed", title: "Analysis failed", status: .unprocessableContent)
}

import Foundation

extension SignalTiming {
    /// The length a queued vehicle takes up in its lane (m): a car and its gap, to read a queue in metres.
    public static let queuedVehicleSpacing = 7.5

    /// A percentile of a cycle's back of queue in one lane (veh): the vehicles that stop before the
    /// queue clears. With Poisson arrivals and departures one saturation headway apart, a green that
    /// starts with a Poisson number of vehicles waiting (mean `startingQueue`: the red's arrivals and the
    /// overflow) serves, until the queue first clears, a number of vehicles that follows Consul's
    /// generalised Poisson distribution, P(n) = θ(θ + nρ)ⁿ⁻¹e^(−θ−nρ)/n! with θ the starting queue and
    /// ρ = y the flow ratio (the busy period of that queue, Borel–Tanner for each starting count). Its mean
    /// θ/(1 − y) is the vehicles a deterministic queue stops, q·r/(1 − y) (HCM 2000's uniform back of queue
    /// below capacity, as recalled: the text was not at hand), plus the overflow's share; the percentile is
    /// the smallest n whose cumulative probability reaches `p`. The queue is a point queue at the stop
    /// line: vehicles that join it while it discharges count, as in HCM's back of queue. `nil` for y ≥ 1.
    public static func backOfQueuePercentile(_ p: Double, startingQueue theta: Double, flowRatio rho: Double) -> Double? {
        guard p > 0, p < 1 else { return nil }
        var reached: Int?
        guard backOfQueueCumulative(startingQueue: theta, flowRatio: rho, until: { n, cumulative in
            if cumulative >= p { reached = n }
            return reached != nil
        }) else { return nil }
        return reached.map(Double.init)
    }

    /// The probability that a cycle's back of queue in one lane exceeds `vehicles` (the same
    /// distribution as `backOfQueuePercentile`); `nil` for y ≥ 1.
    public static func backOfQueueExceedance(_ vehicles: Int, startingQueue theta: Double, flowRatio rho: Double) -> Double? {
        var below = 0.0
        guard backOfQueueCumulative(startingQueue: theta, flowRatio: rho, until: { n, cumulative in
            below = cumulative
            return n >= vehicles
        }) else { return nil }
        return max(0, 1 - below)
    }

    /// Walks the back of queue's cumulative distribution P(B ≤ n), n = 0, 1, …, until `stop` says so;
    /// false when the distribution is undefined (y ≥ 1, a bad starting queue) or the walk runs away.
    static func backOfQueueCumulative(startingQueue theta: Double, flowRatio rho: Double,
                                      until stop: (Int, Double) -> Bool) -> Bool {
        guard rho >= 0, rho < 1, theta.isFinite, theta >= 0 else { return false }
        var cumulative = exp(-theta)
        var n = 0
        while !stop(n, cumulative) {
            n += 1
            if n > 100_000 { return false }
            let m = Double(n)
            cumulative += exp(log(theta) + (m - 1) * log(theta + m * rho) - theta - m * rho - lgamma(m + 1))
        }
        return true
    }
}

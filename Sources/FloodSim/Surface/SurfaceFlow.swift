import GeoCore

/// 2D surface flooding by the local inertial scheme (Bates et al. 2010, de Almeida et al. 2012;
/// flood.md §4): depth on cells, unit discharge on faces, θ-weighted momentum with semi-implicit
/// Manning friction, an adaptive CFL time step Δt = α·Δx/√(g·h_max), wetting and drying by a
/// face-depth threshold, rain on grid, cell losses, buildings that block flow, open or closed
/// edges, inflow hydrographs, fixed-level cells and point sources/sinks set between steps (the
/// 1D–2D coupling). Every step keeps a continuity account (`volumeBalance`).
///
/// The grid is swept in row bands on `settings.threads` threads; results are bit-for-bit the
/// same on any number of threads. One instance is one run: not safe to use from two threads.
public final class SurfaceFlow {
    public let domain: SurfaceDomain
    public let rainfall: SurfaceRainfall
    public let settings: SurfaceFlowSettings
    /// Simulated time in seconds since the start.
    public private(set) var time = 0.0
    /// Steps taken.
    public private(set) var steps = 0
    /// Length of the last step in seconds (0 before the first).
    public private(set) var lastTimeStep = 0.0

    let kernel: SurfaceKernel
    private var balance = SurfaceVolumeBalance()
    private let cellArea: Double
    private let rainArea: Double
    private var deepest = 0.0
    private var fastest = 0.0
    private var inflowCells: [Int]
    private var fixedLevelCells: [[Int]]
    private var sourceSlots: [Int: Int] = [:]
    private var sourceCells: [Int] = []
    private var sourceRates: [Double] = []
    private var sourceApplied: [Double] = []

    /// - Parameters:
    ///   - domain: the ground, roughness, buildings, losses and boundaries.
    ///   - rainfall: rain on grid; its cell weights must match the elevation grid's size.
    ///   - initialDepth: water depth in metres at time 0 (no-data or negative cells start dry).
    /// - Throws: `FloodInputError` for settings out of range, a companion grid
    ///   of another size, or an inflow or fixed-level cell on a building.
    public init(domain: SurfaceDomain, rainfall: SurfaceRainfall = .none, settings: SurfaceFlowSettings = .init(),
                initialDepth: Grid? = nil) throws {
        guard settings.cflFactor > 0, settings.cflFactor <= 1 else {
            throw FloodInputError("CFL factor α must be in (0, 1], got \(settings.cflFactor)", field: "settings.cflFactor")
        }
        guard settings.theta >= 0, settings.theta <= 1 else {
            throw FloodInputError("θ must be in [0, 1], got \(settings.theta)", field: "settings.theta")
        }
        guard settings.dryDepth > 0, settings.dryDepth.isFinite else {
            throw FloodInputError("dry depth must be > 0 m, got \(settings.dryDepth)", field: "settings.dryDepth")
        }
        guard settings.maxTimeStep > 0, settings.maxTimeStep.isFinite else {
            throw FloodInputError("maximum time step must be > 0 s, got \(settings.maxTimeStep)", field: "settings.maxTimeStep")
        }
        guard settings.gravity > 0, settings.gravity.isFinite else {
            throw FloodInputError("gravity must be > 0 m/s², got \(settings.gravity)", field: "settings.gravity")
        }
        guard settings.threads >= 1 else {
            throw FloodInputError("threads must be ≥ 1, got \(settings.threads)", field: "settings.threads")
        }
        for grid in [rainfall.cellWeights, initialDepth].compactMap({ $0 })
        where grid.width != domain.width || grid.height != domain.height {
            throw FloodInputError(
                                "a \(grid.width) x \(grid.height) grid does not match the \(domain.width) x \(domain.height) elevation grid",
                                field: grid == initialDepth ? "initialDepth" : "rainfall.cellWeights")
        }
        let w = domain.width
        inflowCells = try domain.boundary.inflows.enumerated().map { i, inflow in
            guard !domain.isBlocked(inflow.cell) else {
                throw FloodInputError("an inflow cannot enter a building or no-data \(inflow.cell)",
                                    field: "boundary.inflows[\(i)]")
            }
            return inflow.cell.row * w + inflow.cell.column
        }
        fixedLevelCells = try domain.boundary.fixedLevels.enumerated().map { i, level in
            try level.cells.map { cell in
                guard !domain.isBlocked(cell) else {
                    throw FloodInputError("a fixed level cannot be held on a building or no-data \(cell)",
                                        field: "boundary.fixedLevels[\(i)]")
                }
                return cell.row * w + cell.column
            }
        }
        self.domain = domain
        self.rainfall = rainfall
        self.settings = settings
        kernel = SurfaceKernel(domain: domain, rainWeights: rainfall.cellWeights, settings: settings)
        cellArea = domain.cellSize * domain.cellSize
        var weightSum = 0.0
        for i in 0..<(w * domain.height) { weightSum += Double(kernel.rainWeight[i]) }
        rainArea = weightSum * cellArea
        if let initialDepth {
            for i in 0..<(w * domain.height) where !kernel.blocked[i] {
                let v = initialDepth.values[i]
                let d = initialDepth.isValid(v) && v > 0 ? Double(v) : 0
                kernel.h[i] = d
                kernel.maxDepth[i] = Float(d)
            }
        }
        applyFixedLevels(at: 0, account: false)
        deepest = currentMaxDepth()
        balance.initialStorage = storage()
        balance.stageFillCapacity = stageFillCapacity()
    }

    /// `SurfaceVolumeBalance.stageFillCapacity`: every open cell that is not held filled from its
    /// ground (or its start depth) to the highest stage of any fixed level, and each held cell
    /// from its start level to its own level's highest stage, in m³. A stage is linear between
    /// its breakpoints, so its highest value is at one of them.
    private func stageFillCapacity() -> Double {
        let levels = domain.boundary.fixedLevels
        guard !levels.isEmpty else { return 0 }
        let highest = levels.map { $0.stage.values.max() ?? -.infinity }
        let top = highest.max() ?? -.infinity
        var held = Set<Int>()
        var volume = 0.0
        for (n, cells) in fixedLevelCells.enumerated() {
            for i in cells where held.insert(i).inserted {
                volume += Swift.max(0, highest[n] - (Double(kernel.z[i]) + kernel.h[i]))
            }
        }
        for i in 0..<(domain.width * domain.height) where !kernel.blocked[i] && !held.contains(i) {
            volume += Swift.max(0, top - (Double(kernel.z[i]) + kernel.h[i]))
        }
        return volume * cellArea
    }

    // MARK: Stepping

    /// The CFL time step for the current state: α·Δx/(√(g·h_max) + u_max), at most
    /// `settings.maxTimeStep`.
    ///
    /// flood.md §4.4 gives α·Δx/√(g·h_max). The added u_max (the fastest |q|/h_f on a wet face
    /// in the last step) matters only for shallow fast sheet flow, where the plain formula allows
    /// steps in which a cell's outflow exceeds its water: on a 1 % rain-fed plane with 10 s steps
    /// the faces then alternate between full and empty every step (a checkerboard) and depths
    /// come out 85 % low; with u_max the plane converges to the Manning depth.
    ///
    /// α is also capped at 0.95·√(θ/2): a von Neumann analysis of the 2D checkerboard mode of the
    /// θ-weighted scheme (smoothing factor s = 2θ − 1 on q) gives stability only for
    /// c·Δt/Δx ≤ √((1 + s)/4) = √(θ/2), i.e. 0.632 for θ = 0.8 and 0.707 for θ = 1. With α = 0.7
    /// and θ = 0.8 a lake at rest over bumps amplifies rounding noise into 0.1 m waves in 600 s.
    public var stableTimeStep: Double {
        let speed = (settings.gravity * deepest).squareRoot() + fastest
        guard speed > 0 else { return settings.maxTimeStep }
        let alpha = Swift.min(settings.cflFactor, 0.95 * (settings.theta / 2).squareRoot())
        return Swift.min(settings.maxTimeStep, alpha * domain.cellSize / speed)
    }

    /// Advances one step of `stableTimeStep`, or of `maxTimeStep` when that is shorter (a coupled
    /// loop passes its own step). Point sources hold their last set discharge.
    /// - Returns: the step length in seconds.
    @discardableResult
    public func step(maxTimeStep: Double? = nil) -> Double {
        var dt = stableTimeStep
        if let maxTimeStep, maxTimeStep > 0, maxTimeStep < dt { dt = maxTimeStep }
        let t1 = time + dt
        let rain = rainfall.depth(from: time, to: t1)
        kernel.step(dt: dt, timeAfterStep: t1, rainDepth: rain)
        balance.rain += rain * rainArea
        var newDeepest = 0.0, newFastest = 0.0
        for b in kernel.bands.indices {
            balance.losses += kernel.bandLoss[b]
            balance.boundaryOutflow += kernel.bandOutflow[b]
            newDeepest = Swift.max(newDeepest, kernel.bandMaxDepth[b])
            newFastest = Swift.max(newFastest, kernel.bandMaxSpeed[b])
        }
        deepest = newDeepest
        fastest = newFastest
        applyInflows(from: time, to: t1)
        applySources(dt: dt)
        applyFixedLevels(at: t1, account: true)
        time = t1
        lastTimeStep = dt
        steps += 1
        return dt
    }

    /// Steps until `endTime` seconds (the last step is shortened to land on it) and returns the result.
    /// - Parameter progress: called every `settings.progressInterval` steps and at the end: stage
    ///   `surface flow`, simulated seconds of `endTime`.
    public func run(until endTime: Double, progress: ((WorkProgress) -> Void)? = nil) -> SurfaceFlowResult {
        while time < endTime - 1e-9 {
            step(maxTimeStep: endTime - time)
            if let progress, steps % Swift.max(1, settings.progressInterval) == 0 {
                progress(progressReport(endTime: endTime))
            }
        }
        progress?(progressReport(endTime: endTime))
        return result()
    }

    private func progressReport(endTime: Double) -> WorkProgress {
        WorkProgress(stage: "surface flow", completed: time, total: endTime, unit: "s")
    }

    // MARK: Point sources (1D–2D coupling)

    /// Sets a point source (positive, m³/s onto the surface) or sink (negative, off the surface)
    /// at `cell`, held for the following steps until set again. A sink never takes more than
    /// the cell holds; `appliedSource(at:)` tells what it actually took.
    /// - Throws: `FloodInputError` for a cell outside the grid or on a building,
    ///   or a discharge that is not finite.
    public func setSource(_ discharge: Double, at cell: SurfaceCell) throws {
        guard cell.column >= 0, cell.column < domain.width, cell.row >= 0, cell.row < domain.height else {
            throw FloodInputError("\(cell) is outside the \(domain.width) x \(domain.height) grid", field: "source")
        }
        guard discharge.isFinite else {
            throw FloodInputError("source discharge must be finite, got \(discharge)", field: "source at \(cell)")
        }
        let i = cell.row * domain.width + cell.column
        guard !kernel.blocked[i] else {
            throw FloodInputError("a point source cannot sit on a building or no-data \(cell)", field: "source")
        }
        if let slot = sourceSlots[i] {
            sourceRates[slot] = discharge
        } else {
            sourceSlots[i] = sourceCells.count
            sourceCells.append(i)
            sourceRates.append(discharge)
            sourceApplied.append(0)
        }
    }

    /// Sets every point source back to zero.
    public func removeAllSources() {
        for slot in sourceRates.indices { sourceRates[slot] = 0 }
    }

    /// Discharge in m³/s that the source at `cell` exchanged in the last step (positive onto the
    /// surface); differs from the set value when a sink ran the cell dry.
    public func appliedSource(at cell: SurfaceCell) -> Double {
        guard cell.column >= 0, cell.column < domain.width, cell.row >= 0, cell.row < domain.height,
              let slot = sourceSlots[cell.row * domain.width + cell.column] else { return 0 }
        return sourceApplied[slot]
    }

    private func applySources(dt: Double) {
        for slot in sourceCells.indices {
            let i = sourceCells[slot]
            var volume = sourceRates[slot] * dt
            if volume >= 0 {
                balance.sourceInflow += volume
            } else {
                volume = -Swift.min(-volume, kernel.h[i] * cellArea)
                balance.sourceOutflow -= volume
            }
            sourceApplied[slot] = volume / dt
            setDepth(Swift.max(0, kernel.h[i] + volume / cellArea), index: i, at: time + dt)
        }
    }

    private func applyInflows(from t0: Double, to t1: Double) {
        for (n, inflow) in domain.boundary.inflows.enumerated() {
            let volume = 0.5 * (inflow.discharge.value(at: t0) + inflow.discharge.value(at: t1)) * (t1 - t0)
            guard volume > 0 else { continue }
            let i = inflowCells[n]
            balance.boundaryInflow += volume
            setDepth(kernel.h[i] + volume / cellArea, index: i, at: t1)
        }
    }

    private func applyFixedLevels(at t: Double, account: Bool) {
        for (n, level) in domain.boundary.fixedLevels.enumerated() {
            let stage = level.stage.value(at: t)
            for i in fixedLevelCells[n] {
                let target = Swift.max(0, stage - Double(kernel.z[i]))
                let change = (target - kernel.h[i]) * cellArea
                if account {
                    if change > 0 {
                        balance.boundaryInflow += change
                        balance.stageInflow += change
                    } else {
                        balance.boundaryOutflow -= change
                        balance.stageOutflow -= change
                    }
                }
                setDepth(target, index: i, at: t)
            }
        }
    }

    private func setDepth(_ depth: Double, index i: Int, at t: Double) {
        kernel.h[i] = depth
        let stored = Float(depth)
        if stored > kernel.maxDepth[i] {
            kernel.maxDepth[i] = stored
            kernel.timeOfMax[i] = Float(t)
        }
        if depth > deepest { deepest = depth }
    }

    // MARK: State and results

    /// Water depth in metres at `cell` (0 outside the grid).
    public func depth(at cell: SurfaceCell) -> Double {
        guard cell.column >= 0, cell.column < domain.width, cell.row >= 0, cell.row < domain.height else { return 0 }
        return kernel.h[cell.row * domain.width + cell.column]
    }

    /// Water-surface elevation (ground + depth) in metres at `cell` (NaN outside the grid or on a building).
    public func waterLevel(at cell: SurfaceCell) -> Double {
        guard cell.column >= 0, cell.column < domain.width, cell.row >= 0, cell.row < domain.height else { return .nan }
        let i = cell.row * domain.width + cell.column
        return kernel.blocked[i] ? .nan : Double(kernel.z[i]) + kernel.h[i]
    }

    /// Greatest |unit discharge| on any face, in m²/s (a lake at rest has 0).
    public var maxUnitDischarge: Double {
        var m = 0.0
        for i in 0..<(domain.height * (domain.width + 1)) { m = Swift.max(m, Double(abs(kernel.qxOld[i]))) }
        for i in 0..<((domain.height + 1) * domain.width) { m = Swift.max(m, Double(abs(kernel.qyOld[i]))) }
        return m
    }

    /// The continuity account up to now.
    public var volumeBalance: SurfaceVolumeBalance {
        var b = balance
        b.storage = storage()
        return b
    }

    /// Depth, maximum depth and its time as grids on the elevation grid's geometry, with the
    /// continuity account.
    public func result() -> SurfaceFlowResult {
        let n = domain.width * domain.height
        func grid(_ value: (Int) -> Float) -> Grid {
            var g = domain.elevation
            g.noData = nil
            g.withUnsafeMutableValues { out in for i in 0..<n { out[i] = value(i) } }
            return g
        }
        let k = kernel
        return SurfaceFlowResult(depth: grid { Float(k.h[$0]) }, maxDepth: grid { k.maxDepth[$0] },
                                 timeOfMaxDepth: grid { k.timeOfMax[$0] }, time: time, steps: steps,
                                 volumeBalance: volumeBalance)
    }

    private func storage() -> Double {
        var total = 0.0
        for i in 0..<(domain.width * domain.height) { total += kernel.h[i] }
        return total * cellArea
    }

    private func currentMaxDepth() -> Double {
        var m = 0.0
        for i in 0..<(domain.width * domain.height) { m = Swift.max(m, kernel.h[i]) }
        return m
    }
}

/// Times a closure with the monotonic clock.
enum Stopwatch {
    /// Seconds `body` took.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The fastest of `rounds` runs of `body` (the one least disturbed by the rest of the machine).
    static func best(of rounds: Int, _ body: () throws -> Void) rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<rounds { best = min(best, try seconds(body)) }
        return best
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at the ends of `Int64` (about 292 years either way).
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? (seconds < 0 ? .min : .max) : sum
    }

    /// Whole milliseconds (truncated), as libcurl's `*_MS` options take them; saturating.
    var wholeMilliseconds: Int { Int(wholeNanoseconds / 1_000_000) }

    /// Seconds rounded up to a whole number, for libcurl options that count whole seconds; saturating.
    var roundedUpSeconds: Int {
        let (seconds, attoseconds) = components
        return Int(attoseconds > 0 && seconds < .max ? seconds + 1 : seconds)
    }

    /// Nanoseconds to add to a `DispatchTime` uptime: never negative.
    var uptimeNanoseconds: UInt64 { UInt64(max(0, wholeNanoseconds)) }
}

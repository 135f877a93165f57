import Dispatch

extension Duration {
    /// Whole milliseconds, a fraction rounded up, so a positive duration never becomes 0 (which hiredis
    /// reads as "no limit"); a negative duration is 0. Saturates at `Int64.max`; the connection clamps its
    /// timeouts to hiredis's `int` milliseconds.
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        guard seconds < Int64.max / 1000 - 1 else { return Int(Int64.max) }
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        var milliseconds = seconds * 1000 + attoseconds / attosecondsPerMillisecond
        if attoseconds % attosecondsPerMillisecond > 0 { milliseconds += 1 }
        return Int(max(0, milliseconds))
    }

    /// The same duration for a `DispatchTime` deadline (whole milliseconds, rounded up).
    var dispatchInterval: DispatchTimeInterval { .milliseconds(Int(clamping: Int32(clamping: roundedUpMilliseconds))) }
}

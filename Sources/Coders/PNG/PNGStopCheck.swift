internal import CPNG
import WebImageCore

/// The deadline and cancellation of the current decode call, asked by libpng's progressive reader between
/// rows (``cpng_stop_check``). The reader holds an unretained pointer to it, so its owner
/// (``PNGIncrementalDecoder``) keeps it alive as long as the reader.
final class PNGStopCheck {
    /// The clock of the decode call in progress; replaced at the start of each call.
    var watch = DecodeWatch.unlimited
    /// Why the reader was told to stop, kept for the Swift side to throw.
    private(set) var reason: ImageError?

    /// Starts the clock of a new decode call (a whole decode or one incremental step).
    func start(_ options: DecodeOptions) {
        watch = options.startWatch()
        reason = nil
    }

    /// Carries on with the clock of an earlier call on the same file (a whole decode started over, see
    /// ``PNGIncrementalDecoder/decodeComplete(_:continuing:)``), so the second attempt gets no new budget.
    func resume(_ watch: DecodeWatch) {
        self.watch = watch
        reason = nil
    }

    /// Installs the check on `reader`.
    func attach(to reader: OpaquePointer) {
        cpng_reader_check_stop(
            reader,
            { context in
                let check = Unmanaged<PNGStopCheck>.fromOpaque(context!).takeUnretainedValue()
                check.reason = check.watch.stopReason
                return check.reason == nil ? 0 : 1
            }, Unmanaged.passUnretained(self).toOpaque())
    }
}

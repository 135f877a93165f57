internal import CJPEG
import WebImageCore

/// The `DecodeWatch` of one call into the C decoder, handed to it as the context of its stop check
/// (`cjpeg_decoder_set_stop_check`): libjpeg's progress monitor and the decoder's loops ask it between
/// rows, scans and passes, and the decoder stops with `CJPEG_STOPPED` once it answers "stop".
///
/// Lives for one call only, on the thread making it, so it needs no lock.
final class JPEGStopCheck {
    private let watch: DecodeWatch
    /// Why the check said stop (the time budget, or cancellation); nil while it has not.
    private(set) var reason: ImageError?

    init(watch: DecodeWatch) { self.watch = watch }

    /// Runs `call` (one C entry point) with this check installed on `decoder`, and clears it afterwards.
    /// The C decoder holds the pointer to `self` unretained, only until it is cleared; `self` is kept
    /// alive for that whole time by `withExtendedLifetime`.
    func run(on decoder: OpaquePointer, _ call: () -> Int32) -> Int32 {
        withExtendedLifetime(self) {
            cjpeg_decoder_set_stop_check(decoder, Self.shouldStop, Unmanaged.passUnretained(self).toOpaque())
            defer { cjpeg_decoder_set_stop_check(decoder, nil, nil) }
            return call()
        }
    }

    /// The C callback: 1 (stop) once the watch has a stop reason, which is kept for the caller.
    private static let shouldStop: cjpeg_stop_check = { context in
        guard let context else { return 0 }
        let check = Unmanaged<JPEGStopCheck>.fromOpaque(context).takeUnretainedValue()
        if check.reason == nil { check.reason = check.watch.stopReason }
        return check.reason == nil ? 0 : 1
    }
}

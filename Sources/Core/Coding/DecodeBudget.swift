import Foundation
import Synchronization

/// The budgets of ``DecodeOptions`` a decode can run out of; named by
/// ``ImageError/decodeBudgetExceeded(_:value:limit:)``. The pixel limit of one frame has its own error,
/// ``ImageError/imageTooLarge(width:height:limit:)``.
public enum DecodeBudget: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ``DecodeOptions/maxFrameCount``.
    case frameCount
    /// ``DecodeOptions/maxTotalPixelCount``.
    case totalPixels
    /// ``DecodeOptions/maxProgressiveScanCount``.
    case progressiveScans
    /// ``DecodeOptions/timeLimit``.
    case time
    /// Memory a C library would allocate for its own tables (not pixels), estimated from the header and
    /// bounded by the pixel limit as RGBA bytes.
    case decoderMemory

    public var description: String {
        switch self {
        case .frameCount: "frame count"
        case .totalPixels: "total pixels"
        case .progressiveScans: "progressive scan"
        case .time: "time"
        case .decoderMemory: "decoder memory"
        }
    }

    /// Unit of the values reported with this budget.
    public var unit: String {
        switch self {
        case .frameCount: "frames"
        case .totalPixels: "pixels"
        case .progressiveScans: "scans"
        case .time: "ms"
        case .decoderMemory: "bytes"
        }
    }
}

/// Stops decodes from another thread: pass it in ``DecodeOptions/cancellation`` and call ``cancel()``.
/// Decodes check it between rows, scans, chunks and frames and stop with ``ImageError/cancelled``.
public final class DecodeCancellation: Sendable, Hashable {
    /// Set once by ``cancel()``; an atomic because decodes read it per row from any thread.
    private let flag = Atomic(false)

    /// A token not cancelled yet.
    public init() {}

    /// Asks every decode that holds this token to stop.
    public func cancel() { flag.store(true, ordering: .releasing) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    public static func == (lhs: DecodeCancellation, rhs: DecodeCancellation) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The clock of one decode call: started by ``DecodeOptions/startWatch()`` when the call begins, checked
/// by the coder between units of work (rows, scans, chunks, frames), including from C callbacks.
public struct DecodeWatch: Sendable {
    private let start: ContinuousClock.Instant
    private let deadline: ContinuousClock.Instant?
    private let limit: Duration?
    private let cancellation: DecodeCancellation?

    init(limit: Duration?, cancellation: DecodeCancellation?) {
        let now = ContinuousClock.now
        start = now
        self.limit = limit
        deadline = limit.map { now + $0 }
        self.cancellation = cancellation
    }

    /// A watch that never stops anything.
    public static let unlimited = DecodeWatch(limit: nil, cancellation: nil)

    /// Throws `.cancelled` when the decode was cancelled (its token, or the `Task` it runs in) and
    /// `.decodeBudgetExceeded(.time, ...)` past the time limit.
    public func check() throws(ImageError) {
        if Task.isCancelled || cancellation?.isCancelled == true { throw .cancelled }
        if let deadline, ContinuousClock.now > deadline {
            throw .decodeBudgetExceeded(
                .time, value: Self.milliseconds(ContinuousClock.now - start),
                limit: Self.milliseconds(limit ?? .zero))
        }
    }

    /// The error ``check()`` would throw now, or nil: for C callbacks that can only answer "stop".
    public var stopReason: ImageError? {
        do throws(ImageError) { try check(); return nil } catch { return error }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

extension DecodeOptions {
    /// Starts the clock of one decode call (whole decode, incremental step or lazy frame).
    public func startWatch() -> DecodeWatch {
        DecodeWatch(limit: timeLimit, cancellation: cancellation)
    }

    /// Throws `.decodeBudgetExceeded(.frameCount, ...)` when an animation of `count` frames is over
    /// ``maxFrameCount``; never with ``firstFrameOnly``.
    public func checkFrameCount(_ count: Int) throws(ImageError) {
        guard !firstFrameOnly, count > maxFrameCount else { return }
        throw .decodeBudgetExceeded(.frameCount, value: count, limit: maxFrameCount)
    }

    /// Throws `.decodeBudgetExceeded(.totalPixels, ...)` when `pixels` of work are over
    /// ``maxTotalPixelCount``.
    public func checkTotalPixels(_ pixels: Int) throws(ImageError) {
        guard pixels > maxTotalPixelCount else { return }
        throw .decodeBudgetExceeded(.totalPixels, value: pixels, limit: maxTotalPixelCount)
    }

    /// Checks, before any frame is decoded, the frame count and the work of decoding an animation:
    /// each frame composed onto the canvas plus its own rectangle (`frameSizes`, as stored in the file
    /// before any clipping) decompressed. With ``firstFrameOnly`` only frame 0 counts.
    public func checkAnimationWork(
        canvasWidth: Int, canvasHeight: Int,
        frameSizes: some Sequence<PixelSize>
    ) throws(ImageError) {
        let canvas = canvasWidth.multipliedReportingOverflow(by: canvasHeight)
        var total = 0
        var frames = 0
        for size in frameSizes {
            frames += 1
            let area = size.width.multipliedReportingOverflow(by: size.height)
            let sum = total.addingReportingOverflow(area.partialValue)
            let withCanvas = sum.partialValue.addingReportingOverflow(canvas.partialValue)
            if canvas.overflow || area.overflow || sum.overflow || withCanvas.overflow {
                throw .decodeBudgetExceeded(.totalPixels, value: .max, limit: maxTotalPixelCount)
            }
            total = withCanvas.partialValue
            try checkTotalPixels(total)
            if firstFrameOnly { return }
        }
        try checkFrameCount(frames)
    }
}

import Foundation
import WebImageCore

/// The frames of an AVIF image sequence, decoded on demand by one libavif decoder kept for the
/// animation's life. AV1 frames cover the whole canvas (no blending or disposal), so a frame is its
/// decoded picture; libavif decodes from the nearest key frame when asked for a frame out of order.
final class AVIFFrameSource: AnimatedFrameSource {
    /// The parsed file and its decoder; libavif's decoder is stateful (current frame, reference
    /// frames), so one frame is decoded at a time under this lock.
    private let decoder: Locked<AVIFDecoder>
    let canvasWidth: Int
    let canvasHeight: Int
    let frameCount: Int
    /// libavif 0.11 does not read the edit list's repetition, so sequences play forever, as most do.
    let loopCount = 0
    private let durations: [Duration]
    private let layout: PixelLayout
    /// Each composed frame starts its own watch from these.
    private let options: DecodeOptions

    /// Wraps `decoder` (already parsed and checked against the budgets); no frame is decoded.
    init(decoder: sending AVIFDecoder, options: DecodeOptions) {
        canvasWidth = decoder.width
        canvasHeight = decoder.height
        frameCount = decoder.frameCount
        durations = (0..<decoder.frameCount).map { AVIFFrameSource.playable(decoder.duration(at: $0)) }
        layout = decoder.hasAlpha ? .rgba8 : .rgb8
        self.options = options
        self.decoder = Locked(decoder)
    }

    /// Durations browsers would play: a frame of 10 ms or less shows for 100 ms, as for GIF and WebP.
    private static func playable(_ duration: Duration) -> Duration {
        duration <= tinyDuration ? tinyDurationPlaysAs : duration
    }

    /// Durations at or under this are treated as a missing duration (browsers' rule).
    private static let tinyDuration: Duration = .milliseconds(10)
    /// What a missing or tiny duration plays as.
    private static let tinyDurationPlaysAs: Duration = .milliseconds(100)

    func duration(at index: Int) -> Duration { durations[index] }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        let watch = options.startWatch()
        let layout = layout
        let frame = try decoder.withLock { decoder throws(ImageError) in
            try decoder.decodeFrame(at: index, layout: layout, watch: watch)
        }
        return ComposedFrame(frame: frame, nextBackground: nil)
    }
}

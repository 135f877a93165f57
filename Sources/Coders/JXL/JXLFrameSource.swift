import Foundation
import WebImageCore

/// The frames of a JPEG XL animation, decoded on demand by one libjxl decoder kept for the animation's
/// life. libjxl composes (coalesces) each displayed frame onto the canvas itself, so a frame is its decoded
/// picture; asking for an earlier frame rewinds the decoder and skips to it.
final class JXLFrameSource: AnimatedFrameSource {
    /// The file and its decoder, which is stateful (its position in the file): one frame at a time.
    private let decoder: Locked<JXLDecoder>
    let canvasWidth: Int
    let canvasHeight: Int
    let loopCount: Int
    private let durations: [Duration]
    var frameCount: Int { durations.count }
    /// Each composed frame starts its own watch from these.
    private let options: DecodeOptions

    /// Durations at or under this many seconds play as ``tinyDurationPlaysAs`` (browsers' rule for GIF,
    /// WebP and AVIF too).
    private static let tinyDuration: Duration = .milliseconds(10)
    private static let tinyDurationPlaysAs: Duration = .milliseconds(100)

    init(decoder: sending JXLDecoder, durations: [Duration], options: DecodeOptions) {
        let size = decoder.outputSize
        canvasWidth = size.width
        canvasHeight = size.height
        loopCount = Int(decoder.info.animation.num_loops)
        self.durations = durations.map { $0 <= Self.tinyDuration ? Self.tinyDurationPlaysAs : $0 }
        self.options = options
        self.decoder = Locked(decoder)
    }

    func duration(at index: Int) -> Duration { durations[index] }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        let watch = options.startWatch()
        let frame = try decoder.withLock { decoder throws(ImageError) in
            if index < decoder.nextFrame { try decoder.rewind() }
            decoder.skip(index - decoder.nextFrame)
            return try decoder.decodeNextFrame(layout: .rgba8, watch: watch)
        }
        return ComposedFrame(frame: frame, nextBackground: nil)
    }
}

import Foundation
import WebImageCore

/// One frame's `fcTL` chunk: where the frame goes on the canvas, how long it shows, and how it is
/// blended and disposed of.
struct APNGFrameControl: Sendable, Hashable {
    /// What happens to the frame's rectangle after it was shown (`dispose_op`).
    enum Dispose: UInt8, Sendable {
        /// The canvas stays as the frame left it.
        case none = 0
        /// The frame's rectangle becomes transparent black.
        case background = 1
        /// The rectangle goes back to what it was before the frame was drawn.
        case previous = 2
    }

    /// How the frame's pixels meet the canvas (`blend_op`).
    enum Blend: UInt8, Sendable {
        /// The frame's pixels, alpha included, replace the canvas's.
        case source = 0
        /// The frame is alpha-composited over the canvas.
        case over = 1
    }

    /// The `fcTL` data is exactly 26 bytes.
    static let byteCount = 26

    /// Shortest delay played as written. Chrome and Firefox play a frame of 10 ms or less as 100 ms
    /// (a rule from animated GIFs that they apply to APNG too), so very fast "flashing" animations
    /// look the same here as in a browser. The GIF and WebP coders use the same rule.
    static let shortestHonouredDelay: Duration = .milliseconds(10)
    /// What a delay at or under ``shortestHonouredDelay`` plays as.
    static let replacementDelay: Duration = .milliseconds(100)

    let sequenceNumber: UInt32
    let width: Int
    let height: Int
    let x: Int
    let y: Int
    let delayNumerator: UInt16
    let delayDenominator: UInt16
    let dispose: Dispose
    let blend: Blend

    /// Display time: `delay_num / delay_den` seconds, where a denominator of 0 means 100
    /// (hundredths of a second), then the browsers' short-delay rule.
    var duration: Duration {
        let denominator = delayDenominator == 0 ? 100 : Int(delayDenominator)
        let delay = Duration.seconds(Int(delayNumerator)) / denominator
        return delay <= Self.shortestHonouredDelay ? Self.replacementDelay : delay
    }

    init(
        sequenceNumber: UInt32, width: Int, height: Int, x: Int, y: Int, delayNumerator: UInt16,
        delayDenominator: UInt16, dispose: Dispose, blend: Blend
    ) {
        self.sequenceNumber = sequenceNumber
        self.width = width
        self.height = height
        self.x = x
        self.y = y
        self.delayNumerator = delayNumerator
        self.delayDenominator = delayDenominator
        self.dispose = dispose
        self.blend = blend
    }

    /// Parses the data of an `fcTL` chunk at `range` of `bytes`, checking that the frame lies inside a
    /// canvas of `canvasWidth` x `canvasHeight`.
    init(_ bytes: [UInt8], range: Range<Int>, canvasWidth: Int, canvasHeight: Int) throws(ImageError) {
        guard range.count == Self.byteCount else {
            throw .badImageData(reason: "APNG: fcTL has \(range.count) bytes, not 26")
        }
        let at = range.lowerBound
        let read = { (offset: Int) in Int(PNGChunkStream.readUInt32(bytes, at: at + offset)) }
        guard let dispose = Dispose(rawValue: bytes[at + 24]), let blend = Blend(rawValue: bytes[at + 25]) else {
            throw .badImageData(reason: "APNG: unknown dispose_op \(bytes[at + 24]) or blend_op \(bytes[at + 25])")
        }
        self.init(
            sequenceNumber: UInt32(read(0)), width: read(4), height: read(8), x: read(12), y: read(16),
            delayNumerator: PNGChunkStream.readUInt16(bytes, at: at + 20),
            delayDenominator: PNGChunkStream.readUInt16(bytes, at: at + 22), dispose: dispose, blend: blend)
        // Every value is a 32-bit unsigned number held in a 64-bit Int, so these sums cannot overflow.
        guard width > 0, height > 0, x + width <= canvasWidth, y + height <= canvasHeight else {
            throw .badImageData(
                reason:
                    "APNG: frame \(width)x\(height) at (\(x), \(y)) is outside the \(canvasWidth)x\(canvasHeight) canvas"
            )
        }
    }

    /// The 26 bytes of this control's `fcTL` data.
    var bytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(Self.byteCount)
        for value in [sequenceNumber, UInt32(width), UInt32(height), UInt32(x), UInt32(y)] {
            PNGChunkStream.append(value, to: &output)
        }
        PNGChunkStream.append(delayNumerator, to: &output)
        PNGChunkStream.append(delayDenominator, to: &output)
        output += [dispose.rawValue, blend.rawValue]
        return output
    }
}

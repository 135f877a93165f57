import WebImageCore

/// Pixelates: the frame is cut into squares of ``blockSize`` pixels from its top-left corner, and each
/// square is filled with its average colour, as imgproxy's `pixelate` (libvips shrinks by the block size and
/// zooms back). Squares cut by the right or bottom edge average as if the edge pixels were repeated to a
/// full square, which is what libvips' copy-extended edge gives. Hides faces or text while keeping the layout.
///
/// ```swift
/// let blocks = try PixelateTransformer(blockSize: 8)
/// ```
///
/// Colours are averaged weighted by alpha, so transparent pixels do not darken their block.
public struct PixelateTransformer: FrameTransformer {
    /// The largest block: a block larger than any image only makes it one colour.
    public static let maximumBlockSize = 16384

    /// The side of each square in pixels; 1 changes nothing.
    public let blockSize: Int

    /// Squares of `blockSize` pixels (1...``maximumBlockSize``).
    public init(blockSize: Int) throws(ImageError) {
        guard (1...Self.maximumBlockSize).contains(blockSize) else {
            throw .invalidParameter(
                name: "blockSize", reason: "\(blockSize) is not within 1...\(Self.maximumBlockSize)")
        }
        self.blockSize = blockSize
    }

    /// `pixelate(8)`.
    public var transformerKey: String { "pixelate(\(blockSize))" }

    /// The pixelated frame, same size and layout.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        guard blockSize > 1 else { return pixels }
        let source = pixels.packed()
        let width = source.width, height = source.height
        let channels = source.layout.bytesPerPixel
        let hasAlpha = source.layout.hasAlpha
        let colorChannels = hasAlpha ? channels - 1 : channels
        var bytes = source.bytes
        let size = blockSize
        bytes.withUnsafeMutableBufferPointer { out in
            for blockY in stride(from: 0, to: height, by: size) {
                for blockX in stride(from: 0, to: width, by: size) {
                    var sums = [Double](repeating: 0, count: channels)
                    // The pixels of the square inside the frame; the last column and row of a square cut by
                    // the edge count once for each position past the frame they stand in for.
                    let endX = min(blockX + size, width), endY = min(blockY + size, height)
                    for y in blockY..<endY {
                        let weightY = y == endY - 1 ? Double(blockY + size - y) : 1
                        for x in blockX..<endX {
                            let weight = weightY * (x == endX - 1 ? Double(blockX + size - x) : 1)
                            let base = (y * width + x) * channels
                            let alpha = (hasAlpha ? Double(out[base + channels - 1]) : 255) * weight
                            for c in 0..<colorChannels { sums[c] += Double(out[base + c]) * alpha }
                            if hasAlpha { sums[channels - 1] += alpha }
                        }
                    }
                    let count = Double(size * size)
                    let alphaSum = hasAlpha ? sums[channels - 1] : 255 * count
                    var value = [UInt8](repeating: 0, count: channels)
                    for c in 0..<colorChannels {
                        value[c] = alphaSum == 0 ? 0 : UInt8(min(255, (sums[c] / alphaSum).rounded()))
                    }
                    if hasAlpha { value[channels - 1] = UInt8(min(255, (alphaSum / count).rounded())) }
                    for y in blockY..<min(blockY + size, height) {
                        for x in blockX..<min(blockX + size, width) {
                            let base = (y * width + x) * channels
                            for c in 0..<channels { out[base + c] = value[c] }
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: source.layout, bytes: bytes)
    }
}

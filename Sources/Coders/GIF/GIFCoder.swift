import CGIF
import Foundation
import WebImageCore

/// Decodes and encodes GIF with giflib. Animations decode lazily through Core's ``AnimatedFrames``:
/// frame count, loop count and durations are known at once, frames are composed when asked for.
///
/// Composition follows browsers: disposal "background" clears to transparent, frames reaching past
/// the logical screen are clipped, a delay of 0 or 1 centisecond plays as 100 ms. A GIF without a
/// NETSCAPE2.0 loop extension plays once, reported as a loop count of 1 (0 means forever).
public struct GIFCoder: AnimatedImageCoder {
    public init() {}

    /// Registers a GIF coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(GIFCoder()) }

    public var decodableFormats: [ImageFormat] { [.gif] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .gif }

    public func canEncode(to format: ImageFormat) -> Bool { format == .gif }

    /// Decodes `data`. Malformed compressed data in any frame the image can show is an error here,
    /// not later: frame 0 is composed now, and the other frames are either composed now
    /// (`preloadAllFrames`), not shown (`firstFrameOnly`), or decompressed once into one row of memory
    /// to check them before they are composed lazily.
    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let source = try GIFFrameSource(data: data, options: options)
        if !options.firstFrameOnly && !options.preloadAllFrames {
            try source.validateFrames(1..<source.frameCount)
        }
        return try Image.decodedAnimation(source: source, format: .gif, options: options)
    }

    /// A source over `data` whose every frame was checked to decompress (see ``decode(_:options:)``).
    public func makeFrameSource(for data: Data, options: DecodeOptions) throws(ImageError) -> any AnimatedFrameSource {
        let source = try GIFFrameSource(data: data, options: options)
        try source.validateFrames(0..<source.frameCount)
        return source
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .gif else { throw .unsupportedFormat(format) }
        return try GIFEncoder.encode(image, options: options)
    }
}

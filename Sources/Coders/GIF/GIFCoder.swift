internal import CGIF
import Foundation
import WebImageCore

/// Decodes and encodes GIF with giflib. Animations decode lazily through Core's `AnimatedFrames`:
/// frame count, loop count and durations are known at once, frames are composed when asked for.
///
/// Composition follows browsers: disposal "background" clears to transparent, frames reaching past
/// the logical screen are clipped, a delay of 0 or 1 centisecond plays as 100 ms. A GIF without a
/// NETSCAPE2.0 loop extension plays once, reported as a loop count of 1 (0 means forever).
///
/// Untrusted input: the frame count, each frame's size and the total work are checked against the
/// budgets of `DecodeOptions` before any frame is decompressed; decompression checks the deadline and
/// cancellation per group of rows. Damaged later frames and structural quirks browsers forgive
/// (no color table, a screen smaller than frame 0, junk after the last frame) are handled as browsers
/// do; see `GIFFileIndex`.
public struct GIFCoder: AnimatedImageCoder {
    /// A GIF coder.
    public init() {}

    /// Registers a GIF coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(GIFCoder()) }

    public var decodableFormats: [ImageFormat] { [.gif] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .gif }

    public func canEncode(to format: ImageFormat) -> Bool { format == .gif }

    /// Decodes `data`: indexes its structure (no frame is decompressed), checks the budgets of
    /// `options` against every frame's stored rectangle, then composes frame 0 (or every frame with
    /// `preloadAllFrames`), all under one `DecodeWatch`. Other frames are composed when asked for; a
    /// later frame whose compressed data is broken ends the animation at the frame before it (see
    /// `AnimatedFrames`), so it is not an error here.
    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let watch = options.startWatch()
        let source = try GIFFrameSource(data: data, options: options, watch: watch)
        return try source.whileDecoding(watch) { () throws(ImageError) in
            try Image.decodedAnimation(source: source, format: .gif, options: options)
        }
    }

    /// A source over `data`'s frames, indexed and checked against the budgets; no frame is decompressed
    /// yet, so a damaged frame is found when it is composed.
    public func makeFrameSource(for data: Data, options: DecodeOptions) throws(ImageError) -> any AnimatedFrameSource {
        try GIFFrameSource(data: data, options: options, watch: options.startWatch())
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .gif else { throw .unsupportedFormat(format) }
        return try GIFEncoder.encode(image, options: options)
    }
}

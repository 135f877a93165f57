import Foundation
import WebImageCore

/// Decodes and encodes animated PNG (APNG), the coder SDWebImage calls `SDImageAPNGCoder`.
///
/// Debian's libpng has no APNG support, so the coder reads the `acTL`, `fcTL` and `fdAT` chunks
/// itself and gives libpng one ordinary PNG per frame. Frames decode lazily through Core's
/// `AnimatedFrames`: frame count, loop count (`num_plays`, 0 = forever) and durations are known at
/// once, and a frame is decoded and composed (blend `source`/`over`, dispose `none`/`background`/
/// `previous`) when it is first asked for. A default image that is not part of the animation (`IDAT`
/// before the first `fcTL`) is skipped, so `firstFrameOnly` gives the first animation frame. Delays
/// of 10 ms or less play as 100 ms, as in browsers.
///
/// ``canDecode(_:)`` is true only for PNGs with `acTL` before `IDAT`, so plain PNGs stay with
/// ``PNGCoder``; register this coder after it (`WebImage` does) so it is asked first.
///
/// ```swift
/// ImageCodersManager.shared.addCoder(APNGCoder())
/// let animation = try APNGCoder().decode(data, options: DecodeOptions())
/// ```
public struct APNGCoder: AnimatedImageCoder, ProgressiveImageCoder {
    /// An animated PNG coder.
    public init() {}

    /// Registers an APNG coder with the shared coders manager; call it after ``PNGCoder/register()``.
    public static func register() { ImageCodersManager.shared.addCoder(APNGCoder()) }

    public var decodableFormats: [ImageFormat] { [.png] }

    /// True for a PNG whose `acTL` chunk comes before its first `IDAT`; false for plain PNGs.
    public func canDecode(_ data: Data) -> Bool { APNGContainer.hasAnimationControl(data) }

    /// Encodes to `.png`: animated images become APNG, stills plain PNG.
    public func canEncode(to format: ImageFormat) -> Bool { format == .png }

    /// True for any PNG stream that has not yet shown `IDAT` before `acTL`: the first bytes of a
    /// download cannot tell an APNG from a PNG, so this coder takes both and decodes a plain PNG
    /// exactly as ``PNGCoder`` does (same libpng decoder, same partial images).
    public func canDecodeIncrementally(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .png
    }

    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        APNGIncrementalDecoder(options: options)
    }

    /// Decodes an APNG into an animated `Image` (a still with `firstFrameOnly` or a single frame);
    /// a plain PNG decodes as ``PNGCoder`` would, and so does an APNG whose animation chunks are broken
    /// (its default image, as the APNG specification asks). With `allowPartialImage`, a truncated file
    /// gives the whole frames before the cut, marked `Image/isIncomplete`. Throws
    /// `.decodeBudgetExceeded` before decoding any frame when the frame count or the work of all frames
    /// is over the options' budgets; a damaged later frame ends the animation at the frame before it.
    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        guard let container = try APNGContainer.parse([UInt8](data), options: options) else {
            return try PNGCoder().decode(data, options: options)
        }
        let source = APNGFrameSource(container: container, options: options)
        var image = try Image.decodedAnimation(source: source, format: .png, options: options)
        image.isIncomplete = container.isTruncated
        return image
    }

    /// A source that decodes the frames of the APNG `data` on demand. Throws `.badImageData` for a
    /// PNG that is not animated.
    public func makeFrameSource(for data: Data, options: DecodeOptions) throws(ImageError) -> any AnimatedFrameSource {
        guard let container = try APNGContainer.parse([UInt8](data), options: options) else {
            throw .badImageData(reason: "PNG: not an animated PNG (no acTL before IDAT)")
        }
        return APNGFrameSource(container: container, options: options)
    }

    /// Encodes `image` as `.png`: APNG when it is animated (unless `options.firstFrameOnly`), a plain
    /// PNG otherwise.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .png else { throw .unsupportedFormat(format) }
        return try APNGEncoder.encode(image, options: options)
    }
}

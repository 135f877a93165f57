internal import CJXL
import Foundation
import WebImageCore

/// Decodes and encodes JPEG XL with libjxl: stills and animations (frames decoded lazily through Core's
/// `AnimatedFrames`), progressive decoding while downloading, alpha (premultiplied returned straight),
/// any bit depth rounded to 8, the header's orientation, ICC, and the original JPEG of a losslessly
/// recompressed file (``reconstructedJPEG(from:)``).
///
/// Stills decode to `.rgba8` only with alpha, `.rgb8` otherwise; the colour profile is reported when the
/// pixels are not plain sRGB. Thumbnails are a full decode resampled by Core.
///
/// Budgets: the header's size is checked against the pixel limit before any pixel memory, and an
/// animation's frame count and total work (every frame covers the canvas) from its frame headers before
/// any frame is decoded. libjxl has no way to stop inside a frame, so the deadline and cancellation are
/// checked between its events (header, frame starts, frames) and per incremental step.
public struct JXLCoder: AnimatedImageCoder, ProgressiveImageCoder {
    /// libjxl's encoder effort, 1 (fastest) to 9 (smallest): 7 by default, cjxl's default.
    public var effort: Int

    /// A coder encoding at libjxl `effort` 1 (fastest) … 9 (smallest).
    public init(effort: Int = 7) {
        self.effort = min(max(effort, 1), 9)
    }

    /// Registers a JPEG XL coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(JXLCoder()) }

    public var decodableFormats: [ImageFormat] { [.jpegXL] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpegXL }

    public func canEncode(to format: ImageFormat) -> Bool { format == .jpegXL }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        let watch = options.startWatch()
        try watch.check()
        let decoder = try JXLDecoder(data: data, options: options)
        let metadata = decoder.metadata
        if decoder.isAnimated && !options.firstFrameOnly {
            let source = try makeFrameSource(decoder: decoder, data: data, options: options)
            return try Image.decodedAnimation(source: source, format: .jpegXL, options: options, metadata: metadata)
        }
        let pixels = try decoder.decodeNextFrame(layout: decoder.hasAlpha ? .rgba8 : .rgb8, watch: watch)
        return Image(
            pixels: options.resizedToOutput(pixels), format: .jpegXL, orientation: decoder.orientation,
            isOrientationApplied: options.applyOrientation, scale: options.scale, metadata: metadata)
    }

    public func makeFrameSource(for data: Data, options: DecodeOptions) throws(ImageError) -> any AnimatedFrameSource {
        try makeFrameSource(decoder: try JXLDecoder(data: data, options: options), data: data, options: options)
    }

    /// Reads the frame headers, checks the frame count and work, and wraps `decoder`.
    private func makeFrameSource(
        decoder: sending JXLDecoder, data: Data, options: DecodeOptions
    ) throws(ImageError) -> JXLFrameSource {
        let durations = try JXLDecoder.frameDurations(of: data, info: decoder.info, options: options)
        let size = decoder.outputSize
        try options.checkAnimationWork(
            canvasWidth: size.width, canvasHeight: size.height,
            frameSizes: repeatElement(size, count: durations.count))
        return JXLFrameSource(decoder: decoder, durations: durations, options: options)
    }

    public func canDecodeIncrementally(_ data: Data) -> Bool {
        let signature = data.withUnsafeBytes { JxlSignatureCheck($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
        return signature == JXL_SIG_CODESTREAM || signature == JXL_SIG_CONTAINER
            || signature == JXL_SIG_NOT_ENOUGH_BYTES
    }

    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        JXLIncrementalDecoder(options: options)
    }

    /// The original JPEG file of a JPEG XL made by lossless JPEG recompression (`cjxl photo.jpg`), byte
    /// for byte; nil when the file holds no reconstruction data.
    public static func reconstructedJPEG(from data: Data) throws(ImageError) -> Data? {
        try JXLJPEGReconstruction.jpeg(from: data)
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard format == .jpegXL else { throw .unsupportedFormat(format) }
        return try JXLEncoder(options: options, effort: effort).encode(image)
    }
}

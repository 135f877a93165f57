import Foundation

/// Turns bytes of one or more formats into ``Image``s and back (SDWebImage's `SDImageCoder`).
///
/// Register a coder with ``ImageCodersManager/addCoder(_:)``; the last registered coder that can
/// decode some data is asked first, so a custom coder beats a built-in one for its format.
///
/// ```swift
/// struct PPMCoder: ImageCoder {
///     var decodableFormats: [ImageFormat] { [.ppm] }
///     func canDecode(_ data: Data) -> Bool { data.starts(with: Array("P6".utf8)) }
///     ...
/// }
/// ```
public protocol ImageCoder: Sendable {
    /// Formats this coder decodes; the HTTP loader lists their MIME types in its `Accept` header.
    var decodableFormats: [ImageFormat] { get }
    /// Whether this coder can decode `data` (usually by sniffing its first bytes).
    func canDecode(_ data: Data) -> Bool
    /// Decodes `data`. Throws ``ImageError`` (`.badImageData`, `.imageTooLarge`, ...) on bad input.
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image
    /// Whether this coder can encode to `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// Encodes `image` as `format`.
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data
}

extension ImageCoder {
    public var decodableFormats: [ImageFormat] { [] }
}

/// A coder that can also decode data while it is still arriving (SDWebImage's `SDProgressiveImageCoder`).
public protocol ProgressiveImageCoder: ImageCoder {
    /// Whether the first bytes of a download (maybe just a few) look like something this coder can
    /// decode incrementally.
    func canDecodeIncrementally(_ data: Data) -> Bool
    /// A fresh decoder for one download.
    func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder
}

/// Decodes one image from bytes fed as they arrive.
///
/// Not thread-safe: one download owns it and feeds it from one place at a time.
public protocol IncrementalImageDecoder: AnyObject {
    /// Feeds the next bytes of the file. Throws when they prove the file is malformed.
    func append(_ bytes: Data) throws(ImageError)
    /// The best image available from the bytes so far (rows decoded, passes or scans completed),
    /// marked ``Image/isIncomplete``; nil until there is something to show.
    func partialImage() -> Image?
    /// Called once every byte has been appended: the complete image, or an error if the file was
    /// truncated or malformed.
    func finish() throws(ImageError) -> Image
}

/// A coder for animations whose frames it can decode lazily (SDWebImage's `SDAnimatedImageCoder`).
///
/// Its `decode` builds an image backed by an ``AnimatedFrames`` over the source from
/// ``makeFrameSource(for:options:)`` (see ``Image/decodedAnimation(source:format:options:metadata:)``).
public protocol AnimatedImageCoder: ImageCoder {
    /// A source that composes `data`'s frames on demand; knows frame count, loop count and durations up front.
    func makeFrameSource(for data: Data, options: DecodeOptions) throws(ImageError) -> any AnimatedFrameSource
}

extension Image {
    /// The image an animated coder returns for `source` under `options`: a still when there is one frame
    /// or `firstFrameOnly` is set (turned upright by its EXIF orientation, as other stills are), otherwise
    /// lazily decoded frames (all preloaded with `preloadAllFrames`), downsampled when a thumbnail size is
    /// asked for, and converted to sRGB (frame by frame as they are composed) when
    /// ``DecodeOptions/colorConversion`` asks. Animations keep their stored orientation (frames are not turned). Checks the frame count
    /// and the canvas work of all frames against the budgets first.
    public static func decodedAnimation(
        source: any AnimatedFrameSource, format: ImageFormat,
        options: DecodeOptions,
        metadata: ImageMetadata = ImageMetadata()
    ) throws(ImageError) -> Image {
        // A floor under the coders' own checks, which also count each frame's rectangle: every frame
        // composed onto the canvas.
        try options.checkFrameCount(source.frameCount)
        if !options.firstFrameOnly {
            let (canvas, overflow1) = source.canvasWidth.multipliedReportingOverflow(by: source.canvasHeight)
            let (work, overflow2) = canvas.multipliedReportingOverflow(by: source.frameCount)
            try options.checkTotalPixels(overflow1 || overflow2 ? .max : work)
        }
        let size = options.outputSize(width: source.canvasWidth, height: source.canvasHeight)
        let outputSize =
            (size.width == source.canvasWidth && size.height == source.canvasHeight)
            ? nil : (width: size.width, height: size.height)
        do {
            if options.firstFrameOnly || source.frameCount == 1 {
                // A still: oriented by its EXIF like any other still, then fitted to the output size.
                return options.image(
                    from: try source.composeFrame(at: 0, onto: nil).frame, format: format, metadata: metadata)
            }
            let frames = AnimatedFrames(source: source, outputSize: outputSize, timeLimit: options.timeLimit)
            if options.preloadAllFrames { try frames.preloadAllFrames() }
            let animation = try Image(animation: frames, format: format, scale: options.scale, metadata: metadata)
            return options.colorConversion?.apply(to: animation) ?? animation
        } catch let error as ImageError {
            throw error
        } catch {
            throw .badImageData(reason: "\(error)")
        }
    }
}

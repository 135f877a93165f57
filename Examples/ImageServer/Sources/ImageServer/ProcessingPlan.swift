import WebImage
import WebImageTransformers

/// The processing options of one URL, reduced to what the server needs from them. This file is the only
/// place that reads option strings: it hands them to `WebImageTransformers`' parser (`ProcessingOptions`)
/// and never parses them itself.
struct ProcessingPlan: Sendable {
    /// The options' canonical text (stable across spellings: `rs:fill:1:2` = `resize:fill:1:2`), for cache keys.
    var canonicalText: String
    /// The output format the options ask for (`f:`), nil to negotiate.
    var format: ImageFormat?
    /// The quality the options ask for (`q:`, 1–100), nil for the configured default.
    var quality: Int?
    /// Whether the options draw the watermark (`wm:`).
    var wantsWatermark: Bool
    /// A box the source may be decoded straight into ("shrink on load": JPEG's DCT scaling, libwebp's
    /// scaler, then the framework's thumbnail resampler), because the options begin by fitting the image
    /// inside it; nil when an earlier step needs the full-size pixels.
    var decodeBox: PixelSize?
    /// The parsed options, for what the server acts on itself (security options, metadata, quality per
    /// format, `max_bytes`, `skip_processing`, `raw`); nil without options.
    var options: ProcessingOptions?
    /// Makes the transformer that applies the options (given the watermark image, and the request's
    /// cancellation check, asked between steps and frames), nil when there is nothing to do.
    var makeTransformer:
        @Sendable (_ watermark: Image?, _ isCancelled: @escaping @Sendable () -> Bool) throws(ImageError)
            -> (any FrameTransformer)?

    /// The plan of an URL without processing options: the source, re-encoded.
    static let passthrough = ProcessingPlan(
        canonicalText: "", format: nil, quality: nil, wantsWatermark: false,
        decodeBox: nil, makeTransformer: { _, _ in nil })

    /// Reads the option segments of a processing URL; throws the parser's error for options it refuses.
    /// `watermarkOpacity` (`IMGPROXY_WATERMARK_OPACITY`) multiplies a `wm:` opacity, as imgproxy's base
    /// opacity does.
    init(segments: [Substring], watermarkOpacity: Double = 1) throws(ImageError) {
        if segments.isEmpty {
            self = .passthrough
            return
        }
        var parsed = try ProcessingOptions(segments: segments)
        parsed.watermark?.opacity *= watermarkOpacity
        let options = parsed
        self.init(
            canonicalText: options.description, format: options.format, quality: options.quality,
            wantsWatermark: options.watermark != nil, decodeBox: Self.decodeBox(options),
            makeTransformer: { watermark, isCancelled throws(ImageError) in
                try options.transformer(watermarkImage: watermark, isCancelled: isCancelled) as? any FrameTransformer
            })
        self.options = options
    }

    /// Only `fit` into a box with both sides given, and nothing before the resize that looks at the
    /// full image (crop, trim, rotation) or scales past the box (zoom, minimum sizes): then decoding into
    /// the box gives what the resize would.
    static func decodeBox(_ options: ProcessingOptions) -> PixelSize? {
        guard options.resizingType == .fit, options.width > 0, options.height > 0, options.crop == nil,
            options.trim == nil, options.rotation == 0, options.zoomWidth == 1, options.zoomHeight == 1,
            options.minWidth == 0, options.minHeight == 0
        else { return nil }
        let scale = options.devicePixelRatio
        return PixelSize(
            width: max(1, Int((Double(options.width) * scale).rounded())),
            height: max(1, Int((Double(options.height) * scale).rounded())))
    }

    init(
        canonicalText: String, format: ImageFormat?, quality: Int?, wantsWatermark: Bool, decodeBox: PixelSize?,
        makeTransformer:
            @escaping @Sendable (_ watermark: Image?, _ isCancelled: @escaping @Sendable () -> Bool)
            throws(ImageError) -> (any FrameTransformer)?
    ) {
        self.canonicalText = canonicalText
        self.format = format
        self.quality = quality
        self.wantsWatermark = wantsWatermark
        self.decodeBox = decodeBox
        self.makeTransformer = makeTransformer
    }
}

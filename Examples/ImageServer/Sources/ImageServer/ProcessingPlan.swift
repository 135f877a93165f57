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
    /// Makes the transformer that applies the options (given the watermark image), nil when there is nothing to do.
    var makeTransformer: @Sendable (_ watermark: Image?) throws(ImageError) -> (any ImageTransformer)?

    /// The plan of an URL without processing options: the source, re-encoded.
    static let passthrough = ProcessingPlan(canonicalText: "", format: nil, quality: nil, wantsWatermark: false,
                                            makeTransformer: { _ in nil })

    /// Reads the option segments of a processing URL; throws the parser's error for options it refuses.
    init(segments: [Substring]) throws(ImageError) {
        if segments.isEmpty {
            self = .passthrough
            return
        }
        let options = try ProcessingOptions(segments: segments)
        self.init(canonicalText: options.description, format: options.format, quality: options.quality,
                  wantsWatermark: options.watermark != nil,
                  makeTransformer: { watermark throws(ImageError) in try options.transformer(watermarkImage: watermark) })
    }

    init(canonicalText: String, format: ImageFormat?, quality: Int?, wantsWatermark: Bool,
         makeTransformer: @escaping @Sendable (_ watermark: Image?) throws(ImageError) -> (any ImageTransformer)?) {
        self.canonicalText = canonicalText
        self.format = format
        self.quality = quality
        self.wantsWatermark = wantsWatermark
        self.makeTransformer = makeTransformer
    }
}

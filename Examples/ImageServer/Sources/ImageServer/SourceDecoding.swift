import WebImage
import WebImageTransformers

/// How one request decodes its source: the box it may be decoded into, and the per-request limits and
/// choices its URL may set (imgproxy's security options `msr` and `maf`, and `ar`). Part of the
/// decoded-source cache key, since each changes the decoded image.
struct SourceDecoding: Sendable, Hashable {
    /// Decode straight into this box (shrink on load); nil: full size.
    var box: PixelSize?
    /// Pixels of the source at most (`max_src_resolution`); nil: the server's.
    var maxPixelCount: Int?
    /// Frames at most (`max_animation_frames`); 1 is the first frame only; nil: the server's.
    var maxFrameCount: Int?
    /// Whether the EXIF orientation is applied (`auto_rotate`, on by default).
    var appliesOrientation = true
    /// Decode without converting to sRGB, so the source's ICC profile survives to the encoder
    /// (`scp:0`, or `IMGPROXY_STRIP_COLOR_PROFILE=false`): converted pixels have no profile left to keep.
    var keepsColorProfile = false

    /// The decoding of a fit into `box`, nothing else.
    init(box: PixelSize? = nil) { self.box = box }

    /// The decoding `plan` asks for; `stripsColorProfile` is the server's default for `scp`.
    init(_ plan: ProcessingPlan, stripsColorProfile: Bool = true) {
        box = plan.decodeBox
        keepsColorProfile = !(plan.options?.stripColorProfile ?? stripsColorProfile)
        guard let options = plan.options else { return }
        maxPixelCount = options.maxSourceResolution.map { Int($0 * 1_000_000) }
        maxFrameCount = options.maxAnimationFrames
        appliesOrientation = options.autoRotate ?? true
    }

    /// `base` with this decoding's box and limits.
    func applied(to base: DecodeOptions) -> DecodeOptions {
        var options = base
        options.thumbnailPixelSize = box
        if let maxPixelCount { options.maxPixelCount = maxPixelCount }
        // A longer animation keeps its first frames (ImageService.firstFrames); 1 decodes only the first.
        if let maxFrameCount { options.firstFrameOnly = maxFrameCount <= 1 }
        options.applyOrientation = appliesOrientation
        if keepsColorProfile { options.colorConversion = .off }
        return options
    }

    /// What the cache key adds for `url`: nothing for a plain full-size decode.
    var keySuffix: String {
        var parts: [String] = []
        if let box { parts.append("\(box.width)x\(box.height)") }
        if let maxPixelCount { parts.append("px\(maxPixelCount)") }
        if let maxFrameCount { parts.append("f\(maxFrameCount)") }
        if !appliesOrientation { parts.append("noar") }
        if keepsColorProfile { parts.append("icc") }
        return parts.isEmpty ? "" : "#" + parts.joined(separator: ",")
    }
}

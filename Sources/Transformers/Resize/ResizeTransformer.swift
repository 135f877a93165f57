import WebImageCore

/// Resizes images the way image servers do: stretch, fit inside a box, or fill it and crop the overflow at
/// a gravity; enlarging small images or not; with the resampling filter of your choice (Lanczos3 by
/// default). imgproxy's `rs:` options (`rs:fill:300:200:1` is `ResizeTransformer(width: 300, height: 200,
/// mode: .fill, enlarge: true)`).
///
/// ```swift
/// let cover = try ResizeTransformer(width: 300, height: 200, mode: .fill, gravity: .north)
/// let thumbnail = try ResizeTransformer(width: 256, height: 0)   // 256 px wide, height from the shape
/// ```
///
/// A fill is computed in one resample of the part of the image it keeps (the same pixels as resizing the
/// whole image and cropping, without making the whole resized image), except with ``Gravity/smart``,
/// which looks at the resized image to choose the crop.
public struct ResizeTransformer: FrameTransformer {
    /// The largest width or height accepted: JPEG's limit, far beyond any screen. Larger values are
    /// mistakes, and would ask for gigabytes.
    public static let maximumSide = 65_535

    /// The box's width; 0 takes it from the height and the image's aspect ratio.
    public let width: Int
    /// The box's height; 0 takes it from the width and the image's aspect ratio.
    public let height: Int
    /// How the image meets the box: stretched, fitted inside, or filling it with a crop. ``ResizeMode/fit``
    /// by default.
    public let mode: ResizeMode
    /// Which part a fill keeps. ``Gravity/center`` by default.
    public let gravity: Gravity
    /// Whether images smaller than the box are enlarged. False by default, as imgproxy.
    public let enlarge: Bool
    /// The resampling filter. `ResamplingFilter/lanczos3` by default (sharp, little aliasing); `.nearest`
    /// for pixel art, `.mitchell` for softer enlargements.
    public let filter: ResamplingFilter

    /// A resize to `width` x `height` (0 for a side: keep the aspect ratio; both 0: no resize).
    ///
    /// Throws `ImageError/invalidParameter(name:reason:)` for a negative side, a side above
    /// ``maximumSide``, or a focal point outside 0...1.
    public init(
        width: Int, height: Int, mode: ResizeMode = .fit, gravity: Gravity = .center,
        enlarge: Bool = false, filter: ResamplingFilter = .lanczos3
    ) throws(ImageError) {
        for (name, value) in [("width", width), ("height", height)] where !(0...Self.maximumSide).contains(value) {
            throw .invalidParameter(
                name: name, reason: "\(value) is not within 0...\(Self.maximumSide) (0 keeps the aspect ratio)")
        }
        if case .focalPoint(let x, let y) = gravity, !((0...1).contains(x) && (0...1).contains(y)) {
            throw .invalidParameter(name: "gravity", reason: "focal point (\(x), \(y)) must be within 0...1 both ways")
        }
        self.width = width
        self.height = height
        self.mode = mode
        self.gravity = gravity
        self.enlarge = enlarge
        self.filter = filter
    }

    /// Every parameter: `resize(fill,300x200,center,enlarge=0,lanczos3)`.
    public var transformerKey: String {
        "resize(\(mode.rawValue),\(width)x\(height),\(gravity),enlarge=\(enlarge ? 1 : 0),\(filter.rawValue))"
    }

    /// `pixels` resized by the plan for their size; throws `.imageTooLarge` when the scaled image would
    /// pass `DecodeOptions/defaultMaxPixelCount` (an enlargement of a tiny image to a huge box).
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        guard let plan = plan(sourceWidth: pixels.width, sourceHeight: pixels.height) else { return pixels }
        let (scaledPixels, overflow) = plan.scaledWidth.multipliedReportingOverflow(by: plan.scaledHeight)
        if overflow || scaledPixels > DecodeOptions.defaultMaxPixelCount {
            throw .imageTooLarge(
                width: plan.scaledWidth, height: plan.scaledHeight, limit: DecodeOptions.defaultMaxPixelCount)
        }
        guard plan.crops else {
            return ImageResampler.resample(pixels, width: plan.width, height: plan.height, filter: filter)
        }
        if case .smart = gravity {
            let scaled = ImageResampler.resample(
                pixels, width: plan.scaledWidth, height: plan.scaledHeight, filter: filter)
            let origin = gravity.regionOrigin(regionWidth: plan.width, regionHeight: plan.height, in: scaled)
            return ImageResampler.resample(
                scaled, scaledWidth: scaled.width, scaledHeight: scaled.height,
                region: (origin.x, origin.y, plan.width, plan.height), filter: .nearest)
        }
        let origin = scaledOrigin(of: plan, in: pixels)
        return ImageResampler.resample(
            pixels, scaledWidth: plan.scaledWidth, scaledHeight: plan.scaledHeight,
            region: (origin.x, origin.y, plan.width, plan.height), filter: filter)
    }

    /// Where the kept part starts in the scaled image: the gravity placed on the source (the kept part's
    /// footprint there), scaled. Gravities other than smart need only the sizes.
    private func scaledOrigin(of plan: ResizePlan, in pixels: PixelBuffer) -> (x: Int, y: Int) {
        let toSourceX = Double(pixels.width) / Double(plan.scaledWidth)
        let toSourceY = Double(pixels.height) / Double(plan.scaledHeight)
        let footprintWidth = min(pixels.width, max(1, Int((Double(plan.width) * toSourceX).rounded())))
        let footprintHeight = min(pixels.height, max(1, Int((Double(plan.height) * toSourceY).rounded())))
        let origin = gravity.regionOrigin(regionWidth: footprintWidth, regionHeight: footprintHeight, in: pixels)
        let x = Int((Double(origin.x) / toSourceX).rounded()), y = Int((Double(origin.y) / toSourceY).rounded())
        return (min(max(0, x), plan.scaledWidth - plan.width), min(max(0, y), plan.scaledHeight - plan.height))
    }
}

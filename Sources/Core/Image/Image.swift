import Foundation

/// A decoded image: one frame, or an animation whose frames may be decoded lazily.
///
/// `Image` is a value. Its pixels are copy-on-write, and an animated image shares one
/// ``AnimatedFrames`` store between copies, so copying an image never copies pixels.
///
/// ```swift
/// let image = try PNGCoder().decode(data, options: DecodeOptions())
/// print(image.width, image.height, image.format, image.frameCount)
/// ```
public struct Image: Sendable {
    /// The still image, or the first frame of an animation (the poster).
    public var pixels: PixelBuffer
    /// The format the image was decoded from (`.undefined` for images made in memory).
    public var format: ImageFormat
    /// The EXIF orientation found in the file.
    public var orientation: ImageOrientation
    /// Whether ``orientation`` has already been applied to the pixels.
    public var isOrientationApplied: Bool
    /// Points per pixel ratio (SDWebImage's `scale`, e.g. 2 for `@2x` assets). 1 by default.
    public var scale: Double
    /// Color profile, EXIF and other bytes carried by the file.
    public var metadata: ImageMetadata
    /// True for an image decoded from part of the data (progressive loading).
    public var isIncomplete: Bool
    /// The animation, when there is one; nil for stills.
    public let animation: AnimatedFrames?

    /// A still image.
    public init(
        pixels: PixelBuffer, format: ImageFormat = .undefined, orientation: ImageOrientation = .up,
        isOrientationApplied: Bool = true, scale: Double = 1, metadata: ImageMetadata = ImageMetadata(),
        isIncomplete: Bool = false
    ) {
        self.pixels = pixels
        self.format = format
        self.orientation = orientation
        self.isOrientationApplied = isOrientationApplied
        self.scale = scale
        self.metadata = metadata
        self.isIncomplete = isIncomplete
        self.animation = nil
    }

    /// An animated image backed by `animation`; the poster is its frame 0.
    public init(
        animation: AnimatedFrames, format: ImageFormat, scale: Double = 1,
        metadata: ImageMetadata = ImageMetadata()
    ) throws {
        self.pixels = try animation.frame(at: 0).pixels
        self.format = format
        self.orientation = .up
        self.isOrientationApplied = true
        self.scale = scale
        self.metadata = metadata
        self.isIncomplete = false
        self.animation = animation
    }

    /// An animated image from frames already in memory (for example to encode a GIF); one frame makes a
    /// still. An empty list makes an empty (0 x 0) still rather than stopping the process; use
    /// ``init(validatingFrames:loopCount:format:)`` to have it, and frames of different sizes, refused.
    public init(frames: [ImageFrame], loopCount: Int = 0, format: ImageFormat = .undefined) {
        guard let first = frames.first else {
            self.init(pixels: PixelBuffer(width: 0, height: 0, layout: .rgba8), format: format)
            return
        }
        self.init(pixels: first.pixels, format: format)
        if frames.count > 1 {
            self = Image(copying: self, animation: AnimatedFrames(frames: frames, loopCount: loopCount))
        }
    }

    /// An animated image from frames already in memory, checked: throws
    /// ``ImageError/invalidParameter(name:reason:)`` for an empty list, frames whose size or layout differ
    /// from frame 0's, a negative or non-finite duration, or a negative loop count.
    public init(
        validatingFrames frames: [ImageFrame], loopCount: Int = 0,
        format: ImageFormat = .undefined
    ) throws(ImageError) {
        guard let first = frames.first else {
            throw .invalidParameter(name: "frames", reason: "an animated image needs at least one frame")
        }
        guard loopCount >= 0 else {
            throw .invalidParameter(name: "loopCount", reason: "\(loopCount) is negative (0 means forever)")
        }
        for (index, frame) in frames.enumerated() {
            let pixels = frame.pixels
            guard pixels.width == first.pixels.width, pixels.height == first.pixels.height,
                pixels.layout == first.pixels.layout
            else {
                throw .invalidParameter(
                    name: "frames",
                    reason: "frame \(index) is \(pixels.width)x\(pixels.height) "
                        + "\(pixels.layout), frame 0 is \(first.pixels.width)x\(first.pixels.height) \(first.pixels.layout)"
                )
            }
            guard frame.duration >= .zero else {
                throw .invalidParameter(name: "frames", reason: "frame \(index) lasts \(frame.duration)")
            }
        }
        self.init(frames: frames, loopCount: loopCount, format: format)
    }

    private init(copying other: Image, animation: AnimatedFrames?) {
        pixels = other.pixels
        format = other.format
        orientation = other.orientation
        isOrientationApplied = other.isOrientationApplied
        scale = other.scale
        metadata = other.metadata
        isIncomplete = other.isIncomplete
        self.animation = animation
    }

    /// Width in pixels of the poster frame.
    public var width: Int { pixels.width }
    /// Height in pixels of the poster frame.
    public var height: Int { pixels.height }
    /// Whether the image has more than one frame.
    public var isAnimated: Bool { animation != nil }
    /// Number of frames; 1 for stills.
    public var frameCount: Int { animation?.frameCount ?? 1 }
    /// How many times the animation plays; 0 means forever. 0 for stills.
    public var loopCount: Int { animation?.loopCount ?? 0 }
    /// How long each frame shows; `[.zero]` for stills.
    public var frameDurations: [Duration] { animation?.durations ?? [.zero] }

    /// Frame `index` (0-based), decoding it if it is not cached. An index outside `0..<frameCount` throws
    /// ``ImageError/invalidParameter(name:reason:)``.
    public func frame(at index: Int) throws -> ImageFrame {
        if let animation { return try animation.frame(at: index) }
        guard index == 0 else {
            throw ImageError.invalidParameter(name: "index", reason: "a still image has only frame 0, not \(index)")
        }
        return ImageFrame(pixels: pixels, duration: .zero)
    }

    /// Calls `body` with each frame in order (the still's one frame), composing lazily decoded frames one at
    /// a time and stopping at a damaged frame (see ``AnimatedFrames``): what streaming encoders write.
    public func forEachFrame(_ body: (ImageFrame) throws(ImageError) -> Void) throws(ImageError) {
        guard let animation else { return try body(ImageFrame(pixels: pixels, duration: .zero)) }
        try animation.forEachFrame(body)
    }

    /// The same image without its animation: a still made of the poster frame.
    public var firstFrameOnly: Image { Image(copying: self, animation: nil) }

    /// Bytes of pixels this image holds now: the poster plus any cached animation frames.
    /// Caches use it as the image's cost.
    public var memoryCost: Int { pixels.byteCount + (animation?.cachedByteCount ?? 0) }
}

/// One frame of an animation: its composed pixels and how long it shows.
public struct ImageFrame: Sendable {
    /// The whole canvas as it looks while this frame shows.
    public var pixels: PixelBuffer
    /// How long the frame stays on screen.
    public var duration: Duration

    /// A frame showing `pixels` for `duration`.
    public init(pixels: PixelBuffer, duration: Duration) {
        self.pixels = pixels
        self.duration = duration
    }
}

/// Bytes a file carries besides its pixels.
public struct ImageMetadata: Sendable, Hashable {
    /// The embedded ICC color profile.
    public var iccProfile: Data?
    /// The raw EXIF block (TIFF structure, without the `Exif\0\0` prefix).
    public var exif: Data?
    /// The raw XMP packet.
    public var xmp: Data?
    /// H.273 colour code points from an AVIF/HEIF `nclx` box; nil for formats without them.
    public var cicp: CICP?

    /// Metadata made of the given blocks, each as stored in a file.
    public init(iccProfile: Data? = nil, exif: Data? = nil, xmp: Data? = nil, cicp: CICP? = nil) {
        self.iccProfile = iccProfile
        self.exif = exif
        self.xmp = xmp
        self.cicp = cicp
    }
}

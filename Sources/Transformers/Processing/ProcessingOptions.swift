import WebImageCore

/// A whole processing pipeline as one value, read from and printed to imgproxy's processing-option text
/// (`rs:fill:300:200/g:sm/bl:2/sh:0.5/q:80/f:webp`).
///
/// The text is a list of options separated by `/`, each `name:argument:argument...`, with imgproxy's long or
/// short names. Options set fields; a later option overrides an earlier one that sets the same field, and
/// the order of the text never changes the order of the work: ``transformer(watermarkImage:isCancelled:)`` always
/// applies trim, rotate and flip, crop, resize, effects, shape, extend, padding, background and watermark
/// in that order, with imgproxy's geometry (the effective dpr, zoom, minimum sizes, offsets). Options that
/// change no pixels (metadata, quality per format, size and source limits) are parsed into fields a server
/// acts on. ``description`` prints the canonical text: short
/// names, defaults left out, options in that order; it parses back to an equal value, so it is a good
/// cache key for the output.
///
/// ```swift
/// let options = try ProcessingOptions(parsing: "resize:fit:256:256/sharpen:0.5/format:webp")
/// print(options)                    // rs:fit:256:256/sh:0.5/f:webp
/// let transformer = try options.transformer(watermarkImage: nil)
/// ```
///
/// Every value is checked while parsing against the one range the parser keeps for it; a bad one or an
/// unknown option throws `ImageError/invalidParameter(name:reason:)` naming the option as it was written.
/// Arguments follow imgproxy's rules: an empty one means the default (in `rs` and `s`, the value set so
/// far), a boolean that is not one of Go's `strconv.ParseBool` true words is false.
public struct ProcessingOptions: Sendable, Hashable {
    // MARK: Trim, orientation, crop

    /// `trim` / `t`: remove a uniform border first. nil: no trim.
    public var trim: Trim?
    /// `rotate` / `rot`: clockwise degrees, kept in 0..<360 (`rot:-90` is 270). Multiples of 90 are exact;
    /// other angles fill the corners with ``background`` (transparent when there is none). 0 by default.
    public var rotation: Double = 0
    /// `flip` / `fl`, first argument: mirror left-right. false by default.
    public var flipHorizontally = false
    /// `flip` / `fl`, second argument: mirror top-bottom. false by default.
    public var flipVertically = false
    /// `crop` / `c`: keep an area of the (rotated) image before resizing. nil: no crop.
    public var crop: Crop?

    // MARK: Resize

    /// `resizing_type` / `rt` (or the first argument of `rs`): how the image meets ``width`` x ``height``.
    /// `.fit` by default.
    public var resizingType: ResizeMode = .fit
    /// `width` / `w`: the target width in points (multiplied by the effective ``devicePixelRatio`` and
    /// ``zoomWidth``); 0 keeps the aspect ratio from ``height`` (with `force`, the source's width). 0 by
    /// default; both 0 means no resize.
    public var width = 0
    /// `height` / `h`: the target height in points; 0 keeps the aspect ratio from ``width``. 0 by default.
    public var height = 0
    /// `enlarge` / `el`: allow the result to be larger than the source. false by default.
    public var enlarge = false
    /// `gravity` / `g`: which part `fill` and `crop` keep. `.center` by default.
    public var gravity: Gravity = .center
    /// `gravity` / `g`, second argument: moves the kept area along x, away from the gravity's edge (towards
    /// the right for `ce`, `no`, `so`). |x| ≥ 1 is points (times the effective dpr), below 1 a fraction of
    /// the image's width, as imgproxy. 0 by default; always 0 for `sm` and `fp`.
    public var gravityOffsetX: Double = 0
    /// `gravity` / `g`, third argument: as ``gravityOffsetX``, along y.
    public var gravityOffsetY: Double = 0
    /// `min-width` / `mw`: the result is at least this wide (in points times the dpr), even when the resize
    /// would make it narrower; it may then be wider than ``width``. 0 (no minimum) by default.
    public var minWidth = 0
    /// `min-height` / `mh`: as ``minWidth``, for the height. 0 by default.
    public var minHeight = 0
    /// `zoom` / `z`, first argument: multiplies the width scale after the resize type is worked out (and the
    /// target width), as imgproxy. 1 by default; 0 < zoom ≤ ``maximumZoom``.
    public var zoomWidth: Double = 1
    /// `zoom` / `z`: the height's factor (the second argument, or the first when there is one). 1 by default.
    public var zoomHeight: Double = 1
    /// `resizing_algorithm` / `ra`: the resampling filter. `.lanczos3` by default.
    public var resamplingFilter: ResamplingFilter = .lanczos3
    /// `dpr`: multiplies the resize size, padding, extend and gravity offsets, for HiDPI screens, as
    /// imgproxy: lowered to the largest ratio that does not enlarge the source unless ``enlarge`` is set,
    /// and applied with no size too. Corner radii, borders and absolute watermark offsets are multiplied
    /// by it as given. 1 by default; 0 < dpr ≤ ``maximumDevicePixelRatio``.
    public var devicePixelRatio: Double = 1

    // MARK: Effects

    /// `brightness` / `br`: added to every channel, -255...255. 0 by default.
    public var brightness = 0
    /// `contrast` / `co`: 1 keeps the contrast, 0 is flat grey. 1 by default.
    public var contrast: Double = 1
    /// `saturation` / `sa`: 1 keeps the colours, 0 is grey. 1 by default.
    public var saturation: Double = 1
    /// `grayscale` / `gs`: drop the colours. false by default.
    public var grayscale = false
    /// `monochrome` / `mc` (imgproxy Pro): the image in the tones of one colour (``MonochromeTransformer``).
    /// nil by default.
    public var monochrome: Monochrome?
    /// `duotone` / `dt` (imgproxy Pro): dark tones in one colour, light tones in another
    /// (``DuotoneTransformer``). nil by default.
    public var duotone: Duotone?
    /// `colorize` / `col`: a colour laid over the image. nil by default.
    public var colorize: Colorize?
    /// `blur` / `bl`: gaussian blur sigma in pixels; 0 is none. 0 by default.
    public var blur: Double = 0
    /// `sharpen` / `sh`: unsharp-mask sigma in pixels; 0 is none. 0 by default.
    public var sharpen: Double = 0
    /// `pixelate` / `pix`: the side of the square blocks, in pixels, each filled with its average colour
    /// (blocks start at the top-left corner). 0 or 1 is none. 0 by default.
    public var pixelate = 0

    // MARK: Shape, canvas, watermark

    /// `rounded_corners` / `rc`: round the corners. nil by default.
    public var roundedCorners: RoundedCorners?
    /// `circle` / `ci`: keep the centred circle. nil by default.
    public var circle: Circle?
    /// `extend` / `ex`: grow the canvas to the resize size when the image is smaller. nil by default.
    public var extend: Extend?
    /// `extend_aspect_ratio` / `extend_ar` / `exar`: grow the canvas to the aspect ratio of ``width`` x
    /// ``height`` (both must be set), without growing the image's larger side. nil by default.
    public var extendAspectRatio: Extend?
    /// `padding` / `pd`: add space around the image, CSS-style. nil by default.
    public var padding: Padding?
    /// `background` / `bg`: the colour extend, padding and rotation fill with, and the image is flattened
    /// onto (imgproxy's meaning). nil: transparent fill and no flattening (except for JPEG output, which is
    /// flattened onto white because JPEG has no alpha).
    public var background: RGBAColor?
    /// `watermark` / `wm`: a second image drawn last. nil by default.
    public var watermark: WatermarkOption?

    // MARK: Output

    /// `format` / `f` / `ext`: the output format; nil keeps the source's.
    public var format: ImageFormat?
    /// `quality` / `q`: the output quality, 1...100; nil (or `q:0`) leaves it to the encoder.
    public var quality: Int?

    // MARK: What the server does (the pixels do not change)

    /// `strip_metadata` / `sm`: remove metadata (EXIF, XMP, IPTC) from the result. nil: the server's default
    /// (imgproxy's `IMGPROXY_STRIP_METADATA`, true). Acted on by the encoder's caller, not by
    /// ``transformer(watermarkImage:isCancelled:)``.
    public var stripMetadata: Bool?
    /// `keep_copyright` / `kcr`: when stripping metadata, keep the copyright (EXIF `Copyright`, IPTC) so the
    /// owner's notice survives. nil: the server's default (`IMGPROXY_KEEP_COPYRIGHT`, true).
    public var keepCopyright: Bool?
    /// `strip_color_profile` / `scp`: convert to sRGB and drop the ICC profile, which saves bytes. nil: the
    /// server's default (`IMGPROXY_STRIP_COLOR_PROFILE`, true).
    public var stripColorProfile: Bool?
    /// `enforce_thumbnail` / `eth`: when the source embeds a thumbnail (HEIC, AVIF), use it instead of the
    /// full image, which is faster. nil: the server's default (`IMGPROXY_ENFORCE_THUMBNAIL`, false).
    public var enforceThumbnail: Bool?
    /// `auto_rotate` / `ar`: turn the source upright by its EXIF orientation before processing. nil: the
    /// server's default (`IMGPROXY_AUTO_ROTATE`, true).
    public var autoRotate: Bool?
    /// `format_quality` / `fq`: the quality per output format (`fq:jpg:80:webp:70`), used when ``quality``
    /// is not set; 0 is the server's general default. Later pairs override earlier ones. Empty by default.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// `max_bytes` / `mb`: the server re-encodes with lower quality (JPEG, WebP, AVIF) until the result
    /// fits in this many bytes, so a page weight budget holds. 0 (no limit) by default.
    public var maxBytes = 0
    /// `skip_processing` / `skp`: source formats sent back untouched (`skp:svg:gif`), as imgproxy. Empty by
    /// default; each option adds to the set.
    public var skipProcessingFormats: Set<ImageFormat> = []
    /// `raw`: stream the source without processing and without the server's processing queue and limits
    /// (imgproxy's `raw`). false by default.
    public var raw = false

    // MARK: Per-request limits (the server checks IMGPROXY_ALLOW_SECURITY_OPTIONS)

    /// `max_src_resolution` / `msr`: the largest source in megapixels for this request (imgproxy's
    /// `IMGPROXY_MAX_SRC_RESOLUTION`). nil: the server's. The server must refuse it (403) unless security
    /// options are allowed.
    public var maxSourceResolution: Double?
    /// `max_src_file_size` / `msfs`: the largest source in bytes for this request; 0 is no limit. nil: the
    /// server's. Security option, as ``maxSourceResolution``.
    public var maxSourceFileSize: Int?
    /// `max_animation_frames` / `maf`: the most frames an animated source may have (≥ 1). nil: the server's.
    /// Security option, as ``maxSourceResolution``.
    public var maxAnimationFrames: Int?
    /// `max_animation_frame_resolution` / `mafr`: the largest animation frame in megapixels; 0 is no limit.
    /// nil: the server's. Security option, as ``maxSourceResolution``.
    public var maxAnimationFrameResolution: Double?
    /// `max_result_dimension` / `mrd`: the result (with extend and padding) is scaled down until its width
    /// and height are at most this many pixels, as imgproxy; 0 is no limit. nil: none (a server sets its
    /// `IMGPROXY_MAX_RESULT_DIMENSION` here when the URL has none). Applied by
    /// ``transformer(watermarkImage:isCancelled:)``; a security option, as ``maxSourceResolution``.
    public var maxResultDimension: Int?

    /// No options: nothing to do.
    public init() {}

    /// Parses the text form: options separated by `/` (empty segments are skipped).
    public init(parsing text: String) throws(ImageError) {
        try self.init(segments: text.split(separator: "/", omittingEmptySubsequences: true))
    }

    /// Parses options already split on `/`, as a server finds them in a URL path.
    public init(segments: [Substring]) throws(ImageError) {
        self.init()
        for segment in segments where !segment.isEmpty {
            try apply(segment)
        }
        try validateCombination()
    }

    /// The largest ``devicePixelRatio``: phones are 2x to 4x; more only multiplies the work.
    public static let maximumDevicePixelRatio: Double = 8

    /// The largest ``zoomWidth`` and ``zoomHeight``: more only multiplies the work (sizes are limited too).
    public static let maximumZoom: Double = 100

    /// The largest gravity, crop and extend offset in points or pixels: farther than any image is wide.
    public static let maximumOffset = Double(maximumDimension)

    /// The largest width, height, padding or extend size in pixels (after ``devicePixelRatio``): an RGBA
    /// image 16384 pixels square is already 1 GiB, and WebP cannot encode more than 16383 pixels a side.
    public static let maximumDimension = 16384
}

extension ProcessingOptions {
    /// `trim:%threshold:%color:%equal_hor:%equal_ver`.
    public struct Trim: Sendable, Hashable {
        /// How far (0...255 per channel) a pixel may be from the border colour and still be trimmed.
        public var threshold: Double
        /// The colour to trim; nil: the top-left pixel's.
        public var color: RGBAColor?
        /// Trim the same amount from left and right (the smaller of the two).
        public var equalHorizontal: Bool
        /// Trim the same amount from top and bottom.
        public var equalVertical: Bool

        /// A trim; values are checked when the transformer is built.
        public init(
            threshold: Double, color: RGBAColor? = nil, equalHorizontal: Bool = false,
            equalVertical: Bool = false
        ) {
            self.threshold = threshold
            self.color = color
            self.equalHorizontal = equalHorizontal
            self.equalVertical = equalVertical
        }
    }

    /// `crop:%width:%height:%gravity`: each size ≥ 1 is pixels, below 1 a fraction of the image, 0 all of it.
    public struct Crop: Sendable, Hashable {
        /// Pixels (≥ 1), a fraction of the image's width (< 1), or 0 for all of it.
        public var width: Double
        /// Pixels (≥ 1), a fraction of the image's height (< 1), or 0 for all of it.
        public var height: Double
        /// nil: the ``ProcessingOptions/gravity`` option's (with its offsets).
        public var gravity: Gravity?
        /// The gravity's x offset in source pixels (|x| ≥ 1) or a fraction of the width (below 1), as
        /// ``ProcessingOptions/gravityOffsetX``; used with ``gravity``. 0 by default.
        public var offsetX: Double
        /// The gravity's y offset, as ``offsetX``. 0 by default.
        public var offsetY: Double

        /// A crop; values are checked when the transformer is built.
        public init(width: Double, height: Double, gravity: Gravity? = nil, offsetX: Double = 0, offsetY: Double = 0) {
            self.width = width
            self.height = height
            self.gravity = gravity
            self.offsetX = offsetX
            self.offsetY = offsetY
        }
    }

    /// `colorize:%opacity:%color:%keep_alpha:%blend_mode` (imgproxy Pro's colorize, plus a blend mode).
    public struct Colorize: Sendable, Hashable {
        /// 0...1; how strongly the colour covers the image.
        public var opacity: Double
        /// The overlay colour (opaque; its strength is ``opacity``). Black by default, as imgproxy.
        public var color: RGBAColor
        /// How the colour mixes with the image. `.normal` by default.
        public var blendMode: BlendMode

        /// An overlay; values are checked when the transformer is built.
        public init(opacity: Double, color: RGBAColor = .black, blendMode: BlendMode = .normal) {
            self.opacity = opacity
            self.color = color
            self.blendMode = blendMode
        }
    }

    /// `monochrome:%intensity:%color` (imgproxy Pro).
    public struct Monochrome: Sendable, Hashable {
        /// 0 < intensity ≤ 1: how much of the palette replaces the colours.
        public var intensity: Double
        /// The palette's colour, `b3b3b3` (plain gray) by default, as imgproxy.
        public var color: RGBAColor

        /// A monochrome effect; values are checked when the transformer is built.
        public init(intensity: Double, color: RGBAColor = MonochromeTransformer.defaultColor) {
            self.intensity = intensity
            self.color = color
        }
    }

    /// `duotone:%intensity:%color1:%color2` (imgproxy Pro).
    public struct Duotone: Sendable, Hashable {
        /// 0 < intensity ≤ 1: how much of the palette replaces the colours.
        public var intensity: Double
        /// The colour of the dark tones, black by default.
        public var dark: RGBAColor
        /// The colour of the light tones, white by default.
        public var light: RGBAColor

        /// A duotone effect; values are checked when the transformer is built.
        public init(intensity: Double, dark: RGBAColor = .black, light: RGBAColor = .white) {
            self.intensity = intensity
            self.dark = dark
            self.light = light
        }
    }

    /// `rounded_corners:%radius:%border_width:%border_color`.
    public struct RoundedCorners: Sendable, Hashable {
        /// Corner radius in points (multiplied by the dpr).
        public var radius: Double
        /// Border width in points; 0 draws none.
        public var borderWidth: Double
        /// The border's colour, white by default.
        public var borderColor: RGBAColor

        /// Rounded corners; values are checked when the transformer is built.
        public init(radius: Double, borderWidth: Double = 0, borderColor: RGBAColor = .white) {
            self.radius = radius
            self.borderWidth = borderWidth
            self.borderColor = borderColor
        }
    }

    /// `circle:%border_width:%border_color`.
    public struct Circle: Sendable, Hashable {
        /// Border width in points; 0 draws none.
        public var borderWidth: Double
        /// The border's colour, white by default.
        public var borderColor: RGBAColor

        /// A circle; values are checked when the transformer is built.
        public init(borderWidth: Double = 0, borderColor: RGBAColor = .white) {
            self.borderWidth = borderWidth
            self.borderColor = borderColor
        }
    }

    /// `extend:%extend:%gravity:%x_offset:%y_offset` (and `extend_aspect_ratio`, the same arguments): where
    /// the image sits on the grown canvas.
    public struct Extend: Sendable, Hashable {
        /// Where the image sits on the grown canvas (not `.smart`). `.center` by default.
        public var gravity: Gravity
        /// Moves the image along x away from the gravity's edge: |x| ≥ 1 is points (times the effective dpr),
        /// below 1 a fraction of the canvas. 0 by default.
        public var offsetX: Double
        /// As ``offsetX``, along y. 0 by default.
        public var offsetY: Double

        /// An extend placing the image by `gravity` and the offsets.
        public init(gravity: Gravity = .center, offsetX: Double = 0, offsetY: Double = 0) {
            self.gravity = gravity
            self.offsetX = offsetX
            self.offsetY = offsetY
        }
    }

    /// `padding:%top:%right:%bottom:%left` in points, CSS-style.
    public struct Padding: Sendable, Hashable {
        /// Points added above the image.
        public var top: Int
        /// Points added right of the image.
        public var right: Int
        /// Points added below the image.
        public var bottom: Int
        /// Points added left of the image.
        public var left: Int

        /// Padding on each side; values are checked when the transformer is built.
        public init(top: Int, right: Int, bottom: Int, left: Int) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }
    }
}

/// `watermark:%opacity:%position:%x_offset:%y_offset:%scale`: where and how the watermark image given to
/// ``ProcessingOptions/transformer(watermarkImage:isCancelled:)`` is drawn.
public struct WatermarkOption: Sendable, Hashable {
    /// 0 < opacity ≤ 1 (`wm:0` turns the watermark off).
    public var opacity: Double
    /// Where it sits. `.center` by default, as imgproxy; `.smart` is not allowed.
    public var position: Gravity
    /// Horizontal offset from the position: |x| ≥ 1 is points (multiplied by the dpr), below 1 a fraction of
    /// the image's width. 0 by default.
    public var offsetX: Double
    /// Vertical offset, as ``offsetX``.
    public var offsetY: Double
    /// The watermark's width relative to the image's; nil keeps its own size.
    public var scale: Double?
    /// Tile the watermark over the whole image (position `re`); the offsets are then the spacing between
    /// tiles. False by default.
    public var replicate: Bool

    /// A watermark placement; values are checked when the transformer is built.
    public init(
        opacity: Double, position: Gravity = .center, offsetX: Double = 0, offsetY: Double = 0,
        scale: Double? = nil, replicate: Bool = false
    ) {
        self.opacity = opacity
        self.position = position
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.scale = scale
        self.replicate = replicate
    }
}

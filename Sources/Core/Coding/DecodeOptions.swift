import Foundation

/// What a coder is asked to produce when it decodes. Built by the manager from the request's
/// ``ImageOptions`` and ``ImageContext``, so a cache hit decodes exactly like a fresh download.
public struct DecodeOptions: Sendable, Hashable {
    /// Default pixel limit: 100 megapixels (400 MB as RGBA). Enough for any photo a camera takes,
    /// small enough that a hostile header cannot make us allocate gigabytes.
    public static let defaultMaxPixelCount = 100_000_000

    /// Default frame limit: 5,000 frames. A ten-minute GIF at 8 frames per second stays under it; the work
    /// an animation costs is bounded by ``defaultMaxTotalPixelCount``, so this only caps the per-frame
    /// bookkeeping (durations, indexes) a file of tiny frames can make us keep.
    /// <doc:DecodingUntrustedImages> compares the defaults with other image libraries'.
    public static let defaultMaxFrameCount = 5_000

    /// Default work limit across all frames: 1,000 megapixels, counting every frame's canvas (composed) and
    /// its own rectangle (decompressed), and every progressive JPEG scan (at the stored size, thumbnails
    /// too: libjpeg walks every block of a scan at any output scale). A few seconds of CPU: ten full-size
    /// frames of the largest still we accept. Frames are composed lazily, a few canvases at a time, so the
    /// limit is on work rather than on memory.
    public static let defaultMaxTotalPixelCount = 1_000_000_000

    /// Default progressive JPEG scan limit: 500. Files of many scans are cheap to store and expensive to
    /// decode. Real encoders write about 10 (libjpeg's default script) to a few dozen (mozjpeg's search),
    /// so 500 refuses only files made to waste time, and the work budget (``defaultMaxTotalPixelCount``)
    /// bounds what 500 scans of a large image may cost. <doc:DecodingUntrustedImages> gives libjpeg-turbo's
    /// own advice on the cap.
    public static let defaultMaxProgressiveScanCount = 500

    /// Default time limit of one decode call (a whole decode, one incremental step, or one call for a
    /// lazily decoded animation's frame, which may compose several): 30 seconds, far above any decode the
    /// budgets above allow on one core, so it only stops work a budget did not foresee.
    public static let defaultTimeLimit: Duration = .seconds(30)

    /// Longest side `scaleDownLargeImages` decodes to: 4096 px, about 64 MB as RGBA at most, what a
    /// display can use and a server can hold for many requests at once.
    public static let scaleDownLimit = 4096

    /// Decode to at most this size (a thumbnail); nil decodes at full size.
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size, keep the image's shape (fit inside) rather than filling the size exactly.
    /// True by default.
    public var preserveAspectRatio: Bool
    /// Points-per-pixel scale to stamp on the image. 1 by default.
    public var scale: Double
    /// Decode only the first frame of an animation, giving a still image.
    public var firstFrameOnly: Bool
    /// Decode every frame of an animation up front instead of lazily.
    public var preloadAllFrames: Bool
    /// Apply the EXIF orientation to the pixels. True by default; the orientation is reported either way.
    public var applyOrientation: Bool
    /// Refuse images with more pixels than this, checked from the header before pixel memory is allocated.
    public var maxPixelCount: Int
    /// For truncated data: return what was decoded (true) or fail with `.badImageData` (false, the default).
    public var allowPartialImage: Bool
    /// Refuse animations with more frames than this, from the header, before decoding any frame.
    /// ``defaultMaxFrameCount`` by default. Not checked with ``firstFrameOnly``.
    public var maxFrameCount: Int
    /// Refuse images whose decode would touch more pixels than this in all (see
    /// ``defaultMaxTotalPixelCount`` for what counts), checked from the headers before decoding where the
    /// format allows, and while decoding otherwise (progressive scans).
    public var maxTotalPixelCount: Int
    /// Stop progressive JPEG decodes that reach more scans than this. ``defaultMaxProgressiveScanCount``
    /// by default.
    public var maxProgressiveScanCount: Int
    /// Longest one decode call may run before it stops with `.decodeBudgetExceeded(.time, ...)`; nil for no
    /// limit. ``defaultTimeLimit`` by default. Checked inside the C libraries (per row, scan, chunk or frame).
    public var timeLimit: Duration?
    /// Stops a decode from another thread; a decode running inside a cancelled `Task` stops as well.
    /// Coders keep the token for the lazy frames of the images they return, so once it is cancelled those
    /// frames fail with `.cancelled` too: give a token only to decodes whose images you will not keep
    /// (`Task` cancellation, which the manager uses, has no such effect). Nil by default.
    public var cancellation: DecodeCancellation?
    /// What to do with an embedded ICC profile: ``ColorConversion/sRGB(_:)`` converts the pixels to sRGB
    /// (see ``ColorProfileConverter``), ``ColorConversion/off`` keeps them as stored. Nil (the default)
    /// leaves the choice to the ``ImageCodersManager`` that decodes (its
    /// ``ImageCodersManager/defaultColorConversion``: off in Core, sRGB in the `WebImage` module); a coder
    /// called directly treats nil as off. The built-in coders convert as they finish a decode (after any
    /// thumbnail resize; CMYK JPEG before it, through the profile); the manager converts what a custom coder
    /// left with a profile.
    public var colorConversion: ColorConversion? = nil
    /// Convert a PNG that has a `gAMA` chunk (and maybe `cHRM`) but neither `iCCP` nor `sRGB` to sRGB as
    /// Chrome and Firefox show it: its values are decoded with the file's gamma (linear = value ^ (1 /
    /// gAMA)), in the colour space of its `cHRM` primaries and white point (sRGB's without `cHRM`), then
    /// converted to sRGB. Off by default, as libvips and imgproxy, which show the stored values. Needs a
    /// converter (``colorConversion`` ``ColorConversion/sRGB(_:)`` with one that implements
    /// ``ColorProfileConverter/iccProfile(for:)``, as `LittleCMSConverter` does). Still PNG decodes only: the
    /// frames of an animated PNG are kept as stored. A gray file it converts is decoded as RGB.
    public var appliesPNGGamma = false
    /// How many times the thumbnail size a codec's own cheap scaling (JPEG's DCT scaling, libwebp's
    /// scaler) must leave before Core's Lanczos3 resample makes the exact size. The default,
    /// ``ImageResampler/thumbnailReducingGap`` (2, libvips's rule), gives the filter two source pixels per
    /// output pixel. 1 lets the codec go as far as the thumbnail size itself: a 12 MP JPEG fitted into
    /// 500 pixels decodes at 1/8 scale with no resample after it: less work for a softer, slightly
    /// aliased result (a block average), the trade imgproxy and thumbor's shrink-on-load make.
    /// Values below 1 are taken as 1.
    public var thumbnailReducingGap: Double = ImageResampler.thumbnailReducingGap

    /// Options with the given values; each has the default documented on its property.
    public init(
        thumbnailPixelSize: PixelSize? = nil, preserveAspectRatio: Bool = true, scale: Double = 1,
        firstFrameOnly: Bool = false, preloadAllFrames: Bool = false, applyOrientation: Bool = true,
        maxPixelCount: Int = DecodeOptions.defaultMaxPixelCount, allowPartialImage: Bool = false,
        maxFrameCount: Int = DecodeOptions.defaultMaxFrameCount,
        maxTotalPixelCount: Int = DecodeOptions.defaultMaxTotalPixelCount,
        maxProgressiveScanCount: Int = DecodeOptions.defaultMaxProgressiveScanCount,
        timeLimit: Duration? = DecodeOptions.defaultTimeLimit, cancellation: DecodeCancellation? = nil
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scale = scale
        self.firstFrameOnly = firstFrameOnly
        self.preloadAllFrames = preloadAllFrames
        self.applyOrientation = applyOrientation
        self.maxPixelCount = maxPixelCount
        self.allowPartialImage = allowPartialImage
        self.maxFrameCount = maxFrameCount
        self.maxTotalPixelCount = maxTotalPixelCount
        self.maxProgressiveScanCount = maxProgressiveScanCount
        self.timeLimit = timeLimit
        self.cancellation = cancellation
    }

    /// Throws `.imageTooLarge` when `width` x `height` exceeds ``maxPixelCount`` or is not positive;
    /// coders call it right after reading the header.
    public func checkDimensions(width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw .badImageData(reason: "image has a zero dimension (\(width)x\(height))")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixelCount {
            throw .imageTooLarge(width: width, height: height, limit: maxPixelCount)
        }
    }

    /// `pixels` resampled to ``outputSize(width:height:)``; the same buffer when no resize is asked for.
    public func resizedToOutput(_ pixels: PixelBuffer) -> PixelBuffer {
        let size = outputSize(width: pixels.width, height: pixels.height)
        guard size.width != pixels.width || size.height != pixels.height else { return pixels }
        return ImageResampler.resample(pixels, width: size.width, height: size.height)
    }

    /// The output size for an image of `width` x `height` under these options (the thumbnail size, or
    /// the full size).
    public func outputSize(width: Int, height: Int) -> PixelSize {
        guard let limit = thumbnailPixelSize else { return PixelSize(width: width, height: height) }
        return ImageResampler.thumbnailSize(
            width: width, height: height, limit: limit,
            preserveAspectRatio: preserveAspectRatio)
    }
}

/// What a coder is asked to produce when it encodes.
public struct EncodeOptions: Sendable, Hashable {
    /// Chroma subsampling for lossy formats that have it.
    public enum ChromaSubsampling: String, Sendable, Hashable, CaseIterable {
        /// Full color resolution (4:4:4).
        case none
        /// Half horizontal color resolution (4:2:2).
        case half
        /// Half horizontal and vertical color resolution (4:2:0); the usual choice for photos.
        case quarter
    }

    /// How a lossless encoder predicts each row from the one above before compressing (PNG).
    public enum RowFilter: String, Sendable, Hashable, CaseIterable {
        /// The encoder's choice per row (libpng tries each filter): smallest files.
        case adaptive
        /// No prediction: the raw rows are compressed.
        case none
    }

    /// Lossy quality from 0 (smallest) to 1 (best). 0.9 by default.
    public var quality: Double
    /// Lossless compression effort for PNG/WebP lossless, 0 (fastest) to 9 (smallest). 6 by default.
    public var compressionLevel: Int
    /// Encode losslessly where the format can (WebP).
    public var lossless: Bool
    /// Progressive (JPEG) or interlaced output.
    public var progressive: Bool
    /// Chroma subsampling for JPEG. `.quarter` by default.
    public var chromaSubsampling: ChromaSubsampling
    /// Shrink the image to fit inside this size before encoding; nil keeps it.
    public var maxPixelSize: PixelSize?
    /// Encode only the first frame of an animation.
    public var firstFrameOnly: Bool
    /// Embed this ICC profile where the format can carry one.
    public var iccProfile: Data?
    /// Without ``iccProfile``: embed the image's own profile (``ImageMetadata/iccProfile``) where the format
    /// can carry one (PNG, WebP, JPEG), so colours survive a re-encode of unconverted pixels. False (strip)
    /// by default. An image converted to sRGB on decode has no profile left to keep; see
    /// ``colorProfile(for:)``.
    public var keepsColorProfile: Bool = false
    /// How hard a lossy encoder searches for a smaller file at the same quality, from 0 (fastest, largest)
    /// to 6 (slowest, smallest): libwebp's `method`, libvips's and sharp's `effort`. nil (the default)
    /// keeps the encoder's own default, 4. Used by lossy WebP; an image server trades a few percent of
    /// bytes for half the encode time at 2.
    public var lossyEffort: Int?
    /// PNG's per-row prediction before deflate. ``RowFilter/adaptive`` (the default) gives the smallest
    /// files; ``RowFilter/none``, as libvips (and so imgproxy) saves, encodes several times faster for files
    /// about twice as large on photos: the trade an image server answering PNG under load makes.
    public var rowFilter: RowFilter = .adaptive

    /// Options with the given values; each has the default documented on its property.
    public init(
        quality: Double = 0.9, compressionLevel: Int = 6, lossless: Bool = false, progressive: Bool = false,
        chromaSubsampling: ChromaSubsampling = .quarter, maxPixelSize: PixelSize? = nil,
        firstFrameOnly: Bool = false, iccProfile: Data? = nil
    ) {
        self.quality = quality
        self.compressionLevel = compressionLevel
        self.lossless = lossless
        self.progressive = progressive
        self.chromaSubsampling = chromaSubsampling
        self.maxPixelSize = maxPixelSize
        self.firstFrameOnly = firstFrameOnly
        self.iccProfile = iccProfile
    }
}

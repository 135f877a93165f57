import WebImageCore

extension ProcessingOptions {
    /// Brightness, as imgproxy Pro: added to each channel.
    static let brightnessRange = -255...255
    /// Contrast and saturation factors: 1 keeps the image; 100 is far past where every channel saturates.
    static let factorRange: ClosedRange<Double> = 0...100

    /// Applies one `name:arg:arg` segment.
    mutating func apply(_ segment: Substring) throws(ImageError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        let name = String(parts[0])
        var a = ProcessingArguments(option: name, values: Array(parts.dropFirst()))
        let dimensions = 0...Self.maximumDimension
        switch name {
        case "rs", "resize":
            try a.expectAtMost(8)
            try parseResizingType(&a)
            try parseSize(&a)
        case "s", "size":
            try a.expectAtMost(7)
            try parseSize(&a)
        case "rt", "resizing_type":
            try a.expectAtMost(1)
            try parseResizingType(&a)
        case "w", "width":
            try a.expectAtMost(1)
            width = try a.int("width", default: 0, in: dimensions)
        case "h", "height":
            try a.expectAtMost(1)
            height = try a.int("height", default: 0, in: dimensions)
        case "el", "enlarge":
            try a.expectAtMost(1)
            enlarge = a.bool("enlarge", default: false)
        case "ex", "extend":
            try a.expectAtMost(4)
            extend = try parseExtend(&a)
        case "exar", "extend_ar", "extend_aspect_ratio":
            try a.expectAtMost(4)
            extendAspectRatio = try parseExtend(&a)
        case "g", "gravity":
            try a.expectAtMost(3)
            let parsed = try a.gravity() ?? GravityArgument(gravity: .center)
            gravity = parsed.gravity
            gravityOffsetX = parsed.offsetX
            gravityOffsetY = parsed.offsetY
        case "mw", "min-width":
            try a.expectAtMost(1)
            minWidth = try a.int("min width", default: 0, in: dimensions)
        case "mh", "min-height":
            try a.expectAtMost(1)
            minHeight = try a.int("min height", default: 0, in: dimensions)
        case "z", "zoom":
            try a.expectAtMost(2)
            try parseZoom(&a)
        case "ra", "resizing_algorithm":
            try a.expectAtMost(1)
            try parseFilter(&a)
        case "dpr":
            try a.expectAtMost(1)
            let ratio = try a.double("dpr", default: 1, in: 0...Self.maximumDevicePixelRatio)
            guard ratio > 0 else { throw a.invalid("dpr must be greater than 0") }
            devicePixelRatio = ratio
        case "c", "crop":
            try a.expectAtMost(5)
            try parseCrop(&a)
        case "t", "trim":
            try a.expectAtMost(4)
            try parseTrim(&a)
        case "rot", "rotate":
            try a.expectAtMost(1)
            try parseRotation(&a)
        case "fl", "flip":
            try a.expectAtMost(2)
            // A bare `fl` mirrors left-right, as imgproxy.
            let bare = a.remaining == 0
            flipHorizontally = a.bool("horizontal", default: bare)
            flipVertically = a.bool("vertical", default: false)
        case "bl", "blur":
            try a.expectAtMost(1)
            blur = try a.double("sigma", default: 0, in: 0...BlurTransformer.maximumSigma)
        case "sh", "sharpen":
            try a.expectAtMost(1)
            sharpen = try a.double("sigma", default: 0, in: 0...SharpenTransformer.maximumSigma)
        case "pix", "pixelate":
            try a.expectAtMost(1)
            let size = try a.int("size", default: 0, in: 0...PixelateTransformer.maximumBlockSize)
            pixelate = size <= 1 ? 0 : size  // 1 changes nothing, as 0
        case "a", "adjust":
            try a.expectAtMost(3)
            brightness = try a.int("brightness", default: brightness, in: Self.brightnessRange)
            contrast = try a.double("contrast", default: contrast, in: Self.factorRange)
            saturation = try a.double("saturation", default: saturation, in: Self.factorRange)
        case "br", "brightness":
            try a.expectAtMost(1)
            brightness = try a.int("brightness", default: 0, in: Self.brightnessRange)
        case "co", "contrast":
            try a.expectAtMost(1)
            contrast = try a.double("contrast", default: 1, in: Self.factorRange)
        case "sa", "saturation":
            try a.expectAtMost(1)
            saturation = try a.double("saturation", default: 1, in: Self.factorRange)
        case "gs", "grayscale":
            try a.expectAtMost(1)
            grayscale = a.bool("grayscale", default: true)
        case "mc", "monochrome":
            try a.expectAtMost(2)
            let intensity = try a.double("intensity", default: 0, in: DuotoneTransformer.intensityRange)
            let color = try a.color("color") ?? MonochromeTransformer.defaultColor
            monochrome = intensity == 0 ? nil : Monochrome(intensity: intensity, color: Self.opaque(color))
        case "dt", "duotone":
            try a.expectAtMost(3)
            let intensity = try a.double("intensity", default: 0, in: DuotoneTransformer.intensityRange)
            let dark = try a.color("dark color") ?? .black
            let light = try a.color("light color") ?? .white
            duotone =
                intensity == 0 ? nil : Duotone(intensity: intensity, dark: Self.opaque(dark), light: Self.opaque(light))
        case "col", "colorize":
            try a.expectAtMost(4)
            try parseColorize(&a)
        case "rc", "rounded_corners":
            try a.expectAtMost(3)
            try parseRoundedCorners(&a)
        case "ci", "circle":
            try a.expectAtMost(2)
            let border = try a.double("border width", default: 0, in: 0...Double(Self.maximumDimension))
            circle = Circle(borderWidth: border, borderColor: try a.color("border color") ?? .white)
        case "pd", "padding":
            try a.expectAtMost(4)
            try parsePadding(&a)
        case "bg", "background":
            try a.expectAtMost(3)
            try parseBackground(&a)
        case "wm", "watermark":
            try a.expectAtMost(5)
            try parseWatermark(&a)
        case "q", "quality":
            try a.expectAtMost(1)
            let value = try a.int("quality", default: 0, in: 0...100)
            quality = value == 0 ? nil : value
        case "f", "format", "ext":
            try a.expectAtMost(1)
            try parseFormat(&a)
        default:
            guard try applyHandling(name, &a) else {
                throw .invalidParameter(
                    name: name.isEmpty ? String(segment) : name, reason: "unknown processing option")
            }
        }
    }

    /// The options the server acts on (metadata, encoding, limits); false for a name that is none of them.
    private mutating func applyHandling(_ name: String, _ a: inout ProcessingArguments) throws(ImageError) -> Bool {
        switch name {
        case "sm", "strip_metadata":
            try a.expectAtMost(1)
            stripMetadata = a.optionalBool() ?? stripMetadata
        case "kcr", "keep_copyright":
            try a.expectAtMost(1)
            keepCopyright = a.optionalBool() ?? keepCopyright
        case "scp", "strip_color_profile":
            try a.expectAtMost(1)
            stripColorProfile = a.optionalBool() ?? stripColorProfile
        case "eth", "enforce_thumbnail":
            try a.expectAtMost(1)
            enforceThumbnail = a.optionalBool() ?? enforceThumbnail
        case "ar", "auto_rotate":
            try a.expectAtMost(1)
            autoRotate = a.optionalBool() ?? autoRotate
        case "raw":
            try a.expectAtMost(1)
            raw = a.bool("raw", default: raw)
        case "fq", "format_quality":
            try parseFormatQuality(&a)
        case "mb", "max_bytes":
            try a.expectAtMost(1)
            maxBytes = try a.int("max_bytes", default: 0, in: Self.maxBytesRange)
        case "skp", "skip_processing":
            while a.remaining > 0 {
                guard let name = a.next() else { continue }
                guard let format = ProcessingNames.sourceFormat(name) else {
                    throw a.invalid("unknown image format \"\(name)\" in skip processing")
                }
                skipProcessingFormats.insert(format)
            }
        case "msr", "max_src_resolution":
            try a.expectAtMost(1)
            maxSourceResolution = try a.optionalDouble("megapixels", in: Self.megapixelRange)
            guard maxSourceResolution != 0 else { throw a.invalid("must be greater than 0") }
        case "msfs", "max_src_file_size":
            try a.expectAtMost(1)
            maxSourceFileSize = try a.optionalInt("bytes", in: Self.maxBytesRange)
        case "maf", "max_animation_frames":
            try a.expectAtMost(1)
            maxAnimationFrames = try a.optionalInt("frames", in: Self.animationFramesRange)
        case "mafr", "max_animation_frame_resolution":
            try a.expectAtMost(1)
            maxAnimationFrameResolution = try a.optionalDouble("megapixels", in: Self.megapixelRange)
        case "mrd", "max_result_dimension":
            try a.expectAtMost(1)
            maxResultDimension = try a.optionalInt("pixels", in: 0...Int(Int32.max))
        default:
            return false
        }
        return true
    }

    private mutating func parseFormatQuality(_ a: inout ProcessingArguments) throws(ImageError) {
        guard a.remaining % 2 == 0 else { throw a.invalid("takes format:quality pairs") }
        while a.remaining > 0 {
            guard let name = a.next() else { throw a.invalid("a format is missing") }
            guard let format = ProcessingNames.sourceFormat(name) else {
                throw a.invalid("unknown image format \"\(name)\"")
            }
            guard a.peek() != nil else { throw a.invalid("the quality of \(name) is missing") }
            formatQuality[format] = try a.int("quality", default: 0, in: 0...100)
        }
    }

    private mutating func parseZoom(_ a: inout ProcessingArguments) throws(ImageError) {
        guard a.peek() != nil else { throw a.invalid("needs a factor") }
        let range = 0...Self.maximumZoom
        let first = try a.double("zoom", default: 1, in: range)
        let second = try a.double("zoom", default: first, in: range)
        guard first > 0, second > 0 else { throw a.invalid("zoom must be greater than 0") }
        zoomWidth = first
        zoomHeight = second
    }

    /// The colour without its alpha: palettes have none (imgproxy reads only the RGB of these colours).
    static func opaque(_ color: RGBAColor) -> RGBAColor {
        RGBAColor(red: color.red, green: color.green, blue: color.blue)
    }

    /// Checks what no single option can: sizes after the dpr and zoom.
    func validateCombination() throws(ImageError) {
        let largest = Double(Self.maximumDimension)
        let sides = [
            ("width", width, zoomWidth), ("height", height, zoomHeight), ("min width", minWidth, 1),
            ("min height", minHeight, 1),
        ]
        for (name, value, zoom) in sides where Double(value) * devicePixelRatio * zoom > largest {
            throw .invalidParameter(
                name: "dpr",
                reason: "\(name) \(value) times dpr \(ProcessingNumber.text(devicePixelRatio))"
                    + (zoom == 1 ? "" : " and zoom \(ProcessingNumber.text(zoom))")
                    + " is over \(Self.maximumDimension) pixels")
        }
    }

    /// `max_bytes` and `max_src_file_size`: up to 2 GiB, more than any image the server keeps in memory.
    static let maxBytesRange = 0...Int(Int32.max)
    /// `max_src_resolution` and `max_animation_frame_resolution`, in megapixels: a 2^31-pixel image is the
    /// most any decoder here accepts.
    static let megapixelRange: ClosedRange<Double> = 0...2147
    /// `max_animation_frames`: at least one; 100 000 frames is beyond any real animation.
    static let animationFramesRange = 1...100_000

    // MARK: Options with several arguments

    private mutating func parseFormat(_ a: inout ProcessingArguments) throws(ImageError) {
        guard let name = a.next() else { format = nil; return }
        // `svg` is a format imgproxy's URLs may name: only an SVG source can be answered as SVG (passed
        // through), which the caller knows once it has the source.
        guard let named = ProcessingNames.sourceFormat(name) else {
            throw a.invalid("unknown format \"\(name)\" (jpg, png, webp, gif, avif, tiff, heic, bmp, ico, jxl, svg)")
        }
        format = named
    }

    private mutating func parseResizingType(_ a: inout ProcessingArguments) throws(ImageError) {
        guard let name = a.next() else { return }
        guard let mode = ProcessingNames.resizeMode(name) else {
            throw a.invalid("unknown resizing type \"\(name)\" (fit, fill, fill-down, force, auto)")
        }
        resizingType = mode
    }

    /// `%width:%height:%enlarge:%extend:%gravity:%x:%y`, shared by `rs` and `s`; an empty argument keeps
    /// the value set so far.
    private mutating func parseSize(_ a: inout ProcessingArguments) throws(ImageError) {
        width = try a.int("width", default: width, in: 0...Self.maximumDimension)
        height = try a.int("height", default: height, in: 0...Self.maximumDimension)
        enlarge = a.bool("enlarge", default: enlarge)
        if a.peek() != nil { extend = try parseExtend(&a) }
    }

    /// `%extend:%gravity:%x:%y` of `ex` and `exar`: nil when off.
    private func parseExtend(_ a: inout ProcessingArguments) throws(ImageError) -> Extend? {
        guard a.bool("extend", default: false) else { return nil }
        guard let parsed = try a.gravity(allowSmart: false) else { return Extend() }
        return Extend(gravity: parsed.gravity, offsetX: parsed.offsetX, offsetY: parsed.offsetY)
    }

    private mutating func parseFilter(_ a: inout ProcessingArguments) throws(ImageError) {
        guard let name = a.next() else { resamplingFilter = .lanczos3; return }
        guard let filter = ProcessingNames.filter(name) else {
            throw a.invalid("unknown resizing algorithm \"\(name)\" (nearest, linear, cubic, mitchell, lanczos3, box)")
        }
        resamplingFilter = filter
    }

    private mutating func parseCrop(_ a: inout ProcessingArguments) throws(ImageError) {
        let bound = Double(Self.maximumDimension * 4)  // a crop is in source pixels, which may exceed the output limit
        let width = try a.double("width", default: 0, in: 0...bound)
        let height = try a.double("height", default: 0, in: 0...bound)
        let parsed = try a.gravity()
        crop =
            width == 0 && height == 0
            ? nil
            : Crop(
                width: width, height: height, gravity: parsed?.gravity, offsetX: parsed?.offsetX ?? 0,
                offsetY: parsed?.offsetY ?? 0)
    }

    private mutating func parseTrim(_ a: inout ProcessingArguments) throws(ImageError) {
        guard a.peek() != nil else { throw a.invalid("needs a threshold") }
        let threshold = try a.double("threshold", default: 0, in: 0...255)
        trim = Trim(
            threshold: threshold, color: try a.color("color"),
            equalHorizontal: a.bool("equal_hor", default: false),
            equalVertical: a.bool("equal_ver", default: false))
    }

    private mutating func parseRotation(_ a: inout ProcessingArguments) throws(ImageError) {
        let fullTurn: Double = 360
        let degrees = try a.double("angle", default: 0, in: -1e9...1e9)
        var turned = degrees.truncatingRemainder(dividingBy: fullTurn)
        if turned < 0 { turned += fullTurn }
        rotation = turned == 0 ? 0 : turned  // never -0
    }

    private mutating func parseColorize(_ a: inout ProcessingArguments) throws(ImageError) {
        let opacity = try a.double("opacity", default: 0, in: 0...1)
        let color = try a.color("color") ?? .black
        guard a.bool("keep_alpha", default: true) else {
            throw a.invalid("keep_alpha must be true: the overlay always keeps the image's alpha")
        }
        var mode = BlendMode.normal
        if let name = a.next() {
            guard let named = ProcessingNames.blendMode(name) else {
                throw a.invalid(
                    "unknown blend mode \"\(name)\" (\(ProcessingNames.blendModes.map(\.name).joined(separator: ", ")))"
                )
            }
            mode = named
        }
        guard color.isOpaque else { throw a.invalid("color must be opaque: opacity sets the strength") }
        colorize = opacity == 0 ? nil : Colorize(opacity: opacity, color: color, blendMode: mode)
    }

    private mutating func parseRoundedCorners(_ a: inout ProcessingArguments) throws(ImageError) {
        let limit = Double(Self.maximumDimension)
        let radius = try a.double("radius", default: 0, in: 0...limit)
        let border = try a.double("border width", default: 0, in: 0...limit)
        let color = try a.color("border color") ?? .white
        roundedCorners =
            radius == 0 && border == 0 ? nil : RoundedCorners(radius: radius, borderWidth: border, borderColor: color)
    }

    /// CSS order: one value for all sides; top+bottom and right+left; top, right+left, bottom; all four.
    private mutating func parsePadding(_ a: inout ProcessingArguments) throws(ImageError) {
        let limit = 0...Self.maximumDimension
        guard a.peek() != nil else { throw a.invalid("needs at least the top padding") }
        let top = try a.int("top", default: 0, in: limit)
        let right = try a.int("right", default: top, in: limit)
        let bottom = try a.int("bottom", default: top, in: limit)
        let left = try a.int("left", default: right, in: limit)
        let sides = Padding(top: top, right: right, bottom: bottom, left: left)
        padding = sides == Padding(top: 0, right: 0, bottom: 0, left: 0) ? nil : sides
    }

    /// `bg:%r:%g:%b`, `bg:%hex`, or `bg` alone to turn it off.
    private mutating func parseBackground(_ a: inout ProcessingArguments) throws(ImageError) {
        switch a.remaining {
        case 0:
            background = nil
        case 1:
            background = try a.color("color")
        case 3:
            let red = try a.int("red", default: 0, in: 0...255)
            let green = try a.int("green", default: 0, in: 0...255)
            let blue = try a.int("blue", default: 0, in: 0...255)
            background = RGBAColor(red: UInt8(red), green: UInt8(green), blue: UInt8(blue))
        default:
            throw a.invalid("takes red:green:blue or one hexadecimal colour")
        }
    }

    private mutating func parseWatermark(_ a: inout ProcessingArguments) throws(ImageError) {
        let opacity = try a.double("opacity", default: 0, in: 0...1)
        var position = Gravity.center
        var replicate = false
        if let code = a.next() {
            if code == "re" {
                replicate = true  // tiled over the image; the offsets are the spacing
            } else {
                guard code != "sm", code != "fp", let named = ProcessingNames.gravity(code: code) else {
                    throw a.invalid(
                        "unknown watermark position \"\(code)\" (ce, no, so, ea, we, noea, nowe, soea, sowe, re)")
                }
                position = named
            }
        }
        let offsetLimit = Double(Self.maximumDimension)
        let x = try a.double("x offset", default: 0, in: -offsetLimit...offsetLimit)
        let y = try a.double("y offset", default: 0, in: -offsetLimit...offsetLimit)
        let scale = try a.double("scale", default: 0, in: 0...1)
        watermark =
            opacity == 0
            ? nil
            : WatermarkOption(
                opacity: opacity, position: position, offsetX: x, offsetY: y, scale: scale == 0 ? nil : scale,
                replicate: replicate)
    }
}

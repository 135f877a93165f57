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
            try a.expectAtMost(5)
            try parseResizingType(&a)
            try parseSize(&a)
        case "s", "size":
            try a.expectAtMost(4)
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
            enlarge = try a.bool("enlarge", default: false)
        case "ex", "extend":
            try a.expectAtMost(4)
            try parseExtend(&a)
        case "g", "gravity":
            try a.expectAtMost(3)
            gravity = try a.gravity() ?? .center
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
            flipHorizontally = try a.bool("horizontal", default: bare)
            flipVertically = try a.bool("vertical", default: false)
        case "bl", "blur":
            try a.expectAtMost(1)
            blur = try a.double("sigma", default: 0, in: 0...BlurTransformer.maximumSigma)
        case "sh", "sharpen":
            try a.expectAtMost(1)
            sharpen = try a.double("sigma", default: 0, in: 0...SharpenTransformer.maximumSigma)
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
            grayscale = try a.bool("grayscale", default: true)
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
            throw .invalidParameter(name: name.isEmpty ? String(segment) : name, reason: "unknown processing option")
        }
    }

    /// Checks what no single option can: sizes after the dpr.
    func validateCombination() throws(ImageError) {
        let largest = Double(Self.maximumDimension)
        for (name, value) in [("width", width), ("height", height)] where Double(value) * devicePixelRatio > largest {
            throw .invalidParameter(name: "dpr", reason: "\(name) \(value) times dpr \(ProcessingNumber.text(devicePixelRatio)) is over \(Self.maximumDimension) pixels")
        }
    }

    // MARK: Options with several arguments

    private mutating func parseFormat(_ a: inout ProcessingArguments) throws(ImageError) {
        guard let name = a.next() else { format = nil; return }
        guard let named = ProcessingNames.format(name) else {
            throw a.invalid("unknown format \"\(name)\" (jpg, png, webp, gif, avif, tiff, heic, bmp, ico, jxl)")
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

    /// `%width:%height:%enlarge:%extend`, shared by `rs` and `s`.
    private mutating func parseSize(_ a: inout ProcessingArguments) throws(ImageError) {
        width = try a.int("width", default: width, in: 0...Self.maximumDimension)
        height = try a.int("height", default: height, in: 0...Self.maximumDimension)
        enlarge = try a.bool("enlarge", default: enlarge)
        if try a.bool("extend", default: extend != nil) {
            extend = extend ?? Extend()
        } else {
            extend = nil
        }
    }

    private mutating func parseExtend(_ a: inout ProcessingArguments) throws(ImageError) {
        guard try a.bool("extend", default: false) else { extend = nil; return }
        extend = Extend(gravity: try a.gravity(allowSmart: false) ?? .center)
    }

    private mutating func parseFilter(_ a: inout ProcessingArguments) throws(ImageError) {
        guard let name = a.next() else { resamplingFilter = .lanczos3; return }
        guard let filter = ProcessingNames.filter(name) else {
            throw a.invalid("unknown resizing algorithm \"\(name)\" (nearest, linear, cubic, mitchell, lanczos3, box)")
        }
        resamplingFilter = filter
    }

    private mutating func parseCrop(_ a: inout ProcessingArguments) throws(ImageError) {
        let bound = Double(Self.maximumDimension * 4)   // a crop is in source pixels, which may exceed the output limit
        let width = try a.double("width", default: 0, in: 0...bound)
        let height = try a.double("height", default: 0, in: 0...bound)
        let gravity = try a.gravity()
        crop = width == 0 && height == 0 ? nil : Crop(width: width, height: height, gravity: gravity)
    }

    private mutating func parseTrim(_ a: inout ProcessingArguments) throws(ImageError) {
        guard a.peek() != nil else { throw a.invalid("needs a threshold") }
        let threshold = try a.double("threshold", default: 0, in: 0...255)
        trim = Trim(threshold: threshold, color: try a.color("color"),
                    equalHorizontal: try a.bool("equal_hor", default: false),
                    equalVertical: try a.bool("equal_ver", default: false))
    }

    private mutating func parseRotation(_ a: inout ProcessingArguments) throws(ImageError) {
        let fullTurn: Double = 360
        let degrees = try a.double("angle", default: 0, in: -1e9...1e9)
        var turned = degrees.truncatingRemainder(dividingBy: fullTurn)
        if turned < 0 { turned += fullTurn }
        rotation = turned == 0 ? 0 : turned   // never -0
    }

    private mutating func parseColorize(_ a: inout ProcessingArguments) throws(ImageError) {
        let opacity = try a.double("opacity", default: 0, in: 0...1)
        let color = try a.color("color") ?? .black
        guard try a.bool("keep_alpha", default: true) else {
            throw a.invalid("keep_alpha must be true: the overlay always keeps the image's alpha")
        }
        var mode = BlendMode.normal
        if let name = a.next() {
            guard let named = ProcessingNames.blendMode(name) else {
                throw a.invalid("unknown blend mode \"\(name)\" (\(ProcessingNames.blendModes.map(\.name).joined(separator: ", ")))")
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
        roundedCorners = radius == 0 && border == 0 ? nil : RoundedCorners(radius: radius, borderWidth: border, borderColor: color)
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
        if let code = a.next() {
            guard code != "sm", code != "fp", let named = ProcessingNames.gravity(code: code) else {
                throw a.invalid("unknown watermark position \"\(code)\" (ce, no, so, ea, we, noea, nowe, soea, sowe; tiling with re is not supported)")
            }
            position = named
        }
        let offsetLimit = Double(Self.maximumDimension)
        let x = try a.double("x offset", default: 0, in: -offsetLimit...offsetLimit)
        let y = try a.double("y offset", default: 0, in: -offsetLimit...offsetLimit)
        let scale = try a.double("scale", default: 0, in: 0...1)
        watermark = opacity == 0 ? nil
            : WatermarkOption(opacity: opacity, position: position, offsetX: x, offsetY: y, scale: scale == 0 ? nil : scale)
    }
}

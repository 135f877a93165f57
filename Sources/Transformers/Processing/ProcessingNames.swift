import WebImageCore

/// The words of the processing-option text: imgproxy's codes for gravities, resizing types, resampling
/// filters and formats, and our names for blend modes. Each table is read both ways, so parsing and
/// printing cannot drift apart.
enum ProcessingNames {
    /// imgproxy's gravity codes (without `fp`, which carries coordinates).
    static let gravities: [(code: String, gravity: Gravity)] = [
        ("ce", .center), ("no", .north), ("so", .south), ("ea", .east), ("we", .west),
        ("noea", .northEast), ("nowe", .northWest), ("soea", .southEast), ("sowe", .southWest), ("sm", .smart),
    ]

    static func gravity(code: Substring) -> Gravity? { gravities.first { $0.code == code }?.gravity }

    /// The canonical text of a gravity, without the option name: `sm`, `fp:0.25:0.75`.
    static func text(_ gravity: Gravity) -> String {
        if case .focalPoint(let x, let y) = gravity {
            return "fp:\(ProcessingNumber.text(x)):\(ProcessingNumber.text(y))"
        }
        return gravities.first { $0.gravity == gravity }?.code ?? "ce"
    }

    /// imgproxy's resizing types.
    static let resizeModes: [(name: String, mode: ResizeMode)] = [
        ("fit", .fit), ("fill", .fill), ("fill-down", .fillDown), ("force", .stretch), ("auto", .auto),
    ]

    static func resizeMode(_ name: Substring) -> ResizeMode? { resizeModes.first { $0.name == name }?.mode }
    static func text(_ mode: ResizeMode) -> String { resizeModes.first { $0.mode == mode }?.name ?? "fit" }

    /// imgproxy Pro's resizing algorithms where ours match (`linear` is bilinear, `cubic` is Catmull-Rom as
    /// in libvips), plus `mitchell` and `box`, which it does not have. imgproxy's `lanczos2` has no match.
    static let filters: [(name: String, filter: ResamplingFilter)] = [
        ("nearest", .nearest), ("linear", .bilinear), ("cubic", .catmullRom), ("mitchell", .mitchell),
        ("lanczos3", .lanczos3), ("box", .box),
    ]

    static func filter(_ name: Substring) -> ResamplingFilter? { filters.first { $0.name == name }?.filter }
    static func text(_ filter: ResamplingFilter) -> String { filters.first { $0.filter == filter }?.name ?? "lanczos3" }

    /// Blend modes in imgproxy's style: lower case, words joined by `-`.
    static let blendModes: [(name: String, mode: BlendMode)] = [
        ("normal", .normal), ("multiply", .multiply), ("screen", .screen), ("overlay", .overlay),
        ("darken", .darken), ("lighten", .lighten), ("soft-light", .softLight), ("hard-light", .hardLight),
        ("difference", .difference), ("exclusion", .exclusion),
    ]

    static func blendMode(_ name: Substring) -> BlendMode? { blendModes.first { $0.name == name }?.mode }
    static func text(_ mode: BlendMode) -> String { blendModes.first { $0.mode == mode }?.name ?? "normal" }

    /// Output formats by extension; the first extension of each is the canonical one.
    static let formats: [(extensions: [String], format: ImageFormat)] = [
        (["jpg", "jpeg"], .jpeg), (["png"], .png), (["webp"], .webp), (["gif"], .gif), (["avif"], .avif),
        (["tiff", "tif"], .tiff), (["heic"], .heic), (["bmp"], .bmp), (["ico"], .ico), (["jxl"], .jpegXL),
    ]

    static func format(_ name: Substring) -> ImageFormat? {
        let lowered = name.lowercased()
        return formats.first { $0.extensions.contains(lowered) }?.format
    }

    /// A source format for `skip_processing` and `format_quality`: the output formats and `svg`.
    static func sourceFormat(_ name: Substring) -> ImageFormat? {
        format(name) ?? (name.lowercased() == "svg" ? .svg : nil)
    }

    /// The position of a format in the table (svg and unknown ones last), for a stable canonical order.
    static func rank(_ format: ImageFormat) -> Int {
        formats.firstIndex { $0.format == format } ?? formats.count
    }

    static func text(_ format: ImageFormat) -> String {
        formats.first { $0.format == format }?.extensions[0] ?? format.fileExtension ?? format.identifier
    }
}

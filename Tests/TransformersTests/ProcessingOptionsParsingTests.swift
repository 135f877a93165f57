import Testing
import WebImageCore
import WebImageTransformers

/// The processing-option text: every option read into its typed field, bad values refused by name,
/// and the canonical text printed back.
@Suite struct ProcessingOptionsParsingTests {
    /// Options built field by field, for comparing with what the parser reads.
    static func options(_ change: (inout ProcessingOptions) -> Void) -> ProcessingOptions {
        var options = ProcessingOptions()
        change(&options)
        return options
    }

    static let goodCases: [(text: String, expected: ProcessingOptions)] = [
        ("", ProcessingOptions()),
        (
            "rs:fill:300:200",
            options {
                $0.resizingType = .fill; $0.width = 300; $0.height = 200
            }
        ),
        (
            "resize:fill-down:300:200:1:1",
            options {
                $0.resizingType = .fillDown; $0.width = 300; $0.height = 200; $0.enlarge = true
                $0.extend = .init()
            }
        ),
        (
            "rs:force::200",
            options {
                $0.resizingType = .stretch; $0.height = 200
            }
        ),
        ("rs:auto", options { $0.resizingType = .auto }),
        (
            "s:10:20:t",
            options {
                $0.width = 10; $0.height = 20; $0.enlarge = true
            }
        ),
        ("size:10", options { $0.width = 10 }),
        ("rt:fill", options { $0.resizingType = .fill }),
        ("resizing_type:force", options { $0.resizingType = .stretch }),
        (
            "w:120/h:80",
            options {
                $0.width = 120; $0.height = 80
            }
        ),
        (
            "width:120/height:80",
            options {
                $0.width = 120; $0.height = 80
            }
        ),
        ("el:true", options { $0.enlarge = true }),
        ("enlarge:0", options { $0.enlarge = false }),
        ("ex:1", options { $0.extend = .init() }),
        ("extend:1:so", options { $0.extend = .init(gravity: .south) }),
        ("ex:1:fp:0.25:0.75", options { $0.extend = .init(gravity: .focalPoint(x: 0.25, y: 0.75)) }),
        ("ex:0", ProcessingOptions()),
        ("g:sm", options { $0.gravity = .smart }),
        ("gravity:noea", options { $0.gravity = .northEast }),
        ("g:sowe:0:0", options { $0.gravity = .southWest }),
        ("g:fp:0.5:0.1", options { $0.gravity = .focalPoint(x: 0.5, y: 0.1) }),
        ("g:no", options { $0.gravity = .north }), ("g:so", options { $0.gravity = .south }),
        ("g:ea", options { $0.gravity = .east }), ("g:we", options { $0.gravity = .west }),
        ("g:nowe", options { $0.gravity = .northWest }), ("g:soea", options { $0.gravity = .southEast }),
        ("g:ce", ProcessingOptions()),
        ("ra:linear", options { $0.resamplingFilter = .bilinear }),
        ("resizing_algorithm:cubic", options { $0.resamplingFilter = .catmullRom }),
        ("ra:nearest", options { $0.resamplingFilter = .nearest }),
        ("ra:mitchell", options { $0.resamplingFilter = .mitchell }),
        ("ra:box", options { $0.resamplingFilter = .box }),
        ("dpr:2", options { $0.devicePixelRatio = 2 }),
        ("dpr:1.5", options { $0.devicePixelRatio = 1.5 }),
        ("c:100:50", options { $0.crop = .init(width: 100, height: 50) }),
        ("crop:0.5:0:nowe", options { $0.crop = .init(width: 0.5, height: 0, gravity: .northWest) }),
        (
            "c:100:100:fp:0.2:0.3",
            options { $0.crop = .init(width: 100, height: 100, gravity: .focalPoint(x: 0.2, y: 0.3)) }
        ),
        ("c:0:0", ProcessingOptions()),
        ("t:10", options { $0.trim = .init(threshold: 10) }),
        (
            "trim:5.5:ff00ff:1:t",
            options {
                $0.trim = .init(
                    threshold: 5.5, color: RGBAColor(red: 255, green: 0, blue: 255),
                    equalHorizontal: true, equalVertical: true)
            }
        ),
        ("t:0::0:1", options { $0.trim = .init(threshold: 0, equalVertical: true) }),
        ("rot:90", options { $0.rotation = 90 }),
        ("rotate:-90", options { $0.rotation = 270 }),
        ("rot:450", options { $0.rotation = 90 }),
        ("rot:360", ProcessingOptions()),
        ("rot:12.5", options { $0.rotation = 12.5 }),
        ("fl", options { $0.flipHorizontally = true }),
        (
            "flip:1:1",
            options {
                $0.flipHorizontally = true; $0.flipVertically = true
            }
        ),
        ("fl:0:1", options { $0.flipVertically = true }),
        ("fl::t", options { $0.flipVertically = true }),
        ("bl:2", options { $0.blur = 2 }),
        ("blur:0.5", options { $0.blur = 0.5 }),
        ("bl:0", ProcessingOptions()),
        ("sh:0.5", options { $0.sharpen = 0.5 }),
        ("sharpen:1", options { $0.sharpen = 1 }),
        (
            "a:10:1.2:0.5",
            options {
                $0.brightness = 10; $0.contrast = 1.2; $0.saturation = 0.5
            }
        ),
        ("adjust::2", options { $0.contrast = 2 }),
        ("br:-20", options { $0.brightness = -20 }),
        ("brightness:255", options { $0.brightness = 255 }),
        ("co:1.5", options { $0.contrast = 1.5 }), ("contrast:0", options { $0.contrast = 0 }),
        ("sa:0", options { $0.saturation = 0 }), ("saturation:2", options { $0.saturation = 2 }),
        ("gs", options { $0.grayscale = true }), ("grayscale:1", options { $0.grayscale = true }),
        ("gs:0", ProcessingOptions()),
        ("col:0.5", options { $0.colorize = .init(opacity: 0.5) }),
        (
            "colorize:0.3:ff0000",
            options { $0.colorize = .init(opacity: 0.3, color: RGBAColor(red: 255, green: 0, blue: 0)) }
        ),
        (
            "col:1:00f:1:multiply",
            options {
                $0.colorize = .init(opacity: 1, color: RGBAColor(red: 0, green: 0, blue: 255), blendMode: .multiply)
            }
        ),
        ("col:0.2:000:t:soft-light", options { $0.colorize = .init(opacity: 0.2, blendMode: .softLight) }),
        ("col:0", ProcessingOptions()),
        ("rc:12", options { $0.roundedCorners = .init(radius: 12) }),
        (
            "rounded_corners:8:2:000000",
            options { $0.roundedCorners = .init(radius: 8, borderWidth: 2, borderColor: .black) }
        ),
        ("ci", options { $0.circle = .init() }),
        (
            "circle:3:ff0000",
            options { $0.circle = .init(borderWidth: 3, borderColor: RGBAColor(red: 255, green: 0, blue: 0)) }
        ),
        ("pd:10", options { $0.padding = .init(top: 10, right: 10, bottom: 10, left: 10) }),
        ("pd:10:20", options { $0.padding = .init(top: 10, right: 20, bottom: 10, left: 20) }),
        ("padding:1:2:3", options { $0.padding = .init(top: 1, right: 2, bottom: 3, left: 2) }),
        ("pd:1:2:3:4", options { $0.padding = .init(top: 1, right: 2, bottom: 3, left: 4) }),
        ("pd:0", ProcessingOptions()),
        ("bg:255:0:10", options { $0.background = RGBAColor(red: 255, green: 0, blue: 10) }),
        ("background:FFF", options { $0.background = .white }),
        ("bg:00000080", options { $0.background = RGBAColor(red: 0, green: 0, blue: 0, alpha: 128) }),
        ("bg:fff/bg", ProcessingOptions()),
        ("wm:0.5", options { $0.watermark = WatermarkOption(opacity: 0.5) }),
        (
            "watermark:1:soea:10:-5:0.25",
            options {
                $0.watermark = WatermarkOption(opacity: 1, position: .southEast, offsetX: 10, offsetY: -5, scale: 0.25)
            }
        ),
        ("wm:0.7:no:0.1", options { $0.watermark = WatermarkOption(opacity: 0.7, position: .north, offsetX: 0.1) }),
        (
            "wm:0.5:re:10:20",
            options { $0.watermark = WatermarkOption(opacity: 0.5, offsetX: 10, offsetY: 20, replicate: true) }
        ),
        ("wm:0", ProcessingOptions()),
        ("q:80", options { $0.quality = 80 }), ("quality:100", options { $0.quality = 100 }),
        ("q:0", ProcessingOptions()),
        ("f:webp", options { $0.format = .webp }), ("format:jpeg", options { $0.format = .jpeg }),
        ("ext:JPG", options { $0.format = .jpeg }), ("f:png", options { $0.format = .png }),
        ("f:gif", options { $0.format = .gif }), ("f:tif", options { $0.format = .tiff }),
        ("f:avif", options { $0.format = .avif }),
        // Later options override earlier ones; empty segments are skipped.
        ("/w:10//w:20/", options { $0.width = 20 }),
        (
            "rs:fill:300:200/s:100",
            options {
                $0.resizingType = .fill; $0.width = 100; $0.height = 200
            }
        ),
        (
            "rs:fit:10:10:0:1/ex:0",
            options {
                $0.width = 10; $0.height = 10
            }
        ),
    ]

    @Test(arguments: goodCases)
    func everyOptionIsReadIntoItsField(_ text: String, _ expected: ProcessingOptions) throws {
        #expect(try ProcessingOptions(parsing: text) == expected)
    }

    static let badCases: [(text: String, option: String)] = [
        ("nope:1", "nope"), ("resize_type:fit", "resize_type"), (":1", ":1"), ("RS:fit", "RS"),
        ("rs:squash", "rs"), ("rs:fit:-1", "rs"), ("rs:fit:abc", "rs"), ("rs:fit:20000", "rs"),
        ("rs:fit:1:1:1:1:1", "rs"), ("rt:fit:1", "rt"),
        ("rt:stretch", "rt"), ("w:1.5", "w"), ("width:-3", "width"), ("h:1e3", "h"),
        ("ex:1:sm", "ex"), ("g:middle", "g"), ("g:fp:1.5:0", "g"),
        ("g:fp:0.5:nan", "g"), ("gravity:ce:0:0:0", "gravity"), ("g::3", "g"), ("ra:lanczos2", "ra"),
        ("dpr:0", "dpr"), ("dpr:-1", "dpr"), ("dpr:9", "dpr"), ("dpr:inf", "dpr"), ("w:10000/dpr:2", "dpr"),
        ("c:-1:10", "c"), ("crop:10:x", "crop"), ("c:10:10:up", "c"), ("t", "t"), ("t:300", "t"),
        ("t:10:zz", "t"), ("t:10:#fff", "t"), ("rot:nan", "rot"),
        ("rotate:1e10", "rotate"), ("fl:1:1:1", "fl"), ("bl:-1", "bl"), ("bl:201", "bl"), ("sh:101", "sh"),
        ("blur:x", "blur"), ("sh:-0.5", "sh"), ("a:300", "a"), ("br:256", "br"), ("br:1.5", "br"),
        ("co:-1", "co"), ("sa:101", "sa"), ("col:2", "col"), ("col:0.5:ff000080", "col"),
        ("col:0.5:f00:0", "col"), ("col:0.5:f00:1:dodge", "col"), ("rc:-1", "rc"), ("rc:5:1:nothex", "rc"),
        ("ci:-2", "ci"), ("ci:1:2:3", "ci"), ("pd", "pd"), ("pd:-1", "pd"), ("pd:1:2:3:4:5", "pd"),
        ("padding:1:x", "padding"), ("bg:1:2", "bg"), ("bg:256:0:0", "bg"), ("bg:ggg", "bg"),
        ("wm:1.5", "wm"), ("wm:1:sm", "wm"), ("wm:1:ce:x", "wm"), ("wm:1:ce:0:0:2", "wm"),
        ("q:101", "q"), ("q:-1", "q"), ("quality:high", "quality"), ("f:bmpx", "f"), ("format:svgz", "format"),
        ("rs:fit:100:100/unknown", "unknown"),
    ]

    @Test(arguments: badCases)
    func badValuesAreRefusedNamingTheOption(_ text: String, _ option: String) {
        #expect {
            try ProcessingOptions(parsing: text)
        } throws: { error in
            guard case ImageError.invalidParameter(let name, let reason) = error else { return false }
            return name == option && !reason.isEmpty
        }
    }

    @Test func longAndShortNamesMeanTheSame() throws {
        let long = try ProcessingOptions(
            parsing:
                "resize:fill:300:200:1/gravity:sm/trim:10/rotate:90/flip:1/crop:0.5:0.5/blur:2/sharpen:0.5/"
                + "brightness:10/contrast:1.1/saturation:0.9/grayscale:1/colorize:0.5:f00/rounded_corners:4/"
                + "padding:2/background:fff/watermark:0.5:soea/extend:1/quality:80/format:webp/resizing_algorithm:box")
        let short = try ProcessingOptions(
            parsing:
                "rs:fill:300:200:1/g:sm/t:10/rot:90/fl:1/c:0.5:0.5/bl:2/sh:0.5/br:10/co:1.1/sa:0.9/gs:1/"
                + "col:0.5:f00/rc:4/pd:2/bg:fff/wm:0.5:soea/ex:1/q:80/f:webp/ra:box")
        #expect(long == short)
    }

    @Test func theCanonicalTextIsShortSortedAndWithoutDefaults() throws {
        let cases: [(String, String)] = [
            ("f:webp/q:80/bl:2/g:sm/rs:fill:300:200", "rs:fill:300:200/g:sm/bl:2/q:80/f:webp"),
            ("format:jpeg/sharpen:0.5/resize:fit:256:256", "rs:fit:256:256/sh:0.5/f:jpg"),
            (
                "wm:0.5:soea/pd:10:20/ex:1:no/rc:5/sh:1/bl:1/col:0.5/gs/sa:2/co:2/br:5/dpr:2/ra:box/g:no/w:10/c:5:5/fl/rot:90/t:3",
                "t:3/rot:90/fl:1:0/c:5:5/rs:fit:10:0/g:no/ra:box/dpr:2/br:5/co:2/sa:2/gs:1/col:0.5:000000/bl:1/sh:1/"
                    + "rc:5/ex:1:no/pd:10:20:10:20/wm:0.5:soea"
            ),
            ("bg:255:255:255/ci", "ci:0/bg:ffffff"),
            ("g:fp:0.5:0.25/s:0:100:1", "rs:fit:0:100:1/g:fp:0.5:0.25"),
            ("t:10::1:0", "t:10::1"),
            ("wm:1:ce:0:0:0.5", "wm:1:ce:0:0:0.5"),
            ("watermark:1:re:4", "wm:1:re:4"),
            ("rs:fit:0:0/ex:1/bl:0/q:0", "ex:1"),
            ("", ""),
        ]
        for (text, canonical) in cases {
            #expect(try ProcessingOptions(parsing: text).description == canonical, "\(text)")
        }
    }

    static let roundTripCases: [String] =
        goodCases.map(\.text) + [
            "rs:fill:300:200/g:sm/bl:2/sh:0.5/q:80/f:webp",
            "t:12.25:abcdef80:1:1/rot:33.3/fl:1:1/c:0.333:120:fp:0.1:0.9/rs:fill-down:64:48:1/g:soea/ra:cubic/dpr:1.25",
            "a:-255:0.001:99.5/gs/col:0.125:123456:1:hard-light/bl:0.1/sh:100/rc:3.5:1.5:00ff00/ex:1:fp:0:1",
            "ci:2:010203/pd:0:0:0:1/bg:01020304/wm:0.01:sowe:-0.5:16383:1/q:1/f:jxl",
            "rot:1e-05/bl:1e-07/c:1e-300:0",
        ]

    @Test(arguments: roundTripCases)
    func theCanonicalTextParsesBackToAnEqualValue(_ text: String) throws {
        let options = try ProcessingOptions(parsing: text)
        let printed = options.description
        let reparsed = try ProcessingOptions(parsing: printed)
        #expect(reparsed == options, "\(text) -> \(printed)")
        #expect(reparsed.description == printed)
    }

    @Test func differentOptionsPrintDifferentTexts() throws {
        let values = try Self.roundTripCases.map { try ProcessingOptions(parsing: $0) }
        var byText: [String: ProcessingOptions] = [:]
        for value in values {
            if let other = byText[value.description] { #expect(other == value, "\(value.description)") }
            byText[value.description] = value
        }
        #expect(Set(values).count == byText.count)
    }

    @Test func segmentsParseLikeTheText() throws {
        let text = "rs:fill:300:200/g:sm/bl:2"
        #expect(try ProcessingOptions(segments: text.split(separator: "/")) == ProcessingOptions(parsing: text))
    }
}

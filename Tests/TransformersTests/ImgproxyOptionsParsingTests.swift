import Testing
import WebImageCore
import WebImageTransformers

/// The imgproxy options added for the drop-in (min sizes, zoom, extend to an aspect ratio, pixelate, gravity
/// offsets, the options the server acts on, the per-request limits) and imgproxy's argument rules. Cases
/// from imgproxy's tests name the test (imgproxy/imgproxy, `options/processing_options_test.go` at v3.31.4);
/// the others come from its processing-options documentation (docs.imgproxy.net, "Processing URL").
@Suite struct ImgproxyOptionsParsingTests {
    static func options(_ change: (inout ProcessingOptions) -> Void) -> ProcessingOptions {
        var options = ProcessingOptions()
        change(&options)
        return options
    }

    static let goodCases: [(text: String, expected: ProcessingOptions)] = [
        // TestParsePathExtend
        ("extend:1:so:10:20", options { $0.extend = .init(gravity: .south, offsetX: 10, offsetY: 20) }),
        // TestParsePathGravity
        ("gravity:soea", options { $0.gravity = .southEast }),
        // TestParsePathGravityFocusPoint
        ("gravity:fp:0.5:0.75", options { $0.gravity = .focalPoint(x: 0.5, y: 0.75) }),
        // TestParsePathCrop
        ("crop:100:200", options { $0.crop = .init(width: 100, height: 200) }),
        // TestParsePathCropGravity
        (
            "crop:100:200:nowe:10:20",
            options {
                $0.crop = .init(width: 100, height: 200, gravity: .northWest, offsetX: 10, offsetY: 20)
            }
        ),
        // TestParsePathResize, TestParsePathSize, TestParseWithArgumentsSeparator (with ":")
        (
            "resize:fill:100:200:1",
            options {
                $0.resizingType = .fill; $0.width = 100; $0.height = 200; $0.enlarge = true
            }
        ),
        (
            "size:100:200:1",
            options {
                $0.width = 100; $0.height = 200; $0.enlarge = true
            }
        ),
        // TestParsePathStripMetadata
        ("strip_metadata:true", options { $0.stripMetadata = true }),
        // TestParseSkipProcessing
        ("skp:jpg:png", options { $0.skipProcessingFormats = [.jpeg, .png] }),
        // Documentation: the other new options, long and short names.
        ("min-width:100", options { $0.minWidth = 100 }), ("mw:100", options { $0.minWidth = 100 }),
        ("min-height:50", options { $0.minHeight = 50 }), ("mh:50", options { $0.minHeight = 50 }),
        (
            "zoom:1.5",
            options {
                $0.zoomWidth = 1.5; $0.zoomHeight = 1.5
            }
        ),
        (
            "z:2:0.5",
            options {
                $0.zoomWidth = 2; $0.zoomHeight = 0.5
            }
        ),
        ("extend_aspect_ratio:1", options { $0.extendAspectRatio = .init() }),
        ("extend_ar:1:no", options { $0.extendAspectRatio = .init(gravity: .north) }),
        ("exar:1:ea:5:0.1", options { $0.extendAspectRatio = .init(gravity: .east, offsetX: 5, offsetY: 0.1) }),
        ("exar:0", ProcessingOptions()),
        ("pixelate:8", options { $0.pixelate = 8 }), ("pix:2", options { $0.pixelate = 2 }),
        (
            "g:ce:-10:0.25",
            options {
                $0.gravity = .center; $0.gravityOffsetX = -10; $0.gravityOffsetY = 0.25
            }
        ),
        (
            "g:no:5",
            options {
                $0.gravity = .north; $0.gravityOffsetX = 5
            }
        ),
        (
            "rs:fill:300:200:0:1:so:0:10",
            options {
                $0.resizingType = .fill; $0.width = 300; $0.height = 200;
                $0.extend = .init(gravity: .south, offsetY: 10)
            }
        ),
        (
            "s:300:200:0:1:we",
            options {
                $0.width = 300; $0.height = 200; $0.extend = .init(gravity: .west)
            }
        ),
        ("sm:1", options { $0.stripMetadata = true }), ("sm:0", options { $0.stripMetadata = false }),
        ("keep_copyright:1", options { $0.keepCopyright = true }), ("kcr:f", options { $0.keepCopyright = false }),
        ("strip_color_profile:1", options { $0.stripColorProfile = true }),
        ("scp:0", options { $0.stripColorProfile = false }),
        ("enforce_thumbnail:1", options { $0.enforceThumbnail = true }),
        ("eth:t", options { $0.enforceThumbnail = true }),
        ("auto_rotate:0", options { $0.autoRotate = false }), ("ar:1", options { $0.autoRotate = true }),
        ("format_quality:jpeg:75:webp:60", options { $0.formatQuality = [.jpeg: 75, .webp: 60] }),
        ("fq:avif:40/fq:avif:50:png:0", options { $0.formatQuality = [.avif: 50, .png: 0] }),
        ("max_bytes:10240", options { $0.maxBytes = 10240 }), ("mb:0", ProcessingOptions()),
        ("skip_processing:svg/skp:gif", options { $0.skipProcessingFormats = [.svg, .gif] }),
        ("raw:1", options { $0.raw = true }), ("raw:0", ProcessingOptions()),
        ("max_src_resolution:16.8", options { $0.maxSourceResolution = 16.8 }),
        ("msr:1", options { $0.maxSourceResolution = 1 }),
        ("max_src_file_size:1048576", options { $0.maxSourceFileSize = 1_048_576 }),
        ("msfs:0", options { $0.maxSourceFileSize = 0 }),
        ("max_animation_frames:10", options { $0.maxAnimationFrames = 10 }),
        ("maf:1", options { $0.maxAnimationFrames = 1 }),
        ("max_animation_frame_resolution:2.5", options { $0.maxAnimationFrameResolution = 2.5 }),
        ("mafr:0", options { $0.maxAnimationFrameResolution = 0 }),
        ("max_result_dimension:2000", options { $0.maxResultDimension = 2000 }),
        ("mrd:0", options { $0.maxResultDimension = 0 }),
        // imgproxy Pro's monochrome and duotone (documentation defaults: 0:b3b3b3 and 0:000000:ffffff).
        ("monochrome:0.5", options { $0.monochrome = .init(intensity: 0.5) }),
        (
            "mc:1:704214",
            options { $0.monochrome = .init(intensity: 1, color: RGBAColor(red: 0x70, green: 0x42, blue: 0x14)) }
        ),
        ("mc:0", ProcessingOptions()), ("dt:0:f00", ProcessingOptions()),
        ("duotone:1", options { $0.duotone = .init(intensity: 1) }),
        (
            "dt:0.5:f00:00f",
            options {
                $0.duotone = .init(
                    intensity: 0.5, dark: RGBAColor(red: 255, green: 0, blue: 0),
                    light: RGBAColor(red: 0, green: 0, blue: 255))
            }
        ),
        ("dt:1::000", options { $0.duotone = .init(intensity: 1, light: .black) }),
        // Argument rules: an empty argument keeps the value set so far...
        (
            "rs:fill:300:200/rs::100",
            options {
                $0.resizingType = .fill; $0.width = 100; $0.height = 200
            }
        ),
        (
            "w:300/s::200",
            options {
                $0.width = 300; $0.height = 200
            }
        ),
        (
            "rs:fit:300::1",
            options {
                $0.width = 300; $0.enlarge = true
            }
        ),
        // ...a boolean that is not one of Go's is false, as imgproxy's parseBoolOption...
        ("el:yes", ProcessingOptions()),
        (
            "rs:fit:1:1:maybe",
            options {
                $0.width = 1; $0.height = 1
            }
        ),
        ("ex:2", ProcessingOptions()), ("gs:maybe", ProcessingOptions()), ("fl:2", ProcessingOptions()),
        ("el:tRuE", ProcessingOptions()), ("el:TRUE", options { $0.enlarge = true }),
        ("el:True", options { $0.enlarge = true }),
        ("sm:on", options { $0.stripMetadata = false }),
        ("trim:10:fff:2", options { $0.trim = .init(threshold: 10, color: .white) }),
        // ...and sizes beyond the source are fine (the source is only known when processing).
        (
            "rs:fit:16384:16384",
            options {
                $0.width = 16384; $0.height = 16384
            }
        ),
        (
            "rs:force:0:100",
            options {
                $0.resizingType = .stretch; $0.height = 100
            }
        ),
        ("dpr:2", options { $0.devicePixelRatio = 2 }),
    ]

    @Test(arguments: goodCases)
    func theNewOptionsAreReadIntoTheirFields(_ text: String, _ expected: ProcessingOptions) throws {
        #expect(try ProcessingOptions(parsing: text) == expected)
    }

    static let badCases: [(text: String, option: String)] = [
        // TestParsePathExtendSmartGravity, TestParsePathExtendReplicateGravity
        ("extend:1:sm", "extend"), ("extend:1:re", "extend"),
        // TestParsePathGravityReplicate, TestParsePathCropGravityReplicate
        ("gravity:re", "gravity"), ("crop:100:200:re", "crop"),
        // TestParseSkipProcessingInvalid
        ("skp:jpg:png:bad_format", "skp"),
        // Documentation ranges; a value out of range is refused (the server answers 404).
        ("mw:-1", "mw"), ("min-width:1.5", "min-width"), ("mh:x", "mh"), ("mw:20000", "mw"),
        ("z:0", "z"), ("zoom:-1", "zoom"), ("z:1:0", "z"), ("z:1:2:3", "z"), ("z", "z"), ("z:101", "z"),
        ("exar:1:sm", "exar"), ("exar:1:ce:1:2:3", "exar"),
        ("pix:-1", "pix"), ("pixelate:1.5", "pixelate"),
        ("g:sm:1", "g"), ("g:fp:0.5", "g"), ("g:fp", "g"), ("g:no:x", "g"), ("g:ce:1e9", "g"),
        ("c:10:10:sm:1:1", "c"),
        ("fq:jpg", "fq"), ("fq:jpg:101", "fq"), ("fq:nope:50", "fq"), ("fq:jpg:50:webp", "fq"),
        ("mb:-1", "mb"), ("mb:x", "mb"),
        ("msr:0", "msr"), ("msr:-1", "msr"), ("msr:x", "msr"), ("msfs:-5", "msfs"), ("maf:0", "maf"),
        ("mafr:-1", "mafr"), ("mrd:-1", "mrd"), ("mrd:1.5", "mrd"), ("sm:1:1", "sm"), ("raw:1:1", "raw"),
        ("w:10000/z:2", "dpr"), ("mw:9000/dpr:2", "dpr"),
        ("mc:2", "mc"), ("mc:-0.5", "mc"), ("mc:1:zz", "mc"), ("mc:1:fff:1", "mc"), ("dt:1.5", "dt"),
        ("duotone:1:f00:0f0:00f", "duotone"), ("dt:1:nothex", "dt"),
    ]

    @Test(arguments: badCases)
    func outOfRangeValuesAreRefusedNamingTheOption(_ text: String, _ option: String) {
        #expect {
            try ProcessingOptions(parsing: text)
        } throws: { error in
            guard case ImageError.invalidParameter(let name, let reason) = error else { return false }
            return name == option && !reason.isEmpty
        }
    }

    @Test func theCanonicalTextHasTheNewOptionsInOrder() throws {
        let cases: [(String, String)] = [
            ("exar:1/mh:5/mw:10/z:2/rs:fit:100:100", "rs:fit:100:100/mw:10/mh:5/z:2/exar:1"),
            ("z:2:3/g:so:0:4/pix:4/sh:1", "z:2:3/g:so:0:4/sh:1/pix:4"),
            ("c:10:10:ea:1:0/ex:1:no:0:0", "c:10:10:ea:1:0/ex:1:no"),
            (
                "mrd:50/raw:1/skp:png:jpg/mb:100/fq:webp:1:jpg:2/ar:0/eth:1/scp:0/kcr:1/sm:1/msr:2/msfs:3/maf:4/mafr:0.5/q:80",
                "q:80/sm:1/kcr:1/scp:0/eth:1/ar:0/fq:jpg:2:webp:1/mb:100/skp:jpg:png/raw:1/msr:2/msfs:3/maf:4/mafr:0.5/mrd:50"
            ),
            ("skp:svg:gif", "skp:gif:svg"),
            ("dt:1:000:fff/mc:0.5:b3b3b3/gs", "gs:1/mc:0.5/dt:1"),
            ("dt:1:000:00f/mc:1:f00", "mc:1:ff0000/dt:1::0000ff"),
            ("z:1/pix:1/mw:0/sm", ""),
        ]
        for (text, canonical) in cases {
            #expect(try ProcessingOptions(parsing: text).description == canonical, "\(text)")
        }
    }

    static let roundTripCases: [String] =
        goodCases.map(\.text) + [
            "c:0.5:20:fp:0.1:0.9/rs:fill-down:64:48:1:1:soea:-3:0.5/mw:7/mh:9/z:0.25:3/g:nowe:0.125:-7/pix:3/exar:1:we:2:2",
            "sm:0/kcr:0/scp:1/eth:0/ar:1/fq:jpg:1:png:2:webp:3:gif:4:avif:5:tiff:6:heic:7:bmp:8:ico:9:jxl:10:svg:11",
            "mc:0.25:123456/dt:0.75:010203:040506/mc:1",
            "mb:1/skp:jpg:png:webp:gif:avif:tiff:heic:bmp:ico:jxl:svg/msr:0.001/msfs:1/maf:100000/mafr:2147/mrd:1",
        ]

    @Test(arguments: roundTripCases)
    func theCanonicalTextParsesBackToAnEqualValue(_ text: String) throws {
        let options = try ProcessingOptions(parsing: text)
        let printed = options.description
        let reparsed = try ProcessingOptions(parsing: printed)
        #expect(reparsed == options, "\(text) -> \(printed)")
        #expect(reparsed.description == printed)
    }

    @Test func optionsTheServerActsOnBuildNoTransformer() throws {
        let text = "sm:1/kcr:1/scp:1/eth:1/ar:0/fq:jpg:80/mb:1000/skp:gif/raw:1/msr:1/msfs:1/maf:1/mafr:1/q:50/f:png"
        #expect(try ProcessingOptions(parsing: text).transformer(watermarkImage: nil) == nil)
    }
}

/// imgproxy Pro's `monochrome` and `duotone` on pixels: with their default colours both give the gray of
/// BT.601 luma; other colours map black and white to the palette's ends.
@Suite struct ToneMapTests {
    static let pixels = PixelBuffer(
        width: 3, height: 1, layout: .rgba8,
        bytes: [0, 0, 0, 255, 255, 255, 255, 128, 200, 40, 90, 255])

    @Test func theDefaultPalettesAreGray() throws {
        for transformer in [try MonochromeTransformer(intensity: 1), try DuotoneTransformer(intensity: 1)]
            as [any FrameTransformer]
        {
            let output = try transformer.transformFrame(Self.pixels)
            let luma: Double = 0.299 * 200 + 0.587 * 40 + 0.114 * 90
            let gray = UInt8(luma.rounded())
            let pixel = output.rgba(x: 2, y: 0)
            #expect(
                pixel.r == gray && pixel.g == gray && pixel.b == gray && pixel.a == 255, "\(transformer.transformerKey)"
            )
            #expect(output.rgba(x: 1, y: 0).a == 128)
        }
    }

    @Test func duotoneMapsBlackAndWhiteToItsColours() throws {
        let red = RGBAColor(red: 255, green: 0, blue: 0), blue = RGBAColor(red: 0, green: 0, blue: 255)
        let output = try DuotoneTransformer(intensity: 1, dark: red, light: blue).transformFrame(Self.pixels)
        #expect(output.rgba(x: 0, y: 0) == (255, 0, 0, 255))
        #expect(output.rgba(x: 1, y: 0) == (0, 0, 255, 128))
        // Half the intensity: half way between the original and the palette.
        let half = try DuotoneTransformer(intensity: 0.5, dark: red, light: blue).transformFrame(Self.pixels)
        #expect(half.rgba(x: 0, y: 0) == (128, 0, 0, 255))
    }

    @Test func monochromeKeepsBlackAndWhiteAndPutsItsColourAtItsOwnBrightness() throws {
        let sepia = RGBAColor(red: 0x70, green: 0x42, blue: 0x14)
        let luma: Double = 0.299 * 0x70 + 0.587 * 0x42 + 0.114 * 0x14
        let gray = UInt8(luma.rounded())
        let pixels = PixelBuffer(width: 3, height: 1, layout: .gray8, bytes: [0, 255, gray])
        let output = try MonochromeTransformer(intensity: 1, color: sepia).transformFrame(pixels)
        #expect(output.layout == PixelLayout.rgb8)
        #expect(output.rgba(x: 0, y: 0) == (0, 0, 0, 255))
        #expect(output.rgba(x: 1, y: 0) == (255, 255, 255, 255))
        #expect(output.rgba(x: 2, y: 0) == (0x70, 0x42, 0x14, 255))
    }

    @Test func theOptionsBuildTheirStepsAfterGrayscale() throws {
        let built = try ProcessingOptions(parsing: "dt:1/col:0.5/mc:0.5/gs").transformer(watermarkImage: nil)
        let keys = try #require(built as? ProcessingTransformer).steps.map(\.transformerKey)
        #expect(keys.count == 4 && keys[0] == GrayscaleTransformer().transformerKey)
        #expect(keys[1] == (try MonochromeTransformer(intensity: 0.5)).transformerKey)
        #expect(keys[2] == (try DuotoneTransformer(intensity: 1)).transformerKey)
        #expect(keys[3].hasPrefix("tint"))
    }
}

import Foundation
import Logging
import Testing
import WebImage

@testable import ImageServer

/// imgproxy's environment variables for output defaults, source requests, presets files and the
/// watermark, as imgproxy's configuration documentation gives them, each checked through a real server.
@Suite struct ImgproxyVariablesTests {
    /// `IMGPROXY_FORMAT_QUALITY`: `format=quality` pairs, imgproxy's default `webp=79,avif=63,jxl=77`; bad pairs stop the server.
    @Test func formatQualityIsRead() throws {
        #expect(try ServerConfiguration(environment: [:]).formatQuality == [.webp: 79, .avif: 63, .jpegXL: 77])
        let configuration = try ServerConfiguration(environment: ["IMGPROXY_FORMAT_QUALITY": "jpeg=70, avif=40,webp=60"]
        )
        // Laid over the defaults, as imgproxy does: JPEG XL keeps its 77.
        #expect(configuration.formatQuality == [.jpeg: 70, .avif: 40, .webp: 60, .jpegXL: 77])
        for bad in ["jpeg", "jpeg=0", "jpeg=101", "nope=50", "jpeg=x"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ServerConfiguration(environment: ["IMGPROXY_FORMAT_QUALITY": bad])
            }
        }
    }

    /// The format's quality is used when the URL gives no `q:` and no `fq:` for it; `q:` wins.
    @Test func formatQualityIsTheDefaultOfItsFormat() async throws {
        let plain = try await TestServers.start()
        let low = try await TestServers.start { $0.formatQuality[.jpeg] = 5 }
        func size(_ servers: TestServers, _ options: String = "") async throws -> Int {
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(options: options, source: servers.sourceURL("/photo.jpg"), extension: "jpg"))
            #expect(reply.status == 200)
            return reply.body.count
        }
        #expect(try await size(low) < (try await size(plain)))
        #expect(try await size(low, "q:80") == (try await size(plain)))
        #expect(try await size(low, "fq:jpeg:80") == (try await size(plain)))
        // Another format keeps IMGPROXY_QUALITY.
        let webpLow = try await HTTPClient.get(
            low.baseURL + low.plainPath(source: low.sourceURL("/photo.jpg"), extension: "webp"))
        let webpPlain = try await HTTPClient.get(
            plain.baseURL + plain.plainPath(source: plain.sourceURL("/photo.jpg"), extension: "webp"))
        #expect(webpLow.body == webpPlain.body)
        try await low.stop()
        try await plain.stop()
    }

    /// The address guard's variables as imgproxy reads them (Go's `strconv.ParseBool`) and as they reach
    /// the loader: loopback (127/8, ::1, 0.0.0.0), link-local (169.254/16, fe80::/10) and private networks,
    /// each on its own. A value Go does not take (`yes`, `tRUE`) stops the server instead of being ignored.
    @Test func sourceAddressVariables() throws {
        let unset = try ServerConfiguration(environment: [:])
        #expect(!unset.allowsLoopbackSources && !unset.allowsLinkLocalSources && !unset.allowsPrivateSources)
        let names = [
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES",
            "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES",
        ]
        func flags(_ configuration: ServerConfiguration) -> [Bool] {
            [
                configuration.allowsLoopbackSources, configuration.allowsLinkLocalSources,
                configuration.allowsPrivateSources,
            ]
        }
        for (index, name) in names.enumerated() {
            for text in ["1", "t", "T", "true", "TRUE", "True"] {
                let expected = names.indices.map { $0 == index }
                #expect(flags(try ServerConfiguration(environment: [name: text])) == expected, "\(name)=\(text)")
            }
            for text in ["0", "f", "F", "false", "FALSE", "False"] {
                #expect(
                    flags(try ServerConfiguration(environment: [name: text])) == [false, false, false],
                    "\(name)=\(text)")
            }
            for bad in ["yes", "on", "tRUE", "2"] {
                #expect(throws: ConfigurationError.self, "\(name)=\(bad)") {
                    try ServerConfiguration(environment: [name: bad])
                }
            }
        }
        let all = try ServerConfiguration(environment: Dictionary(uniqueKeysWithValues: names.map { ($0, "true") }))
        let loader = SourceFetcher(configuration: all, coders: .shared, metrics: ServerMetrics()).httpLoader
            .configuration
        #expect(loader.refusesPrivateAddresses)
        #expect(loader.allowsLoopbackAddresses && loader.allowsLinkLocalAddresses && loader.allowsPrivateNetworks)
        let none = SourceFetcher(configuration: unset, coders: .shared, metrics: ServerMetrics()).httpLoader
            .configuration
        #expect(!none.allowsLoopbackAddresses && !none.allowsLinkLocalAddresses && !none.allowsPrivateNetworks)
    }

    /// `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`, as imgproxy cuts `local://` and `s3://` sources: before the
    /// separator (`?` by default) the file name or key, after it the query (an S3 object's version; ignored
    /// for a local file); set but empty, no separator, so `?` is part of the name. HTTP sources keep theirs.
    @Test func sourceURLQuerySeparator() async throws {
        #expect(
            ImageURLPath.storageURL("s3://bucket/a/b.png?123", separator: "?") == "s3://bucket/a/b.png?versionId=123")
        #expect(ImageURLPath.storageURL("local:///a/b.png?123", separator: "?") == "local:///a/b.png")
        #expect(ImageURLPath.storageURL("s3://bucket/a?b.png", separator: "") == "s3://bucket/a%3Fb.png")
        #expect(
            ImageURLPath.storageURL("s3://bucket/a?b#c.png!!v2", separator: "!!")
                == "s3://bucket/a%3Fb%23c.png?versionId=v2")
        #expect(ImageURLPath.storageURL("http://host/a.png?x=1", separator: "!!") == "http://host/a.png?x=1")
        #expect(try ServerConfiguration(environment: [:]).urlConventions.storageQuerySeparator == "?")
        #expect(
            try ServerConfiguration(environment: ["IMGPROXY_SOURCE_URL_QUERY_SEPARATOR": ""]).urlConventions
                .storageQuerySeparator == "")
        #expect(
            try ServerConfiguration(environment: ["IMGPROXY_SOURCE_URL_QUERY_SEPARATOR": "!!"]).urlConventions
                .storageQuerySeparator == "!!")

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("query-separator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let photo = Fixtures.standardFiles["/photo.jpg"]!.data
        try photo.write(to: root.appendingPathComponent("photo.jpg"))
        try photo.write(to: root.appendingPathComponent("odd?name.jpg"))
        func status(_ servers: TestServers, _ source: String) async throws -> Int {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: source)).status
        }
        let byDefault = try await TestServers.start { $0.localFileSystemRoot = root }
        #expect(try await status(byDefault, "local:///photo.jpg?v=2") == 200, "the query is cut off")
        #expect(try await status(byDefault, "local:///odd?name.jpg") == 404, "cut at ?: odd is not a file")
        try await byDefault.stop()
        let none = try await TestServers.start {
            $0.localFileSystemRoot = root
            $0.urlConventions.storageQuerySeparator = ""
        }
        #expect(try await status(none, "local:///odd?name.jpg") == 200, "no separator: ? is part of the name")
        #expect(try await status(none, "local:///photo.jpg?v=2") == 404)
        try await none.stop()
    }

    /// `WEBIMAGE_SERVER_PNG_GAMMA`: off by default, as imgproxy (libvips ignores `gAMA`), a PNG with a gAMA
    /// of 1.0 (linear values) answers its stored values; on, what Chrome and Firefox show: stored 64 is 25%
    /// light, sRGB level 137 (1.055 * 0.251^(1/2.4) - 0.055 = 0.537).
    @Test func pngGammaIsAppliedOnlyWhenAsked() async throws {
        #expect(try ServerConfiguration(environment: [:]).appliesPNGGamma == false)
        #expect(try ServerConfiguration(environment: ["WEBIMAGE_SERVER_PNG_GAMMA": "true"]).appliesPNGGamma)
        let ramp = PixelBuffer(
            width: 4, height: 1, layout: .rgb8, bytes: [0, 0, 0, 64, 64, 64, 128, 128, 128, 255, 255, 255])
        var bytes = [UInt8](Fixtures.encoded(ramp, as: .png))
        func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        func crc32(_ data: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in data {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            }
            return ~crc
        }
        let chunk = Array("gAMA".utf8) + bigEndian(100_000)
        // after the signature and IHDR
        bytes.insert(contentsOf: bigEndian(4) + chunk + bigEndian(crc32(chunk)), at: 8 + 25)
        var files = Fixtures.standardFiles
        files["/linear.png"] = .init(data: Data(bytes), contentType: "image/png")
        func level(_ servers: TestServers) async throws -> Int {
            let reply = try await HTTPClient.get(
                servers.baseURL + servers.plainPath(source: servers.sourceURL("/linear.png"), extension: "png"))
            #expect(reply.status == 200)
            let pixels = try Fixtures.decode(reply.body).pixels
            return Int(pixels.bytes[pixels.layout.bytesPerPixel])
        }
        let plain = try await TestServers.start(files: files)
        #expect(try await level(plain) == 64)
        try await plain.stop()
        let applying = try await TestServers.start(files: files) { $0.appliesPNGGamma = true }
        #expect(abs(try await level(applying) - 137) <= 2)
        try await applying.stop()
    }

    /// `IMGPROXY_USER_AGENT` reaches the source loader.
    @Test func userAgentIsSentToOrigins() throws {
        let configuration = try ServerConfiguration(environment: ["IMGPROXY_USER_AGENT": "imgproxy/3.31 (test)"])
        #expect(configuration.userAgent == "imgproxy/3.31 (test)")
        let fetcher = SourceFetcher(configuration: configuration, coders: .shared, metrics: ServerMetrics())
        #expect(fetcher.httpLoader.configuration.userAgent == "imgproxy/3.31 (test)")
        let unset = SourceFetcher(
            configuration: try ServerConfiguration(environment: [:]), coders: .shared, metrics: ServerMetrics())
        #expect(unset.httpLoader.configuration.userAgent.hasPrefix("SwiftWebImage/"))
    }

    /// `IMGPROXY_MAX_RESULT_DIMENSION`: a larger result is scaled down to fit (imgproxy's limitScale), with
    /// or without options; a URL's `mrd` wins when security options are allowed.
    @Test func maxResultDimensionScalesResultsDown() async throws {
        #expect(try ServerConfiguration(environment: ["IMGPROXY_MAX_RESULT_DIMENSION": "20"]).maxResultDimension == 20)
        let servers = try await TestServers.start {
            $0.maxResultDimension = 32
            $0.allowsSecurityOptions = true
        }
        let photo = servers.sourceURL("/photo.jpg")  // 64 x 48
        func size(_ options: String) async throws -> (Int, Int) {
            try await servers.answeredSize(servers.plainPath(options: options, source: photo, extension: "png"))
        }
        #expect(try await size("") == (32, 24))
        #expect(try await size("rs:fit:60:60") == (32, 24))
        #expect(try await size("rs:fit:16:16") == (16, 12))
        #expect(try await size("mrd:48") == (48, 36))
        try await servers.stop()
    }

    /// `IMGPROXY_PRESETS_PATH`: one preset a line, `#` comments and empty lines skipped, added to
    /// `IMGPROXY_PRESETS`; `IMGPROXY_PRESETS_SEPARATOR` divides the variable's presets.
    @Test func presetsFileIsRead() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("presets-\(UUID()).txt")
        try "# thumbnails\nsmall=rs:fit:16:16\n\n# larger\nwide=rs:fit:40:40/f:png\n".write(
            to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try ServerConfiguration(environment: [
            "IMGPROXY_PRESETS_PATH": file.path, "IMGPROXY_PRESETS": "tiny=rs:fit:8:8;gray=sat:0",
            "IMGPROXY_PRESETS_SEPARATOR": ";",
        ])
        #expect(configuration.presets.options["small"] == ["rs:fit:16:16"])
        #expect(configuration.presets.options["wide"] == ["rs:fit:40:40", "f:png"])
        #expect(configuration.presets.options["tiny"] == ["rs:fit:8:8"])
        #expect(configuration.presets.options["gray"] == ["sat:0"])
        #expect(configuration.presets.options.count == 4)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_PRESETS_PATH": file.path + ".missing"])
        }
        let servers = try await TestServers.start { $0.presets = configuration.presets }
        let reply = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "pr:wide", source: servers.sourceURL("/photo.jpg")))
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "image/png")
        #expect(try Fixtures.decode(reply.body).width == 40)
        try await servers.stop()
    }

    /// `IMGPROXY_WATERMARK_DATA` (base64) is the watermark, and `IMGPROXY_WATERMARK_OPACITY` multiplies a
    /// URL's opacity: `wm:1` at base 0.5 draws what `wm:0.5` draws at base 1.
    @Test func watermarkFromDataWithBaseOpacity() async throws {
        let mark = Fixtures.encoded(Fixtures.alphaPixels(), as: .png)
        let configuration = try ServerConfiguration(environment: [
            "IMGPROXY_WATERMARK_DATA": mark.base64EncodedString(), "IMGPROXY_WATERMARK_OPACITY": "0.5",
        ])
        #expect(configuration.watermarkData == mark)
        #expect(configuration.watermarkOpacity == 0.5)
        for bad in [
            ["IMGPROXY_WATERMARK_DATA": "!!"], ["IMGPROXY_WATERMARK_OPACITY": "0"],
            ["IMGPROXY_WATERMARK_OPACITY": "1.5"],
        ] {
            #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: bad) }
        }
        let half = try await TestServers.start {
            $0.watermarkData = mark; $0.watermarkOpacity = 0.5
        }
        let full = try await TestServers.start { $0.watermarkData = mark }
        func body(_ servers: TestServers, _ options: String) async throws -> Data {
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(options: options, source: servers.sourceURL("/photo.jpg"), extension: "png"))
            #expect(reply.status == 200)
            return reply.body
        }
        let plain = try await body(full, "")
        let fullMark = try await body(full, "wm:1:ce")
        let halfMark = try await body(half, "wm:1:ce")
        #expect(fullMark != plain)
        #expect(halfMark != fullMark)
        #expect(try Fixtures.decode(halfMark).pixels == (try Fixtures.decode(try await body(full, "wm:0.5:ce")).pixels))
        try await half.stop()
        try await full.stop()
    }

    /// `IMGPROXY_STRIP_COLOR_PROFILE=false` keeps the source's ICC profile unless the URL says `scp:1`.
    @Test func stripColorProfileDefault() async throws {
        #expect(try ServerConfiguration(environment: [:]).stripsColorProfile)
        #expect(try !ServerConfiguration(environment: ["IMGPROXY_STRIP_COLOR_PROFILE": "false"]).stripsColorProfile)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let profile = try Data(
            contentsOf: root.appendingPathComponent("Tests/ColorManagementTests/Profiles/display-p3.icc"))
        WebImage.registerBuiltInCoders()
        let png = try ImageCodersManager.shared.encode(
            Image(pixels: Fixtures.photoPixels()), as: .png,
            options: EncodeOptions(iccProfile: profile))
        var files = Fixtures.standardFiles
        files["/p3.png"] = .init(data: png, contentType: "image/png")
        var raw = DecodeOptions()
        raw.colorConversion = .off
        func profileOf(_ servers: TestServers, _ options: String) async throws -> Data? {
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(options: options, source: servers.sourceURL("/p3.png"), extension: "png"))
            #expect(reply.status == 200)
            return try ImageCodersManager.shared.decode(reply.body, options: raw).metadata.iccProfile
        }
        let stripping = try await TestServers.start(files: files)
        #expect(try await profileOf(stripping, "") == nil)
        #expect(try await profileOf(stripping, "scp:0") != nil)
        try await stripping.stop()
        let keeping = try await TestServers.start(files: files) { $0.stripsColorProfile = false }
        #expect(try await profileOf(keeping, "") != nil)
        #expect(try await profileOf(keeping, "scp:1") == nil)
        try await keeping.stop()
    }

    /// Answer-option booleans are Go's `strconv.ParseBool`: `T`, `TRUE` and `True` are true, `tRUE` is not.
    @Test func booleansAreGosParseBool() async throws {
        for text in ["1", "t", "T", "true", "TRUE", "True"] {
            #expect(ResponseOptions.bool(Substring(text)), "\(text)")
        }
        for text in ["tRUE", "yes", "on", "0", "f", "", "truE"] {
            #expect(!ResponseOptions.bool(Substring(text)), "\(text)")
        }
        let servers = try await TestServers.start()
        let photo = servers.sourceURL("/photo.jpg")
        let upper = try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "att:T", source: photo))
        #expect(upper.header("Content-Disposition")?.hasPrefix("attachment") == true)
        let mixed = try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "att:tRUE", source: photo))
        #expect(mixed.header("Content-Disposition")?.hasPrefix("inline") == true)
        try await servers.stop()
    }

    /// `IMGPROXY_SECRET`: image requests without `Authorization: Bearer SECRET` answer 403; `/health` stays open.
    @Test func secretGuardsImageRequests() async throws {
        #expect(try ServerConfiguration(environment: ["IMGPROXY_SECRET": "s3cret"]).secret == "s3cret")
        let servers = try await TestServers.start { $0.secret = "s3cret" }
        let path = servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg"))
        #expect(try await HTTPClient.get(path).status == 403)
        #expect(try await HTTPClient.get(path, headers: ["Authorization": "Bearer wrong!"]).status == 403)
        #expect(try await HTTPClient.get(path, headers: ["Authorization": "Bearer s3cre"]).status == 403)
        #expect(try await HTTPClient.get(path, headers: ["Authorization": "Bearer s3cret"]).status == 200)
        #expect(try await HTTPClient.get(servers.baseURL + "/health").status == 200)
        try await servers.stop()
    }

    /// `IMGPROXY_RETURN_ATTACHMENT` makes `attachment` the default; `att:0` still answers inline.
    @Test func returnAttachmentDefault() async throws {
        #expect(try ServerConfiguration(environment: ["IMGPROXY_RETURN_ATTACHMENT": "true"]).returnsAttachment)
        let servers = try await TestServers.start { $0.returnsAttachment = true }
        let photo = servers.sourceURL("/photo.jpg")
        let plain = try await HTTPClient.get(servers.baseURL + servers.plainPath(source: photo))
        #expect(plain.header("Content-Disposition") == "attachment; filename=\"photo.jpg\"")
        let inline = try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "att:0", source: photo))
        #expect(inline.header("Content-Disposition") == "inline; filename=\"photo.jpg\"")
        try await servers.stop()
    }

    /// `IMGPROXY_WEBP_EFFORT` is libwebp's method, as `WEBIMAGE_SERVER_WEBP_EFFORT` (which wins).
    @Test func webpEffortIsRead() throws {
        #expect(try ServerConfiguration(environment: ["IMGPROXY_WEBP_EFFORT": "2"]).webpEffort == 2)
        #expect(
            try ServerConfiguration(environment: ["IMGPROXY_WEBP_EFFORT": "2", "WEBIMAGE_SERVER_WEBP_EFFORT": "5"])
                .webpEffort == 5)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMGPROXY_WEBP_EFFORT": "0"]) }
    }

    /// Over `IMGPROXY_MAX_ANIMATION_FRAMES` (or `maf`), an animation keeps its first frames, as imgproxy
    /// loads `min(pages, max_animation_frames)` of them, instead of being refused.
    @Test func longerAnimationsKeepTheirFirstFrames() async throws {
        let servers = try await TestServers.start {
            $0.maxAnimationFrames = 2; $0.allowsSecurityOptions = true
        }
        let gif = try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/anim.gif")))
        #expect(gif.status == 200)
        #expect(gif.header("Content-Type") == "image/gif")
        let image = try Fixtures.decode(gif.body)
        #expect(image.frameCount == 2)
        // The frames kept are the first two: red 0, then 120 (the fixture's third is 240).
        if let animation = image.animation, image.frameCount == 2 {
            #expect(try animation.frame(at: 1).pixels.bytes[0] > 100 && animation.frame(at: 1).pixels.bytes[0] < 140)
        }
        let three = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "maf:3", source: servers.sourceURL("/anim.gif")))
        #expect(try Fixtures.decode(three.body).frameCount == 3)
        let webp = try await HTTPClient.get(
            servers.baseURL
                + servers.plainPath(options: "maf:2", source: servers.sourceURL("/anim.gif"), extension: "webp"))
        #expect(try Fixtures.decode(webp.body).frameCount == 2)
        try await servers.stop()
    }

    /// `IMGPROXY_WATERMARK_URL`: the watermark is fetched as a source when a URL first asks for `wm:`, and
    /// draws what the same image from a file draws.
    @Test func watermarkFromAURL() async throws {
        #expect(
            try ServerConfiguration(environment: ["IMGPROXY_WATERMARK_URL": "https://cdn.example.com/mark.png"])
                .watermarkURL == URL(string: "https://cdn.example.com/mark.png"))
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_WATERMARK_URL": "mark.png"])
        }
        let mark = Fixtures.encoded(Fixtures.alphaPixels(), as: .png)
        var files = Fixtures.standardFiles
        files["/mark.png"] = .init(data: mark, contentType: "image/png")
        // The watermark comes from the first servers' origin, on loopback as any test source.
        let byData = try await TestServers.start(files: files) { $0.watermarkData = mark }
        let expected = try await HTTPClient.get(
            byData.baseURL
                + byData.plainPath(options: "wm:1:ce", source: byData.sourceURL("/photo.jpg"), extension: "png"))
        let byURL = try await TestServers.start(files: files) {
            $0.watermarkURL = URL(string: byData.sourceURL("/mark.png"))
        }
        let marked = try await HTTPClient.get(
            byURL.baseURL + byURL.plainPath(options: "wm:1:ce", source: byURL.sourceURL("/photo.jpg"), extension: "png")
        )
        #expect(marked.status == 200)
        #expect(try Fixtures.decode(marked.body).pixels == (try Fixtures.decode(expected.body).pixels))
        try await byURL.stop()
        try await byData.stop()
    }

    /// `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION` refuses animations with larger frames (422); stills pass.
    @Test func maxAnimationFrameResolutionDefault() async throws {
        #expect(
            try ServerConfiguration(environment: ["IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "0.5"])
                .maxAnimationFrameResolution == 0.5)
        let servers = try await TestServers.start {
            $0.maxAnimationFrames = 10; $0.maxAnimationFrameResolution = 0.0001
        }
        #expect(
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/anim.gif"))).status
                == 422)
        #expect(
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
                .status == 200)
        try await servers.stop()
    }

    /// `wm:…:re` tiles the watermark over the whole image, centred, as imgproxy's replicate: on the 64 x 48
    /// photo the 32 px mark repeats three times each way, so its opaque top half reaches the left edge.
    @Test func replicatedWatermarkTilesTheImage() async throws {
        let mark = Fixtures.encoded(Fixtures.alphaPixels(), as: .png)
        let servers = try await TestServers.start { $0.watermarkData = mark }
        func pixels(_ options: String) async throws -> Image {
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(options: options, source: servers.sourceURL("/photo.jpg"), extension: "png"))
            #expect(reply.status == 200)
            return try Fixtures.decode(reply.body)
        }
        let centred = try await pixels("wm:1:ce")
        let tiled = try await pixels("wm:1:re")
        // (0, 8) is the mark's row 0, column 16 in the tiling (255, 128, 0); the centred mark does not reach it.
        #expect(tiled.pixels.rgba(x: 0, y: 8).r == 255)
        #expect(tiled.pixels.rgba(x: 0, y: 8).b < 10)
        #expect(centred.pixels.rgba(x: 0, y: 8).b > 100)
        try await servers.stop()
    }

    /// `IMGPROXY_ETAG_BUSTER` changes every ETag (so an old tag no longer answers 304); the tag stays stable
    /// under one buster.
    @Test func etagBusterChangesTags() async throws {
        #expect(try ServerConfiguration(environment: ["IMGPROXY_ETAG_BUSTER": "v2"]).etagBuster == "v2")
        let plain = try await TestServers.start { $0.usesETag = true }
        let busted = try await TestServers.start {
            $0.usesETag = true; $0.etagBuster = "v2"
        }
        func tag(_ servers: TestServers, ifNoneMatch: String? = nil) async throws -> (Int, String?) {
            let reply = try await HTTPClient.get(
                servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")),
                headers: ifNoneMatch.map { ["If-None-Match": $0] } ?? [:])
            return (reply.status, reply.header("ETag"))
        }
        let (_, old) = try await tag(plain)
        let (_, new) = try await tag(busted)
        #expect(old != nil && new != nil && old != new)
        #expect(try await tag(busted).1 == new)
        #expect(try await tag(busted, ifNoneMatch: new).0 == 304)
        #expect(try await tag(busted, ifNoneMatch: old).0 == 200)
        try await busted.stop()
        try await plain.stop()
    }

    /// `IMGPROXY_LOG_LEVEL` in imgproxy's names, under our `LOG_LEVEL`.
    @Test func logLevelFromImgproxysVariable() {
        #expect(ServerConfiguration.logLevel(environment: [:]) == .info)
        #expect(ServerConfiguration.logLevel(environment: ["IMGPROXY_LOG_LEVEL": "warn"]) == .warning)
        #expect(ServerConfiguration.logLevel(environment: ["IMGPROXY_LOG_LEVEL": "debug"]) == .debug)
        #expect(
            ServerConfiguration.logLevel(environment: ["IMGPROXY_LOG_LEVEL": "error", "LOG_LEVEL": "trace"]) == .trace)
    }
}

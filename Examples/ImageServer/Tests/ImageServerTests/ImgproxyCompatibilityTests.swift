import Foundation
import Testing
import WebImage

@testable import ImageServer

/// Behaviour an imgproxy deployment relies on, as imgproxy's documentation gives it: defaults, status
/// codes, the answer-shaping options (`filename`, `return_attachment`, `cachebuster`, `expires`) and the
/// URL extension.
@Suite struct ImgproxyCompatibilityTests {
    @Test func defaultsAreImgproxys() async throws {
        let configuration = try ServerConfiguration(environment: [:])
        #expect(!configuration.negotiatesWebP && !configuration.negotiatesAVIF && !configuration.usesETag)
        let servers = try await TestServers.start()
        let reply = try await HTTPClient.get(
            servers.baseURL + servers.encodedPath(source: servers.sourceURL("/photo.jpg")),
            headers: ["Accept": "image/webp,image/avif,*/*"])
        // No negotiation unless IMGPROXY_AUTO_WEBP/AVIF: the source's format, and nothing varies.
        #expect(reply.header("Content-Type") == "image/jpeg")
        #expect(reply.header("Vary") == nil)
        // No ETag unless IMGPROXY_USE_ETAG; Cache-Control and Expires always.
        #expect(reply.header("ETag") == nil)
        #expect(reply.header("Cache-Control") == "max-age=\(ServerConfiguration.defaultTTL), public")
        #expect(reply.header("Expires")?.hasSuffix(" GMT") == true)
        try await servers.stop()
    }

    @Test func environmentTurnsThemOn() throws {
        let configuration = try ServerConfiguration(environment: [
            "IMGPROXY_AUTO_WEBP": "true", "IMGPROXY_AUTO_AVIF": "1", "IMGPROXY_USE_ETAG": "true",
            "IMGPROXY_MAX_REDIRECTS": "3",
        ])
        #expect(configuration.negotiatesWebP && configuration.negotiatesAVIF && configuration.usesETag)
        #expect(configuration.maxRedirects == 3)
        #expect(
            SourceFetcher(configuration: configuration, coders: .shared, metrics: ServerMetrics())
                .httpLoader.configuration.maxRedirects == 3)
    }

    @Test func statusCodes() async throws {
        let servers = try await TestServers.start { $0.allowedSources = ["http://127.0.0.1:*/"] }
        let photo = servers.sourceURL("/photo.jpg")
        func status(_ path: String) async throws -> Int { try await HTTPClient.get(servers.baseURL + path).status }
        // Invalid URL or options, an expired URL, a source outside the allow-list: 404.
        #expect(try await status("/insecure") == 404)
        #expect(try await status(servers.plainPath(options: "rs:nonsense", source: photo)) == 404)
        #expect(try await status(servers.plainPath(options: "exp:1", source: photo)) == 404)
        #expect(try await status(servers.plainPath(source: "http://example.com/photo.jpg")) == 404)
        // A pixel bomb and a file that is no image: 422. A missing source: 404.
        #expect(try await status(servers.plainPath(source: servers.sourceURL("/bomb.png"))) == 422)
        #expect(try await status(servers.plainPath(source: servers.sourceURL("/not-an-image.txt"))) == 422)
        #expect(try await status(servers.plainPath(source: servers.sourceURL("/missing.jpg"))) == 404)
        // A URL that expires later is served.
        let later = Int(Date().timeIntervalSince1970) + 3600
        #expect(try await status(servers.plainPath(options: "exp:\(later)", source: photo)) == 200)
        try await servers.stop()
    }

    /// imgproxy's codes for sources it cannot have (its imagedata errors): the origin's 4xx as is, its 5xx as
    /// 502, an unreachable origin or a refused address 404.
    @Test func originFailuresAnswerAsImgproxys() async throws {
        var files = Fixtures.standardFiles
        for code in [401, 403, 404, 410, 429, 500, 503] { files["/status-\(code)"] = .failing(with: code) }
        let servers = try await TestServers.start(files: files)
        func status(_ source: String) async throws -> Int {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: source)).status
        }
        for code in [401, 403, 404, 410, 429] {
            #expect(try await status(servers.sourceURL("/status-\(code)")) == code, "origin \(code)")
        }
        for code in [500, 503] {
            #expect(try await status(servers.sourceURL("/status-\(code)")) == 502, "origin \(code)")
        }
        // Nothing listens on port 1: unreachable, 404.
        #expect(try await status("http://127.0.0.1:1/photo.jpg") == 404)
        try await servers.stop()
        // A private address without permission: 404, as imgproxy's source address error.
        let guarded = try await TestServers.start { $0.allowsLoopbackSources = false }
        #expect(
            try await HTTPClient.get(guarded.baseURL + guarded.plainPath(source: guarded.sourceURL("/photo.jpg")))
                .status == 404)
        try await guarded.stop()
    }

    /// `local://` sources under `IMGPROXY_LOCAL_FILESYSTEM_ROOT`, nothing outside it.
    @Test func localSourcesReadUnderTheRoot() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("local-root-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("images"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Fixtures.standardFiles["/photo.jpg"]!.data.write(to: root.appendingPathComponent("images/photo.jpg"))
        let configured = try ServerConfiguration(environment: ["IMGPROXY_LOCAL_FILESYSTEM_ROOT": root.path])
        #expect(configured.localFileSystemRoot?.path == root.path)
        let servers = try await TestServers.start { $0.localFileSystemRoot = root }
        let photo = try await HTTPClient.get(
            servers.baseURL
                + servers.plainPath(options: "rs:fit:20:20", source: "local:///images/photo.jpg", extension: "png"))
        #expect(photo.status == 200)
        #expect(photo.header("Content-Type") == "image/png")
        for escape in ["local:///../etc/passwd", "local:///images/missing.jpg"] {
            #expect(
                try await HTTPClient.get(servers.baseURL + servers.plainPath(source: escape)).status == 404, "\(escape)"
            )
        }
        try await servers.stop()
        // Without a root, local:// is not a source URL: 404.
        let plain = try await TestServers.start()
        #expect(
            try await HTTPClient.get(plain.baseURL + plain.plainPath(source: "local:///images/photo.jpg")).status == 404
        )
        try await plain.stop()
    }

    /// `IMGPROXY_FALLBACK_IMAGE_*`: a source that cannot be downloaded is replaced by the fallback image,
    /// processed with the request's options, answered with the configured code and TTL, and never kept
    /// under the URL.
    @Test func theFallbackImageStandsInForSourcesThatCannotBeDownloaded() async throws {
        let png = Fixtures.encoded(Fixtures.photoPixels(), as: .png)
        let environment = [
            "IMGPROXY_FALLBACK_IMAGE_DATA": png.base64EncodedString(), "IMGPROXY_FALLBACK_IMAGE_TTL": "60",
        ]
        let fallback = try #require(try ServerConfiguration(environment: environment).fallbackImage)
        #expect(fallback.origin == .bytes(png) && fallback.status == 200 && fallback.ttl == 60)
        let servers = try await TestServers.start { $0.fallbackImage = fallback }
        let missing = servers.sourceURL("/missing.jpg")
        let reply = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "rs:fit:20:20", source: missing, extension: "png"))
        #expect(reply.status == 200)
        #expect(reply.header("Cache-Control") == "max-age=60, public")
        let image = try ImageCodersManager.shared.decode(reply.body, options: DecodeOptions())
        #expect(image.width == 20 && image.height == 15)
        // A source that is there is still processed as itself.
        #expect(
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
                .header("Cache-Control")
                == "max-age=\(ServerConfiguration.defaultTTL), public")
        try await servers.stop()

        // With HTTP code 0, the download error's own code.
        let withCode = FallbackImage(origin: .bytes(png), status: nil, ttl: nil)
        let coded = try await TestServers.start { $0.fallbackImage = withCode }
        let notFound = try await HTTPClient.get(
            coded.baseURL + coded.plainPath(source: coded.sourceURL("/missing.jpg")))
        #expect(notFound.status == 404)
        #expect(try ImageCodersManager.shared.decode(notFound.body, options: DecodeOptions()).width == 64)
        try await coded.stop()
    }

    /// `IMGPROXY_PROMETHEUS_BIND`: `/metrics` on its own address, and no longer beside the images.
    @Test func prometheusBindServesMetricsOnTheirOwnPort() async throws {
        let configured = try ServerConfiguration(environment: ["IMGPROXY_PROMETHEUS_BIND": ":9464"])
        #expect(configured.metricsBind == ServerConfiguration.MetricsBind(host: "0.0.0.0", port: 9464))
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_PROMETHEUS_BIND": "nowhere"])
        }
        let servers = try await TestServers.start { $0.metricsBind = .init(host: "127.0.0.1", port: 0) }
        let metricsPort = try #require(servers.metricsPort)
        #expect(
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: servers.sourceURL("/photo.jpg")))
                .status == 200)
        let metrics = try await HTTPClient.get("http://127.0.0.1:\(metricsPort)/metrics")
        #expect(metrics.status == 200)
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("webimage_server_requests_total"))
        // On the image port, /metrics is now a processing URL like any other path: not one, 404.
        #expect(try await HTTPClient.get(servers.baseURL + "/metrics").status == 404)
        try await servers.stop()
    }

    /// imgproxy's output format choice (processing.go's): without a format in the URL a source keeps a
    /// preferred format (JPEG, PNG, GIF by default); another becomes the first preferred format that keeps
    /// its alpha and animation; `IMGPROXY_ENFORCE_WEBP` overrides a format in the URL for clients that take WebP.
    @Test func preferredAndEnforcedFormats() async throws {
        var files = Fixtures.standardFiles
        files["/photo.webp"] = .init(
            data: Fixtures.encoded(Fixtures.photoPixels(), as: .webp), contentType: "image/webp")
        files["/alpha.webp"] = .init(
            data: Fixtures.encoded(Fixtures.alphaPixels(), as: .webp), contentType: "image/webp")
        let servers = try await TestServers.start(files: files)
        func contentType(_ source: String, _ ext: String? = nil, accept: String = "*/*") async throws -> String? {
            try await HTTPClient.get(
                servers.baseURL + servers.plainPath(source: servers.sourceURL(source), extension: ext),
                headers: ["Accept": accept]
            ).header("Content-Type")
        }
        #expect(try await contentType("/photo.jpg") == "image/jpeg")
        #expect(try await contentType("/alpha.png") == "image/png")
        #expect(try await contentType("/anim.gif") == "image/gif")
        // WebP is not preferred by default: JPEG, or PNG for alpha.
        #expect(try await contentType("/photo.webp") == "image/jpeg")
        #expect(try await contentType("/alpha.webp") == "image/png")
        try await servers.stop()

        let environment = try ServerConfiguration(environment: [
            "IMGPROXY_PREFERRED_FORMATS": "webp,png", "IMGPROXY_ENFORCE_WEBP": "1",
        ])
        #expect(environment.preferredFormats == [.webp, .png] && environment.enforcesWebP)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_PREFERRED_FORMATS": "jpeg,nope"])
        }
        let preferring = try await TestServers.start(files: files) {
            $0.preferredFormats = [.webp, .png]; $0.enforcesWebP = true
        }
        func type(_ source: String, _ ext: String? = nil, accept: String = "*/*") async throws -> (String?, String?) {
            let reply = try await HTTPClient.get(
                preferring.baseURL + preferring.plainPath(source: preferring.sourceURL(source), extension: ext),
                headers: ["Accept": accept])
            return (reply.header("Content-Type"), reply.header("Vary"))
        }
        #expect(try await type("/photo.jpg") == ("image/webp", "Accept"))
        #expect(try await type("/photo.webp") == ("image/webp", "Accept"))
        // Enforced: a client that takes WebP gets it whatever the URL says; another gets the URL's format.
        #expect(try await type("/photo.jpg", "png", accept: "image/webp,*/*") == ("image/webp", "Accept"))
        #expect(try await type("/photo.jpg", "png") == ("image/png", "Accept"))
        try await preferring.stop()
    }

    /// `IMGPROXY_ENABLE_CLIENT_HINTS`: `DPR` and `Width` (or their `Sec-CH-` forms) are `dpr` and `width`
    /// defaults, the width divided by the DPR; the URL's options win; answers vary with the four headers.
    @Test func clientHintsAreDefaultsTheURLOverrides() async throws {
        #expect(ClientHints(dpr: "2", width: "30").segments == ["dpr:2", "w:15"])
        #expect(ClientHints(dpr: "9", width: "30").segments == ["w:30"])  // over imgproxy's bound of 8: ignored
        #expect(ClientHints(dpr: "0", width: "abc").segments == [])
        let servers = try await TestServers.start { $0.readsClientHints = true }
        let photo = servers.sourceURL("/photo.jpg")
        let hinted = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: photo, extension: "png"),
            headers: ["Sec-CH-DPR": "2", "Sec-CH-Width": "32"])
        #expect(hinted.header("Vary") == "Sec-CH-DPR, DPR, Sec-CH-Width, Width")
        // Width 32 physical pixels at DPR 2: 16 CSS pixels, drawn at 2x: 32 wide.
        #expect(try Fixtures.decode(hinted.body).width == 32)
        let legacy = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: photo, extension: "png"), headers: ["Width": "20"])
        #expect(try Fixtures.decode(legacy.body).width == 20)
        let overridden = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "w:10", source: photo, extension: "png"),
            headers: ["Width": "40"])
        #expect(try Fixtures.decode(overridden.body).width == 10)
        try await servers.stop()
    }

    /// `IMGPROXY_SKIP_PROCESSING_FORMATS`: such sources are answered byte for byte unless the URL names
    /// another format.
    @Test func skipProcessingFormatsAnswerTheSourceAsItIs() async throws {
        let servers = try await TestServers.start { $0.skipProcessingFormats = [.png] }
        let alpha = servers.sourceURL("/alpha.png")
        let same = try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "rs:fit:5:5", source: alpha))
        #expect(same.body == Fixtures.standardFiles["/alpha.png"]!.data)
        let converted = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "rs:fit:5:5", source: alpha, extension: "webp"))
        #expect(converted.header("Content-Type") == "image/webp")
        let photo = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "rs:fit:5:5", source: servers.sourceURL("/photo.jpg")))
        #expect(try Fixtures.decode(photo.body).width == 5)
        try await servers.stop()
    }

    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`: other option names in a URL are refused (404), as written;
    /// presets may use any.
    @Test func onlyAllowedOptionNamesPass() async throws {
        let servers = try await TestServers.start { configuration in
            configuration.allowedProcessingOptions = ["rs", "pr"]
            configuration.presets = try Presets("blurred=bl:2", onlyPresets: false)
        }
        let photo = servers.sourceURL("/photo.jpg")
        func status(_ options: String) async throws -> Int {
            try await HTTPClient.get(servers.baseURL + servers.plainPath(options: options, source: photo)).status
        }
        #expect(try await status("rs:fit:10:10") == 200)
        #expect(try await status("resize:fit:10:10") == 404)
        #expect(try await status("q:50") == 404)
        #expect(try await status("pr:blurred") == 200)
        try await servers.stop()
    }

    /// `IMGPROXY_USE_LAST_MODIFIED`, `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`, `IMGPROXY_SET_CANONICAL_HEADER`
    /// and the `expires` option's effect on `Cache-Control` (imgproxy's processing_handler.go), also for
    /// answers read back from the disk result cache.
    @Test func sourceHeadersShapeTheAnswersHeaders() async throws {
        let modified = "Tue, 03 Nov 2026 10:00:00 GMT"
        var files = Fixtures.standardFiles
        var datedFile = files["/photo.jpg"]!
        datedFile.headers = [("Last-Modified", modified), ("Cache-Control", "max-age=123, public")]
        files["/dated.jpg"] = datedFile
        var expiring = files["/photo.jpg"]!
        expiring.headers = [("Expires", ImageService.httpDate(Date().addingTimeInterval(600)))]
        files["/expiring.jpg"] = expiring
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try ServerConfiguration(environment: [
            "IMGPROXY_USE_LAST_MODIFIED": "1", "IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "1",
            "IMGPROXY_SET_CANONICAL_HEADER": "1",
        ])
        #expect(environment.usesLastModified && environment.cacheControlPassthrough && environment.setsCanonicalHeader)
        let servers = try await TestServers.start(files: files) { configuration in
            configuration.usesLastModified = true
            configuration.cacheControlPassthrough = true
            configuration.setsCanonicalHeader = true
            configuration.resultCacheDirectory = directory
        }
        let dated = servers.sourceURL("/dated.jpg")
        let path = servers.baseURL + servers.plainPath(options: "rs:fit:16:16", source: dated)
        let first = try await HTTPClient.get(path)
        #expect(first.status == 200)
        #expect(first.header("Last-Modified") == modified)
        #expect(first.header("Cache-Control") == "max-age=123, public")
        #expect(first.header("Link") == "<\(dated)>; rel=\"canonical\"")
        // Not modified since then: 304; since an earlier date: the image.
        #expect(try await HTTPClient.get(path, headers: ["If-Modified-Since": modified]).status == 304)
        #expect(
            try await HTTPClient.get(path, headers: ["If-Modified-Since": "Mon, 02 Nov 2026 10:00:00 GMT"]).status
                == 200)
        // From the disk level (a fresh server on the same directory; the key names the first origin), the same headers.
        try await servers.stop()
        let again = try await TestServers.start(files: files) { configuration in
            configuration.usesLastModified = true
            configuration.cacheControlPassthrough = true
            configuration.resultCacheDirectory = directory
        }
        let fromDisk = try await HTTPClient.get(again.baseURL + again.plainPath(options: "rs:fit:16:16", source: dated))
        #expect(fromDisk.header("Last-Modified") == modified)
        #expect(fromDisk.header("Cache-Control") == "max-age=123, public")
        // Only Expires at the origin: a max-age up to it.
        let expires = try await HTTPClient.get(
            again.baseURL + again.plainPath(source: again.sourceURL("/expiring.jpg")))
        let maxAge = expires.header("Cache-Control").flatMap {
            Int($0.dropFirst("max-age=".count).prefix { $0.isNumber })
        }
        #expect(
            maxAge.map { (500...600).contains($0) } == true, "\(String(describing: expires.header("Cache-Control")))")
        // `expires` sooner than the TTL caps max-age (and wins over the source's headers).
        let soon = Int(Date().timeIntervalSince1970) + 100
        let capped = try await HTTPClient.get(
            again.baseURL + again.plainPath(options: "exp:\(soon)", source: again.sourceURL("/dated.jpg")))
        let cappedAge = capped.header("Cache-Control").flatMap {
            Int($0.dropFirst("max-age=".count).prefix { $0.isNumber })
        }
        #expect(
            cappedAge.map { (1...100).contains($0) } == true,
            "\(capped.status) \(String(describing: capped.header("Cache-Control")))")
        try await again.stop()
    }

    /// `IMGPROXY_MAX_ANIMATION_FRAMES` is 1 by default: an animation is its first frame. Above 1, an
    /// animation asked for in a format without animation (PNG) is a still too, never an APNG.
    @Test func animationsAsImgproxyTreatsThem() async throws {
        #expect(try ServerConfiguration(environment: [:]).maxAnimationFrames == 1)
        let still = try await TestServers.start()
        let first = try await HTTPClient.get(still.baseURL + still.plainPath(source: still.sourceURL("/anim.gif")))
        #expect(first.header("Content-Type") == "image/gif")
        #expect(try Fixtures.decode(first.body).frameCount == 1)
        try await still.stop()
        let animated = try await TestServers.start { $0.maxAnimationFrames = 10 }
        let gif = try await HTTPClient.get(
            animated.baseURL + animated.plainPath(source: animated.sourceURL("/anim.gif")))
        #expect(try Fixtures.decode(gif.body).frameCount == 3)
        let png = try await HTTPClient.get(
            animated.baseURL + animated.plainPath(source: animated.sourceURL("/anim.gif"), extension: "png"))
        #expect(png.header("Content-Type") == "image/png")
        #expect(try Fixtures.decode(png.body).frameCount == 1)
        try await animated.stop()
    }

    /// A truncated JPEG shows the rows it has, as imgproxy (libvips) and browsers show it.
    @Test func aTruncatedJPEGShowsItsDecodedRows() async throws {
        var files = Fixtures.standardFiles
        let photo = Fixtures.encoded(Fixtures.noisePixels(side: 64), as: .jpeg)
        files["/cut.jpg"] = .init(data: photo.prefix(photo.count * 2 / 3), contentType: "image/jpeg")
        let servers = try await TestServers.start(files: files)
        let reply = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(source: servers.sourceURL("/cut.jpg"), extension: "png"))
        #expect(reply.status == 200)
        #expect(try Fixtures.decode(reply.body).width == 64)
        try await servers.stop()
        let strict = try await TestServers.start(files: files) { $0.showsTruncatedImages = false }
        #expect(
            try await HTTPClient.get(strict.baseURL + strict.plainPath(source: strict.sourceURL("/cut.jpg"))).status
                == 422)
        try await strict.stop()
    }

    /// SVG sources as imgproxy serves them: as sanitised SVG when the URL names no raster format (its
    /// processing options ignored), rasterised with librsvg when it does or with `IMGPROXY_ALWAYS_RASTERIZE_SVG`.
    @Test func svgSourcesPassSanitisedOrAreRasterised() async throws {
        var files = Fixtures.standardFiles
        let svg = Data(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="80" height="40" onload="alert(1)">
              <script>alert(2)</script><rect width="80" height="40" fill="#08f"/>
            </svg>
            """.utf8)
        files["/logo.svg"] = .init(data: svg, contentType: "image/svg+xml")
        let servers = try await TestServers.start(files: files)
        let logo = servers.sourceURL("/logo.svg")
        let passed = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "rs:fit:20:20", source: logo))
        #expect(passed.status == 200)
        #expect(passed.header("Content-Type") == "image/svg+xml")
        let text = String(decoding: passed.body, as: UTF8.self)
        #expect(text.contains("<rect") && !text.contains("script") && !text.contains("onload"), "\(text)")
        let raster = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "rs:fit:20:20", source: logo, extension: "png"))
        #expect(raster.header("Content-Type") == "image/png")
        let image = try Fixtures.decode(raster.body)
        #expect(image.width == 20 && image.height == 10)
        try await servers.stop()
        let rasterising = try await TestServers.start(files: files) { $0.alwaysRasterizesSVG = true }
        let always = try await HTTPClient.get(
            rasterising.baseURL
                + rasterising.plainPath(options: "rs:fit:40:40", source: rasterising.sourceURL("/logo.svg")))
        #expect(always.header("Content-Type") == "image/png")
        #expect(try Fixtures.decode(always.body).width == 40)
        try await rasterising.stop()
    }

    /// `f:svg` (or `@svg`) as imgproxy v3 answers it: an SVG source passes through (sanitised); a raster
    /// source is fetched, then refused with 422, since SVG is never written ("Resulting image format is
    /// not supported: svg"); a source that cannot be fetched keeps its own error; with
    /// `IMGPROXY_ALWAYS_RASTERIZE_SVG` an SVG source is refused the same way.
    @Test func svgOutputOnlyPassesAnSVGSourceThrough() async throws {
        var files = Fixtures.standardFiles
        files["/logo.svg"] = .init(
            data: Data(
                #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="4"><rect width="8" height="4"/></svg>"#.utf8
            ),
            contentType: "image/svg+xml")
        let servers = try await TestServers.start(files: files)
        func get(
            _ servers: TestServers, _ options: String, _ source: String, _ ext: String? = nil
        ) async throws -> HTTPReply {
            try await HTTPClient.get(
                servers.baseURL + servers.plainPath(options: options, source: servers.sourceURL(source), extension: ext)
            )
        }
        let svg = try await get(servers, "f:svg", "/logo.svg")
        #expect(svg.status == 200)
        #expect(svg.header("Content-Type") == "image/svg+xml")
        #expect(try await get(servers, "", "/logo.svg", "svg").status == 200)
        let raster = try await get(servers, "f:svg", "/photo.jpg")
        #expect(raster.status == 422)
        #expect(String(decoding: raster.body, as: UTF8.self).contains("not supported: svg"))
        #expect(try await get(servers, "rs:fit:10:10", "/photo.jpg", "svg").status == 422)
        #expect(try await get(servers, "f:svg", "/missing.jpg").status == 404, "the source's own error first")
        try await servers.stop()
        let rasterising = try await TestServers.start(files: files) { $0.alwaysRasterizesSVG = true }
        #expect(try await get(rasterising, "f:svg", "/logo.svg").status == 422)
        try await rasterising.stop()
    }

    /// The options the server acts on itself: security options only with `IMGPROXY_ALLOW_SECURITY_OPTIONS`
    /// (403 otherwise) and then enforced; `raw` and `skp` answer the source; `fq` picks the quality per
    /// format; `mb` re-encodes until the answer fits; `z` is not decoded into the fit box.
    @Test func optionsTheServerActsOn() async throws {
        var files = Fixtures.standardFiles
        files["/noise.png"] = .init(
            data: Fixtures.encoded(Fixtures.noisePixels(side: 128), as: .png), contentType: "image/png")
        let servers = try await TestServers.start(files: files) { $0.maxAnimationFrames = 10 }
        let photo = servers.sourceURL("/photo.jpg")
        func get(_ options: String, _ source: String? = nil, _ ext: String? = nil) async throws -> HTTPReply {
            try await HTTPClient.get(
                servers.baseURL + servers.plainPath(options: options, source: source ?? photo, extension: ext))
        }
        for option in ["msr:1", "msfs:100", "maf:1", "mafr:1", "mrd:10"] {
            #expect(try await get(option).status == 403, "\(option)")
        }
        let original = Fixtures.standardFiles["/photo.jpg"]!.data
        #expect(try await get("raw:1/rs:fit:8:8").body == original)
        #expect(try await get("skp:jpg/rs:fit:8:8").body == original)
        #expect(try Fixtures.decode(try await get("skp:png/rs:fit:8:8").body).width == 8)
        let low = try await get("fq:jpeg:5", nil, "jpg").body.count,
            high = try await get("fq:jpeg:95", nil, "jpg").body.count
        #expect(low < high)
        #expect(try await get("fq:webp:5", nil, "jpg").body.count == (try await get("q:80", nil, "jpg").body.count))
        let noise = servers.sourceURL("/noise.png")
        let unbounded = try await get("q:95", noise, "jpg").body.count
        let bounded = try await get("q:95/mb:\(unbounded / 3)", noise, "jpg")
        #expect(bounded.status == 200 && bounded.body.count <= unbounded / 3, "\(bounded.body.count) of \(unbounded)")
        let zoomed = try Fixtures.decode(try await get("rs:fit:16:16/z:2", nil, "png").body)
        #expect(zoomed.width == 32)
        try await servers.stop()

        let permissive = try await TestServers.start {
            $0.allowsSecurityOptions = true; $0.maxAnimationFrames = 10
        }
        func status(_ options: String, _ source: String) async throws -> Int {
            try await HTTPClient.get(
                permissive.baseURL + permissive.plainPath(options: options, source: permissive.sourceURL(source))
            ).status
        }
        #expect(try await status("msr:0.001", "/photo.jpg") == 422)  // 64x48 is 3,072 pixels: over 1,000
        #expect(try await status("msr:1", "/photo.jpg") == 200)
        #expect(try await status("msfs:100", "/photo.jpg") == 422)
        let firstFrame = try await HTTPClient.get(
            permissive.baseURL + permissive.plainPath(options: "maf:1", source: permissive.sourceURL("/anim.gif")))
        #expect(try Fixtures.decode(firstFrame.body).frameCount == 1)
        #expect(try await status("mafr:0.0001", "/anim.gif") == 422)
        let capped = try await HTTPClient.get(
            permissive.baseURL
                + permissive.plainPath(options: "mrd:10", source: permissive.sourceURL("/photo.jpg"), extension: "png"))
        #expect(try Fixtures.decode(capped.body).width == 10)
        try await permissive.stop()
    }

    /// `IMGPROXY_USE_S3`: `s3://bucket/key` sources through the S3 loader, path style on
    /// `IMGPROXY_S3_ENDPOINT` (here the test origin standing in for the store; the loader's own tests
    /// speak S3 to moto), credentials from AWS's variables.
    @Test func s3SourcesComeFromTheConfiguredEndpoint() async throws {
        let environment = [
            "IMGPROXY_USE_S3": "true", "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret",
            "IMGPROXY_S3_REGION": "eu-west-3", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:9000",
        ]
        let configured = try #require(try ServerConfiguration(environment: environment).s3)
        #expect(configured.signature.region == "eu-west-3" && configured.signature.accessKeyID == "AKIDTEST")
        #expect(configured.endpoint?.absoluteString == "http://127.0.0.1:9000" && configured.usesPathStyle)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMGPROXY_USE_S3": "true"]) }
        var files = Fixtures.standardFiles
        files["/photos/cats/tom.jpg"] = files["/photo.jpg"]
        try await withS3Endpoint(files: files) { servers in
            let reply = try await HTTPClient.get(
                servers.baseURL
                    + servers.plainPath(options: "rs:fit:16:16", source: "s3://photos/cats/tom.jpg", extension: "png"))
            #expect(reply.status == 200)
            #expect(try Fixtures.decode(reply.body).width == 16)
            let missing = try await HTTPClient.get(
                servers.baseURL + servers.plainPath(source: "s3://photos/cats/none.jpg"))
            #expect(missing.status == 404)
        }
        // Without IMGPROXY_USE_S3, s3:// is not a source URL.
        let plain = try await TestServers.start()
        #expect(
            try await HTTPClient.get(plain.baseURL + plain.plainPath(source: "s3://photos/cats/tom.jpg")).status == 404)
        try await plain.stop()
    }

    /// Servers whose S3 endpoint is their own test origin.
    private func withS3Endpoint(
        files: [String: StaticSourceServer.File], _ body: (TestServers) async throws -> Void
    ) async throws {
        let origin = try await TestServers.start(files: files)
        let servers = try await TestServers.start(files: files) { configuration in
            var s3 = S3LoaderConfiguration(
                signature: AWSSignature(accessKeyID: "AKIDTEST", secretAccessKey: "secret", region: "us-east-1"))
            s3.endpoint = URL(string: "http://127.0.0.1:\(origin.sourcePort)")
            configuration.s3 = s3
        }
        try await body(servers)
        try await servers.stop()
        try await origin.stop()
    }

    @Test func contentDispositionFollowsFilenameAndAttachment() async throws {
        let servers = try await TestServers.start()
        let photo = servers.sourceURL("/photo.jpg")
        let inline = try await HTTPClient.get(servers.baseURL + servers.plainPath(source: photo, extension: "png"))
        #expect(inline.header("Content-Disposition") == "inline; filename=\"photo.png\"")
        let named = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "fn:holiday/att:1", source: photo, extension: "webp"))
        #expect(named.header("Content-Disposition") == "attachment; filename=\"holiday.webp\"")
        let encoded = Base64URL.encode(Array("été 2024".utf8))
        let base64 = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "filename:\(encoded):1", source: photo))
        #expect(base64.header("Content-Disposition") == "inline; filename=\"été 2024.jpg\"")
        // A bad boolean is false, as in imgproxy.
        let notBool = try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "att:yes", source: photo))
        #expect(notBool.header("Content-Disposition")?.hasPrefix("inline") == true)
        try await servers.stop()
    }

    @Test func cachebusterMakesANewResultKey() async throws {
        let servers = try await TestServers.start()
        let photo = servers.sourceURL("/photo.jpg")
        _ = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "cb:1", source: photo, extension: "png"))
        _ = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "cb:1", source: photo, extension: "png"))
        _ = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "cb:2", source: photo, extension: "png"))
        let text = String(decoding: try await HTTPClient.get(servers.baseURL + "/metrics").body, as: UTF8.self)
        #expect(text.contains("webimage_server_result_cache_lookups_total{tier=\"miss\"} 2"))
        #expect(text.contains("webimage_server_result_cache_lookups_total{tier=\"memory\"} 1"))
        try await servers.stop()
    }

    @Test func theJPEGExtensionFlattensOntoWhiteAsFormatJPEGDoes() async throws {
        let servers = try await TestServers.start()
        let alpha = servers.sourceURL("/alpha.png")
        let byExtension = try Fixtures.decode(
            try await HTTPClient.get(servers.baseURL + servers.plainPath(source: alpha, extension: "jpg")).body)
        let byOption = try Fixtures.decode(
            try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "f:jpg", source: alpha)).body)
        #expect(byExtension.pixels.bytes == byOption.pixels.bytes)
        // The lower half of the source is transparent: white, not black.
        let rgba = byExtension.pixels.converted(to: .rgba8)
        let offset = (rgba.height - 2) * rgba.bytesPerRow + 2 * 4
        #expect(rgba.bytes[offset] > 240 && rgba.bytes[offset + 1] > 240 && rgba.bytes[offset + 2] > 240)
        try await servers.stop()
    }

    @Test func presetsExpandAndTheDefaultAppliesToEveryURL() async throws {
        let environment = ["IMGPROXY_PRESETS": "default=q:70,thumb=rs:fit:16:16/f:png, tiny=rs:fit:8:8"]
        let servers = try await TestServers.start { configuration in
            configuration.presets = try ServerConfiguration(environment: environment).presets
        }
        let photo = servers.sourceURL("/photo.jpg")
        let thumb = try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "pr:thumb", source: photo))
        #expect(thumb.header("Content-Type") == "image/png")
        #expect(try Fixtures.decode(thumb.body).width == 16)
        // Later presets and options win, as when written out.
        let both = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "preset:thumb:tiny", source: photo))
        #expect(try Fixtures.decode(both.body).width == 8)
        #expect(
            try await HTTPClient.get(servers.baseURL + servers.plainPath(options: "pr:nope", source: photo)).status
                == 404)
        // The default preset's quality applies without being named: the same bytes as q:70 written out.
        let implicit = try await HTTPClient.get(servers.baseURL + servers.plainPath(source: photo, extension: "jpg"))
        let explicit = try await HTTPClient.get(
            servers.baseURL + servers.plainPath(options: "q:70", source: photo, extension: "jpg"))
        #expect(implicit.body == explicit.body)
        try await servers.stop()
    }

    @Test func onlyPresets() throws {
        let presets = try Presets("a=rs:fit:10:10,b=q:50", onlyPresets: true)
        #expect(try presets.expand(["a:b"]) == ["rs:fit:10:10", "q:50"])
        #expect(throws: ServerFailure.self) { try presets.expand(["rs:fit:10:10"]) }
    }

    @Test func keyListsRotateAndTrustedSignaturesPass() async throws {
        // imgproxy reads comma lists in IMGPROXY_KEY and IMGPROXY_SALT; every pair verifies.
        let configuration = try ServerConfiguration(environment: [
            "IMGPROXY_KEY": "736563726574,6f74686572", "IMGPROXY_SALT": "68656c6c6f,73616c74",
            "IMGPROXY_TRUSTED_SIGNATURES": "trusted-one",
        ])
        #expect(configuration.signingKeys.count == 2)
        let servers = try await TestServers.start { server in
            server.signingKeys = configuration.signingKeys
            server.trustedSignatures = configuration.trustedSignatures
        }
        let tail = "/plain/" + DemoPage.percentEncoded(servers.sourceURL("/photo.jpg"))
        let second = URLSigner(keyPairs: [configuration.signingKeys[1]]).signedPath(tail)
        #expect(try await HTTPClient.get(servers.baseURL + second).status == 200)
        #expect(try await HTTPClient.get(servers.baseURL + "/trusted-one" + tail).status == 200)
        #expect(try await HTTPClient.get(servers.baseURL + "/untrusted" + tail).status == 403)
        try await servers.stop()
    }
}

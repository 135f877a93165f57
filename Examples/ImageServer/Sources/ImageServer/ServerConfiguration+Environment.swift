import Foundation
import Logging
import WebImage

/// A setting that could not be read: its name, the value and what was expected.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let name: String
    public let value: String
    public let expected: String
    public var description: String { "\(name)=\(value): expected \(expected)" }
}

extension ServerConfiguration {
    /// Reads imgproxy's variables (and our own `WEBIMAGE_SERVER_*` ones) from `environment`; names it does
    /// not know are ignored, so an imgproxy deployment's full environment can be passed as it is.
    public init(environment: [String: String]) throws(ConfigurationError) {
        self.init()
        let reader = EnvironmentReader(values: environment)
        if let bind = environment["IMGPROXY_BIND"] { (host, port) = try EnvironmentReader.parseBind(bind) }
        if let bind = reader.string("IMGPROXY_PROMETHEUS_BIND") {
            let (metricsHost, metricsPort) = try EnvironmentReader.parseBind(bind, name: "IMGPROXY_PROMETHEUS_BIND")
            metricsBind = MetricsBind(host: metricsHost, port: metricsPort)
        }
        signingKeys = try reader.keyPairs()
        signatureSize = try reader.int("IMGPROXY_SIGNATURE_SIZE", in: 1...URLSigner.fullSignatureSize) ?? signatureSize
        allowedSources = reader.list("IMGPROXY_ALLOWED_SOURCES") ?? allowedSources
        allowsLoopbackSources = try reader.bool("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES") ?? allowsLoopbackSources
        allowsPrivateSources = try reader.bool("IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES") ?? allowsPrivateSources
        allowsLinkLocalSources = try reader.bool("IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES") ?? allowsLinkLocalSources
        allowedSourceAddresses = Set(reader.list("WEBIMAGE_SERVER_ALLOWED_ADDRESSES") ?? [])
        if let megapixels = try reader.double("IMGPROXY_MAX_SRC_RESOLUTION") {
            maxSourcePixels = Int(megapixels * 1_000_000)
        }
        maxSourceFileSize = try reader.int("IMGPROXY_MAX_SRC_FILE_SIZE", in: 0...Int.max) ?? maxSourceFileSize
        if maxSourceFileSize == 0 { maxSourceFileSize = Self.defaultMaxSourceFileSize }  // imgproxy: 0 = no limit
        maxAnimationFrames = try reader.int("IMGPROXY_MAX_ANIMATION_FRAMES", in: 1...Int.max) ?? maxAnimationFrames
        maxAnimationFrameResolution =
            try reader.double("IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION") ?? maxAnimationFrameResolution
        showsTruncatedImages = try reader.bool("WEBIMAGE_SERVER_SHOW_TRUNCATED") ?? showsTruncatedImages
        appliesPNGGamma = try reader.bool("WEBIMAGE_SERVER_PNG_GAMMA") ?? appliesPNGGamma
        downloadTimeout = try reader.double("IMGPROXY_DOWNLOAD_TIMEOUT") ?? downloadTimeout
        shrinkOnLoadGap = try reader.double("WEBIMAGE_SERVER_SHRINK_ON_LOAD_GAP") ?? shrinkOnLoadGap
        guard shrinkOnLoadGap >= 1, shrinkOnLoadGap <= 8 else {
            throw ConfigurationError(
                name: "WEBIMAGE_SERVER_SHRINK_ON_LOAD_GAP", value: String(shrinkOnLoadGap),
                expected: "a number from 1 to 8")
        }
        // imgproxy's IMGPROXY_WEBP_EFFORT (1-6) is the same libwebp method; ours may also say 0.
        let imgproxyEffort = try reader.int("IMGPROXY_WEBP_EFFORT", in: 1...6)
        webpEffort = try reader.int("WEBIMAGE_SERVER_WEBP_EFFORT", in: 0...6) ?? imgproxyEffort ?? webpEffort
        if let filter = reader.string("WEBIMAGE_SERVER_PNG_ROW_FILTER") {
            guard let known = EncodeOptions.RowFilter(rawValue: filter) else {
                throw ConfigurationError(
                    name: "WEBIMAGE_SERVER_PNG_ROW_FILTER", value: filter, expected: "none or adaptive")
            }
            pngRowFilter = known
        }
        requestTimeout = try reader.double("IMGPROXY_TIMEOUT") ?? requestTimeout
        if let seconds = try reader.double("IMGPROXY_KEEP_ALIVE_TIMEOUT") {
            clientDeadlines.keepAlive = .seconds(seconds)
        }
        if let seconds = try reader.double("IMGPROXY_READ_REQUEST_TIMEOUT") {
            clientDeadlines.readRequest = .seconds(seconds)
        }
        if let seconds = try reader.double("IMGPROXY_WRITE_RESPONSE_TIMEOUT") {
            clientDeadlines.writeResponse = .seconds(seconds)
        }
        maxClients = try reader.int("IMGPROXY_MAX_CLIENTS", in: 1...1_000_000) ?? maxClients
        let olderWorkers = try reader.int("IMGPROXY_CONCURRENCY", in: 1...4096)
        workers = try reader.int("IMGPROXY_WORKERS", in: 1...4096) ?? olderWorkers ?? workers
        downloadConcurrency =
            try reader.int("IMGPROXY_DOWNLOAD_CONCURRENCY", in: 1...100_000)
            ?? workers * Self.downloadsPerWorker
        downloadsPerOrigin =
            try reader.int("WEBIMAGE_SERVER_DOWNLOADS_PER_ORIGIN", in: 1...100_000) ?? downloadsPerOrigin
        queueSize =
            try reader.int("IMGPROXY_REQUESTS_QUEUE_SIZE", in: 0...1_000_000)
            ?? workers * Self.queuedRequestsPerWorker
        cacheTTL = try reader.int("IMGPROXY_TTL", in: 0...Int.max) ?? cacheTTL
        defaultQuality = try reader.int("IMGPROXY_QUALITY", in: 1...100) ?? defaultQuality
        // As imgproxy: the pairs given replace those formats' defaults, the other defaults stay.
        formatQuality.merge(try reader.formatQuality("IMGPROXY_FORMAT_QUALITY") ?? [:]) { _, given in given }
        stripsColorProfile = try reader.bool("IMGPROXY_STRIP_COLOR_PROFILE") ?? stripsColorProfile
        maxResultDimension =
            try reader.int("IMGPROXY_MAX_RESULT_DIMENSION", in: 0...Int(Int32.max)) ?? maxResultDimension
        userAgent = reader.string("IMGPROXY_USER_AGENT")
        returnsAttachment = try reader.bool("IMGPROXY_RETURN_ATTACHMENT") ?? returnsAttachment
        secret = reader.string("IMGPROXY_SECRET")
        negotiatesWebP = try reader.bool("IMGPROXY_AUTO_WEBP") ?? negotiatesWebP
        negotiatesAVIF = try reader.bool("IMGPROXY_AUTO_AVIF") ?? negotiatesAVIF
        negotiatesJXL = try reader.bool("IMGPROXY_AUTO_JXL") ?? negotiatesJXL
        enforcesWebP = try reader.bool("IMGPROXY_ENFORCE_WEBP") ?? enforcesWebP
        enforcesAVIF = try reader.bool("IMGPROXY_ENFORCE_AVIF") ?? enforcesAVIF
        enforcesJXL = try reader.bool("IMGPROXY_ENFORCE_JXL") ?? enforcesJXL
        preferredFormats = try reader.formats("IMGPROXY_PREFERRED_FORMATS") ?? preferredFormats
        skipProcessingFormats = try reader.formats("IMGPROXY_SKIP_PROCESSING_FORMATS") ?? skipProcessingFormats
        allowsSecurityOptions = try reader.bool("IMGPROXY_ALLOW_SECURITY_OPTIONS") ?? allowsSecurityOptions
        alwaysRasterizesSVG = try reader.bool("IMGPROXY_ALWAYS_RASTERIZE_SVG") ?? alwaysRasterizesSVG
        sanitizesSVG = try reader.bool("IMGPROXY_SANITIZE_SVG") ?? sanitizesSVG
        allowedProcessingOptions = Set(reader.list("IMGPROXY_ALLOWED_PROCESSING_OPTIONS") ?? [])
        readsClientHints = try reader.bool("IMGPROXY_ENABLE_CLIENT_HINTS") ?? readsClientHints
        usesETag = try reader.bool("IMGPROXY_USE_ETAG") ?? usesETag
        etagBuster = reader.string("IMGPROXY_ETAG_BUSTER") ?? ""
        usesLastModified = try reader.bool("IMGPROXY_USE_LAST_MODIFIED") ?? usesLastModified
        cacheControlPassthrough = try reader.bool("IMGPROXY_CACHE_CONTROL_PASSTHROUGH") ?? cacheControlPassthrough
        setsCanonicalHeader = try reader.bool("IMGPROXY_SET_CANONICAL_HEADER") ?? setsCanonicalHeader
        allowOrigin = reader.string("IMGPROXY_ALLOW_ORIGIN")
        if let separator = reader.string("IMGPROXY_ARGUMENTS_SEPARATOR") {
            guard separator.count == 1, let character = separator.first, character != "/" else {
                throw ConfigurationError(
                    name: "IMGPROXY_ARGUMENTS_SEPARATOR", value: separator, expected: "one character other than /")
            }
            urlConventions.argumentSeparator = character
        }
        urlConventions.baseURL = reader.string("IMGPROXY_BASE_URL") ?? ""
        if let text = reader.string("IMGPROXY_URL_REPLACEMENTS") {
            guard let rules = URLReplacement.rules(text) else {
                throw ConfigurationError(
                    name: "IMGPROXY_URL_REPLACEMENTS", value: text, expected: "pattern=replacement;pattern=replacement")
            }
            urlConventions.replacements = rules
        }
        urlConventions.base64IncludesFilename = try reader.bool("IMGPROXY_BASE64_URL_INCLUDES_FILENAME") ?? false
        // As imgproxy: set but empty means no separator (a `?` is then part of the file name or key).
        if let separator = environment["IMGPROXY_SOURCE_URL_QUERY_SEPARATOR"] {
            urlConventions.storageQuerySeparator = separator
        }
        if try reader.bool("IMGPROXY_USE_S3") == true {
            guard var signature = AWSSignature.fromEnvironment(environment) else {
                throw ConfigurationError(
                    name: "IMGPROXY_USE_S3", value: "true",
                    expected: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set")
            }
            if let region = reader.string("IMGPROXY_S3_REGION") { signature.region = region }
            var s3 = S3LoaderConfiguration(signature: signature)
            if let text = reader.string("IMGPROXY_S3_ENDPOINT") {
                guard let endpoint = URL(string: text), ["http", "https"].contains(endpoint.scheme?.lowercased() ?? "")
                else {
                    throw ConfigurationError(
                        name: "IMGPROXY_S3_ENDPOINT", value: text, expected: "an http or https URL")
                }
                s3.endpoint = endpoint
            }
            s3.usesPathStyle = try reader.bool("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE") ?? true
            self.s3 = s3
        }
        if let root = reader.string("IMGPROXY_LOCAL_FILESYSTEM_ROOT") {
            localFileSystemRoot = URL(fileURLWithPath: root, isDirectory: true)
        }
        presets = try Presets(
            reader.string("IMGPROXY_PRESETS"), separator: reader.string("IMGPROXY_PRESETS_SEPARATOR") ?? ",",
            onlyPresets: try reader.bool("IMGPROXY_ONLY_PRESETS") ?? false)
        if let path = reader.string("IMGPROXY_PRESETS_PATH") {
            // imgproxy's file: one preset a line; empty lines and lines starting with `#` are skipped.
            let text: String
            do { text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8) } catch {
                throw ConfigurationError(
                    name: "IMGPROXY_PRESETS_PATH", value: path, expected: "a readable UTF-8 file (\(error))")
            }
            try presets.add(lines: text, source: "IMGPROXY_PRESETS_PATH")
        }
        maxRedirects = try reader.int("IMGPROXY_MAX_REDIRECTS", in: 0...100) ?? maxRedirects
        trustedSignatures = Set(reader.list("IMGPROXY_TRUSTED_SIGNATURES") ?? [])
        if let prefix = reader.string("IMGPROXY_PATH_PREFIX") {
            // imgproxy's form: a leading slash, no trailing one.
            var trimmed = Substring(prefix)
            while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            pathPrefix = trimmed.isEmpty ? "" : (trimmed.hasPrefix("/") ? String(trimmed) : "/" + trimmed)
        }
        healthCheckPath = reader.string("IMGPROXY_HEALTH_CHECK_PATH").map { $0.hasPrefix("/") ? $0 : "/" + $0 }
        watermarkPath = environment["IMGPROXY_WATERMARK_PATH"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = reader.string("IMGPROXY_WATERMARK_DATA") {
            guard let data = Data(base64Encoded: text) else {
                throw ConfigurationError(
                    name: "IMGPROXY_WATERMARK_DATA", value: String(text.prefix(20)) + "...", expected: "base64")
            }
            watermarkData = data
        }
        if let text = reader.string("IMGPROXY_WATERMARK_URL") {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw ConfigurationError(name: "IMGPROXY_WATERMARK_URL", value: text, expected: "an http or https URL")
            }
            watermarkURL = url
        }
        if let text = reader.string("IMGPROXY_WATERMARK_OPACITY") {
            guard let opacity = Double(text), opacity > 0, opacity <= 1 else {
                throw ConfigurationError(
                    name: "IMGPROXY_WATERMARK_OPACITY", value: text, expected: "a number above 0, at most 1")
            }
            watermarkOpacity = opacity
        }
        fallbackImage = try Self.fallbackImage(reader)
        if let directory = environment["WEBIMAGE_SERVER_CACHE_DIR"], !directory.isEmpty {
            resultCacheDirectory = URL(fileURLWithPath: directory, isDirectory: true)
        }
        if let urls = environment["WEBIMAGE_SERVER_REDIS_URL"], !urls.isEmpty {
            resultRedisURLs = urls.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        resultRedisTimeout = try reader.double("WEBIMAGE_SERVER_REDIS_TIMEOUT") ?? resultRedisTimeout
        resultRedisSpinMicroseconds =
            try reader.int("WEBIMAGE_SERVER_REDIS_SPIN_US", in: 0...1000) ?? resultRedisSpinMicroseconds
        resultDiskLimit = try reader.int("WEBIMAGE_SERVER_CACHE_DISK_LIMIT", in: 1...Int.max) ?? resultDiskLimit
        resultMemoryLimit = try reader.int("WEBIMAGE_SERVER_RESULT_MEMORY", in: 0...Int.max) ?? resultMemoryLimit
        sourceMemoryLimit = try reader.int("WEBIMAGE_SERVER_SOURCE_MEMORY", in: 0...Int.max) ?? sourceMemoryLimit
        sourceBytesLimit = try reader.int("WEBIMAGE_SERVER_SOURCE_BYTES", in: 0...Int.max) ?? sourceBytesLimit
    }

    /// The level of the server's log lines: `LOG_LEVEL` (swift-log's names), else imgproxy's
    /// `IMGPROXY_LOG_LEVEL` (`debug`, `info`, `warn`, `error`), else `info`. An unknown name is `info`.
    public static func logLevel(environment: [String: String]) -> Logger.Level {
        if let level = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) { return level }
        switch environment["IMGPROXY_LOG_LEVEL"]?.lowercased() {
        case "debug": return .debug
        case "warn", "warning": return .warning
        case "error": return .error
        case "fatal", "panic": return .critical
        default: return .info
        }
    }

    /// Reads a configuration file of `NAME=VALUE` lines (the variables of ``init(environment:)``; `#`
    /// starts a comment, values may be quoted), with `environment` laid over it: a deployment's
    /// environment overrides its file.
    public init(file: URL, environment: [String: String]) throws(ConfigurationError) {
        let text: String
        do { text = try String(contentsOf: file, encoding: .utf8) } catch {
            throw ConfigurationError(
                name: "config file", value: file.path, expected: "a readable UTF-8 file (\(error))")
        }
        var values: [String: String] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigurationError(
                    name: "\(file.lastPathComponent) line \(number + 1)", value: line, expected: "NAME=VALUE")
            }
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            values[line[..<equals].trimmingCharacters(in: .whitespaces)] = value
        }
        try self.init(environment: values.merging(environment) { _, fromEnvironment in fromEnvironment })
    }

    /// `IMGPROXY_FALLBACK_IMAGE_DATA` (base64), `_PATH` or `_URL`, first set wins, with `_HTTP_CODE` and `_TTL`.
    private static func fallbackImage(_ reader: EnvironmentReader) throws(ConfigurationError) -> FallbackImage? {
        let origin: FallbackImage.Origin
        if let text = reader.string("IMGPROXY_FALLBACK_IMAGE_DATA") {
            guard let data = Data(base64Encoded: text) else {
                throw ConfigurationError(
                    name: "IMGPROXY_FALLBACK_IMAGE_DATA", value: String(text.prefix(20)) + "...", expected: "base64")
            }
            origin = .bytes(data)
        } else if let path = reader.string("IMGPROXY_FALLBACK_IMAGE_PATH") {
            do { origin = .bytes(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
                throw ConfigurationError(
                    name: "IMGPROXY_FALLBACK_IMAGE_PATH", value: path, expected: "a readable file (\(error))")
            }
        } else if let text = reader.string("IMGPROXY_FALLBACK_IMAGE_URL") {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw ConfigurationError(
                    name: "IMGPROXY_FALLBACK_IMAGE_URL", value: text, expected: "an http or https URL")
            }
            origin = .url(url)
        } else {
            return nil
        }
        let status = try reader.int("IMGPROXY_FALLBACK_IMAGE_HTTP_CODE", in: 0...599) ?? 200
        let ttl = try reader.int("IMGPROXY_FALLBACK_IMAGE_TTL", in: 0...Int.max) ?? 0
        return FallbackImage(origin: origin, status: status == 0 ? nil : status, ttl: ttl == 0 ? nil : ttl)
    }
}

/// Typed reads of environment values, each failure naming the variable.
struct EnvironmentReader {
    let values: [String: String]

    func string(_ name: String) -> String? {
        guard let value = values[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    func bool(_ name: String) throws(ConfigurationError) -> Bool? {
        guard let value = string(name) else { return nil }
        if name.hasPrefix("IMGPROXY_") {
            // imgproxy's own variables take what Go's strconv.ParseBool takes, case included (`yes` or
            // `tRUE` are not booleans to imgproxy, which then keeps the default; we refuse to start).
            switch value {
            case "1", "t", "T", "true", "TRUE", "True": return true
            case "0", "f", "F", "false", "FALSE", "False": return false
            default:
                throw ConfigurationError(
                    name: name, value: value,
                    expected: "a Go boolean (1, t, T, true, TRUE, True or 0, f, F, false, FALSE, False)")
            }
        }
        switch value.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(name: name, value: value, expected: "true or false")
        }
    }

    func int(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = string(name) else { return nil }
        guard let number = Int(value), range.contains(number) else {
            throw ConfigurationError(name: name, value: value, expected: "an integer in \(range)")
        }
        return number
    }

    func double(_ name: String) throws(ConfigurationError) -> Double? {
        guard let value = string(name) else { return nil }
        guard let number = Double(value), number > 0, number.isFinite else {
            throw ConfigurationError(name: name, value: value, expected: "a positive number")
        }
        return number
    }

    /// A comma list of image format names (`jpeg,png`, `jpg`, `webp`); nil when unset.
    func formats(_ name: String) throws(ConfigurationError) -> [ImageFormat]? {
        guard let names = list(name) else { return nil }
        var formats: [ImageFormat] = []
        for text in names {
            let format = ImageFormat.fromFileExtension(text)
            guard format != .undefined else {
                throw ConfigurationError(
                    name: name, value: names.joined(separator: ","),
                    expected: "image format names (jpeg, png, gif, webp, avif, jxl, ...)")
            }
            formats.append(format)
        }
        return formats
    }

    /// `format=quality,...` (imgproxy's `IMGPROXY_FORMAT_QUALITY`: `jpeg=70,avif=40`), qualities 1–100;
    /// nil when unset.
    func formatQuality(_ name: String) throws(ConfigurationError) -> [ImageFormat: Int]? {
        guard let pairs = list(name) else { return nil }
        var qualities: [ImageFormat: Int] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let format = parts.count == 2 ? ImageFormat.fromFileExtension(parts[0]) : .undefined
            guard format != .undefined, let quality = Int(parts[1]), (1...100).contains(quality) else {
                throw ConfigurationError(
                    name: name, value: pair, expected: "format=quality pairs, quality 1–100 (jpeg=70,avif=40)")
            }
            qualities[format] = quality
        }
        return qualities
    }

    func list(_ name: String) -> [String]? {
        guard let value = string(name) else { return nil }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `IMGPROXY_KEY`/`IMGPROXY_SALT`, or the rotation lists `IMGPROXY_KEYS`/`IMGPROXY_SALTS` (pairs in order).
    func keyPairs() throws(ConfigurationError) -> [URLSigner.KeyPair] {
        // imgproxy reads comma lists in IMGPROXY_KEY/IMGPROXY_SALT for rotation; IMGPROXY_KEYS/SALTS too.
        let keys = list("IMGPROXY_KEYS") ?? list("IMGPROXY_KEY") ?? []
        let salts = list("IMGPROXY_SALTS") ?? list("IMGPROXY_SALT") ?? []
        guard keys.count == salts.count else {
            throw ConfigurationError(
                name: "IMGPROXY_KEY/IMGPROXY_SALT", value: "\(keys.count) keys, \(salts.count) salts",
                expected: "as many salts as keys")
        }
        var pairs: [URLSigner.KeyPair] = []
        for (key, salt) in zip(keys, salts) {
            guard let keyBytes = Self.hexBytes(key), !keyBytes.isEmpty else {
                throw ConfigurationError(name: "IMGPROXY_KEY", value: "(hidden)", expected: "hex digits")
            }
            guard let saltBytes = Self.hexBytes(salt) else {
                throw ConfigurationError(name: "IMGPROXY_SALT", value: "(hidden)", expected: "hex digits")
            }
            pairs.append(URLSigner.KeyPair(key: keyBytes, salt: saltBytes))
        }
        return pairs
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `host:port`, `:port` (every interface, as imgproxy reads it) or `[v6]:port`.
    static func parseBind(_ text: String, name: String = "IMGPROXY_BIND") throws(ConfigurationError) -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else {
            throw ConfigurationError(name: name, value: text, expected: "host:port or :port")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}

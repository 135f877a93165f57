import Foundation
import WebImage

/// Everything the server can be told: where it listens, how it signs URLs, which sources it may fetch and
/// what it costs at most. Built from imgproxy's environment variables (``init(environment:)``), so an
/// imgproxy deployment's environment works unchanged; the defaults are the safe ones.
public struct ServerConfiguration: Sendable {
    /// Host to bind; `IMGPROXY_BIND` (`host:port`, `:port` meaning every interface).
    public var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one (tests).
    public var port = 8080
    /// Where `/metrics` is served instead of beside the images (`IMGPROXY_PROMETHEUS_BIND`), so the
    /// metrics port can stay private while the image port is public; nil: on the image port.
    public var metricsBind: MetricsBind?

    /// A host and port of their own for `/metrics`.
    public struct MetricsBind: Sendable, Equatable {
        public var host: String
        /// 0 picks a free one (tests).
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// HMAC key pairs for signatures (`IMGPROXY_KEY`/`IMGPROXY_SALT`, hex); empty: signatures unchecked.
    public var signingKeys: [URLSigner.KeyPair] = []
    /// Redirects a source download follows (`IMGPROXY_MAX_REDIRECTS`, imgproxy's default 10).
    public var maxRedirects = 10
    /// Signatures accepted as they are, without checking (`IMGPROXY_TRUSTED_SIGNATURES`).
    public var trustedSignatures: Set<String> = []
    /// Bytes of the HMAC kept in the signature (`IMGPROXY_SIGNATURE_SIZE`); 32 is the whole SHA-256.
    public var signatureSize = URLSigner.fullSignatureSize

    /// Source URL prefixes allowed (`IMGPROXY_ALLOWED_SOURCES`, `*` matches within one URL part); empty:
    /// every source (the address guard still applies).
    public var allowedSources: [String] = []
    /// Let the fetcher reach loopback (127/8, ::1) and unspecified (0.0.0.0, ::) addresses, as imgproxy
    /// (`IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`). Off: a URL naming localhost cannot make the server
    /// read its own admin ports.
    public var allowsLoopbackSources = false
    /// Let the fetcher reach link-local addresses (169.254/16, fe80::/10, link-local multicast), as imgproxy
    /// (`IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`). Off, as imgproxy: cloud metadata services answer there.
    public var allowsLinkLocalSources = false
    /// Let the fetcher reach private networks: 10/8, 172.16/12, 192.168/16, 100.64/10 and fc00::/7
    /// (`IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES`). Loopback and link-local have their own settings. Off by default,
    /// unlike imgproxy: a server that fetches strangers' URLs should name its internal origins instead.
    public var allowsPrivateSources = false
    /// Extra non-public addresses the guard lets through (`WEBIMAGE_SERVER_ALLOWED_ADDRESSES`, comma list,
    /// written as the guard prints them: `10.0.0.5`).
    public var allowedSourceAddresses: Set<String> = []

    /// Largest source image in pixels of one frame (`IMGPROXY_MAX_SRC_RESOLUTION`, in megapixels).
    public var maxSourcePixels = Int(ServerConfiguration.defaultMaxSourceMegapixels * 1_000_000)
    /// Largest source file in bytes (`IMGPROXY_MAX_SRC_FILE_SIZE`).
    public var maxSourceFileSize = ServerConfiguration.defaultMaxSourceFileSize
    /// Most frames of an animated source (`IMGPROXY_MAX_ANIMATION_FRAMES`); 1, imgproxy's default, makes
    /// every animation its first frame. A longer animation keeps its first frames, as imgproxy's does.
    public var maxAnimationFrames = ServerConfiguration.defaultMaxAnimationFrames
    /// Megapixels of one frame of an animated source at most (`IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`);
    /// 0, the default, leaves animations to ``maxSourcePixels``. A URL's `mafr` wins.
    public var maxAnimationFrameResolution = 0.0
    /// A truncated source shows the rows it has instead of failing, as imgproxy (libvips) and browsers
    /// show it (`WEBIMAGE_SERVER_SHOW_TRUNCATED`; on by default).
    public var showsTruncatedImages = true
    /// A PNG source with a `gAMA` chunk (and maybe `cHRM`) but no `iCCP` or `sRGB` one is converted to
    /// sRGB as Chrome and Firefox show it (`WEBIMAGE_SERVER_PNG_GAMMA`; off by default, as imgproxy:
    /// libvips shows the stored values). See `DecodeOptions.appliesPNGGamma`.
    public var appliesPNGGamma = false
    /// Work of all frames together, in pixels decoded (not an imgproxy setting: it sums frames against
    /// `IMGPROXY_MAX_SRC_RESOLUTION`; we compose frames lazily, so bound the work instead).
    public var maxTotalSourcePixels = DecodeOptions.defaultMaxTotalPixelCount
    /// How many times the output size a JPEG or WebP source may be shrunk to while it decodes (DCT
    /// scaling, libwebp's scaler) before the final Lanczos3 resample (`WEBIMAGE_SERVER_SHRINK_ON_LOAD_GAP`,
    /// at least 1). 1, the default, shrinks on load as far as the output size itself, as imgproxy and
    /// thumbor do: the fastest. 2 is the framework's default: sharper, and about a fifth slower on large
    /// photos.
    public var shrinkOnLoadGap = ServerConfiguration.defaultShrinkOnLoadGap
    /// Effort of the lossy WebP encoder, 0 (fastest, largest) to 6 (`WEBIMAGE_SERVER_WEBP_EFFORT`); nil,
    /// the default, is libwebp's own 4, what libvips, Pillow and cwebp use. On a 500 px photo, 2 encodes
    /// in half the time for about 4 % more bytes.
    public var webpEffort: Int?
    /// PNG answers' row filter (`WEBIMAGE_SERVER_PNG_ROW_FILTER`: `none` or `adaptive`). `none`, the default,
    /// saves as libvips and so imgproxy do: several times faster than libpng's adaptive choice, for files
    /// about twice as large on photos.
    public var pngRowFilter: EncodeOptions.RowFilter = .none
    /// Seconds for the whole source download (`IMGPROXY_DOWNLOAD_TIMEOUT`).
    public var downloadTimeout: TimeInterval = ServerConfiguration.defaultDownloadTimeout
    /// Seconds for one whole request, queueing included (`IMGPROXY_TIMEOUT`); past it the answer is 504.
    public var requestTimeout: TimeInterval = ServerConfiguration.defaultRequestTimeout

    /// How long a client connection may idle, send its request and take its answer
    /// (`IMGPROXY_KEEP_ALIVE_TIMEOUT`, `IMGPROXY_READ_REQUEST_TIMEOUT`, `IMGPROXY_WRITE_RESPONSE_TIMEOUT`,
    /// seconds; 10 each, imgproxy's defaults). Past them the connection is closed.
    public var clientDeadlines = ClientDeadlines()
    /// Client connections open at once (`IMGPROXY_MAX_CLIENTS`, imgproxy's default 2048); past it the
    /// server stops accepting until one closes.
    public var maxClients = ServerConfiguration.defaultMaxClients

    /// Source downloads at once (`IMGPROXY_DOWNLOAD_CONCURRENCY`, not an imgproxy setting): downloads wait
    /// on the network, not the CPU, so they hold no worker slot; this bounds the memory and sockets they
    /// use. Past it, downloads wait in turn (within the request's deadline).
    public var downloadConcurrency = ServerConfiguration.defaultWorkers * ServerConfiguration.downloadsPerWorker
    /// Of those, downloads from one origin (scheme, host and port) at once
    /// (`WEBIMAGE_SERVER_DOWNLOADS_PER_ORIGIN`, 8): a stalled origin fills its share of the download
    /// slots and queue, and downloads from other origins pass it.
    public var downloadsPerOrigin = ServerConfiguration.defaultDownloadsPerOrigin

    /// Requests processed at once (`IMGPROXY_WORKERS`, or the older `IMGPROXY_CONCURRENCY`).
    public var workers = ServerConfiguration.defaultWorkers
    /// Requests waiting for a worker (`IMGPROXY_REQUESTS_QUEUE_SIZE`); past it the answer is 503.
    public var queueSize = ServerConfiguration.defaultWorkers * ServerConfiguration.queuedRequestsPerWorker

    /// `Cache-Control: max-age` of results in seconds (`IMGPROXY_TTL`).
    public var cacheTTL = ServerConfiguration.defaultTTL
    /// Quality when the URL gives none (`IMGPROXY_QUALITY`, 1–100).
    public var defaultQuality = ServerConfiguration.defaultQualityPercent
    /// Quality per output format when the URL gives neither `q:` nor `fq:` for it
    /// (`IMGPROXY_FORMAT_QUALITY`, `jpeg=70,avif=40,webp=60`, laid over the defaults); a format without
    /// one uses ``defaultQuality``.
    /// imgproxy's default (v3.31), `webp=79,avif=63,jxl=77`: the qualities at which those formats look like
    /// JPEG at 80.
    public var formatQuality: [ImageFormat: Int] = ServerConfiguration.defaultFormatQuality
    /// Drop the source's ICC profile (after converting to sRGB) unless the URL says `scp:0`
    /// (`IMGPROXY_STRIP_COLOR_PROFILE`; true by default, as in imgproxy). False keeps it unless `scp:1`.
    public var stripsColorProfile = true
    /// The largest width or height of an answer (`IMGPROXY_MAX_RESULT_DIMENSION`); a larger result is
    /// scaled down to fit, as the `mrd` option does. 0, the default, sets no limit. A URL's own `mrd`
    /// (with `IMGPROXY_ALLOW_SECURITY_OPTIONS`) wins.
    public var maxResultDimension = 0
    /// Answers are `Content-Disposition: attachment` unless the URL says `att:0`
    /// (`IMGPROXY_RETURN_ATTACHMENT`; false by default, as in imgproxy).
    public var returnsAttachment = false
    /// The token every image request must bring as `Authorization: Bearer TOKEN` (`IMGPROXY_SECRET`), for
    /// a server only a trusted proxy or CDN may call; others get 403. nil: no such check.
    public var secret: String?
    /// The `User-Agent` of source requests (`IMGPROXY_USER_AGENT`); nil: the HTTP loader's own.
    public var userAgent: String?
    /// Pick WebP from `Accept` (`IMGPROXY_AUTO_WEBP`; off by default, as in imgproxy).
    public var negotiatesWebP = false
    /// Pick AVIF from `Accept` when an AVIF encoder is registered (`IMGPROXY_AUTO_AVIF`; off by default).
    public var negotiatesAVIF = false
    /// Pick JPEG XL from `Accept` when a JPEG XL encoder is registered (`IMGPROXY_AUTO_JXL`; off by default).
    public var negotiatesJXL = false
    /// Answer WebP, AVIF or JPEG XL to clients that accept it even when the URL names another format
    /// (`IMGPROXY_ENFORCE_WEBP`, `_AVIF`, `_JXL`; off by default).
    public var enforcesWebP = false
    public var enforcesAVIF = false
    public var enforcesJXL = false
    /// Formats a source keeps when the URL names none, and the candidates for one that is not kept
    /// (`IMGPROXY_PREFERRED_FORMATS`; imgproxy's JPEG, PNG, GIF by default).
    public var preferredFormats: [ImageFormat] = FormatNegotiation.defaultPreferred
    /// URLs may set per-request limits, imgproxy's security options (`msr`, `msfs`, `maf`, `mafr`, `mrd`;
    /// `IMGPROXY_ALLOW_SECURITY_OPTIONS`, off by default: such URLs answer 403).
    public var allowsSecurityOptions = false
    /// An SVG source is rasterised even when the URL names no raster format (`IMGPROXY_ALWAYS_RASTERIZE_SVG`;
    /// off by default: it is answered as SVG).
    public var alwaysRasterizesSVG = false
    /// An SVG answered as SVG is sanitised first: no scripts, event attributes or outside links
    /// (`IMGPROXY_SANITIZE_SVG`; on by default).
    public var sanitizesSVG = true
    /// Source formats answered as they are, unprocessed, when the URL names no other format
    /// (`IMGPROXY_SKIP_PROCESSING_FORMATS`; none by default).
    public var skipProcessingFormats: [ImageFormat] = []
    /// Option names a URL may use, as written (`rs` and `resize` are two names); presets may use any
    /// (`IMGPROXY_ALLOWED_PROCESSING_OPTIONS`; empty: every option).
    public var allowedProcessingOptions: Set<String> = []
    /// Read the `DPR` and `Width` client hints (and their `Sec-CH-` forms) as `dpr` and `width` defaults
    /// (`IMGPROXY_ENABLE_CLIENT_HINTS`; off by default).
    public var readsClientHints = false
    /// `Access-Control-Allow-Origin` of every answer, and OPTIONS preflights answered
    /// (`IMGPROXY_ALLOW_ORIGIN`); nil: no CORS headers.
    public var allowOrigin: String?
    /// Named option lists (`IMGPROXY_PRESETS`, `IMGPROXY_ONLY_PRESETS`).
    var presets = Presets()
    /// How processing URLs are written: `IMGPROXY_ARGUMENTS_SEPARATOR` and `IMGPROXY_BASE_URL`.
    var urlConventions = ImageURLPath.Conventions()
    /// How `s3://bucket/key` sources are fetched (`IMGPROXY_USE_S3`, with `IMGPROXY_S3_ENDPOINT`,
    /// `IMGPROXY_S3_REGION`, `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE` and AWS's credential variables); nil: no
    /// S3 sources.
    public var s3: S3LoaderConfiguration? {
        didSet {
            if s3 == nil {
                urlConventions.schemes.remove(S3Loader.scheme)
            } else {
                urlConventions.schemes.insert(S3Loader.scheme)
            }
        }
    }
    /// The directory `local:///path` sources are read under (`IMGPROXY_LOCAL_FILESYSTEM_ROOT`); nil: no
    /// local sources. Nothing outside it is read, symbolic links and `..` included.
    public var localFileSystemRoot: URL? {
        didSet {
            if localFileSystemRoot == nil {
                urlConventions.schemes.remove(FileLoader.localScheme)
            } else {
                urlConventions.schemes.insert(FileLoader.localScheme)
            }
        }
    }
    /// A path every route sits under (`IMGPROXY_PATH_PREFIX`, `/images`); empty: none.
    public var pathPrefix = ""
    /// Another path answering as `/health` does (`IMGPROXY_HEALTH_CHECK_PATH`).
    public var healthCheckPath: String?
    /// Send the source's `Last-Modified` and answer `If-Modified-Since` with 304 when the source is no
    /// newer (`IMGPROXY_USE_LAST_MODIFIED`; off by default, as in imgproxy).
    public var usesLastModified = false
    /// Answer with the source's `Cache-Control` (or a TTL from its `Expires`) instead of `IMGPROXY_TTL`
    /// (`IMGPROXY_CACHE_CONTROL_PASSTHROUGH`; off by default).
    public var cacheControlPassthrough = false
    /// Send `Link: <source>; rel="canonical"` for http and https sources (`IMGPROXY_SET_CANONICAL_HEADER`).
    public var setsCanonicalHeader = false
    /// Send `ETag` and answer `If-None-Match` with 304 (`IMGPROXY_USE_ETAG`; off by default, as in imgproxy).
    public var usesETag = false
    /// Mixed into every ETag (`IMGPROXY_ETAG_BUSTER`): changing it makes clients and CDNs refetch every
    /// answer, for a change of processing the bytes' tags would not show. Empty by default.
    public var etagBuster = ""

    /// The image answered in place of a source that cannot be downloaded (`IMGPROXY_FALLBACK_IMAGE_*`);
    /// nil: the download error is the answer.
    var fallbackImage: FallbackImage?

    /// The watermark image for `wm:` (`IMGPROXY_WATERMARK_PATH`, a local file).
    public var watermarkPath: String?
    /// The watermark image's bytes (`IMGPROXY_WATERMARK_DATA`, base64); used before ``watermarkPath``,
    /// as imgproxy does, so a container can carry it in its environment.
    public var watermarkData: Data?
    /// The watermark image's URL (`IMGPROXY_WATERMARK_URL`), used when neither ``watermarkData`` nor
    /// ``watermarkPath`` is set; fetched as any source (allow-list, address guard, limits) the first time a
    /// URL asks for `wm:`, then kept decoded.
    public var watermarkURL: URL?
    /// Multiplies every `wm:` opacity (`IMGPROXY_WATERMARK_OPACITY`, 0–1; 1 by default), so a deployment
    /// can make its watermark fainter without changing URLs.
    public var watermarkOpacity = 1.0

    /// Directory of the result cache's disk level (`WEBIMAGE_SERVER_CACHE_DIR`); nil: memory only.
    public var resultCacheDirectory: URL?
    /// Redis URLs of a result tier shared by a fleet (`WEBIMAGE_SERVER_REDIS_URL`, comma-separated for
    /// shards: `redis://[user:password@]host:port/db`); empty: no Redis tier.
    public var resultRedisURLs: [String] = []
    /// Seconds the Redis tier may take to connect, send, answer or hand out a pooled connection
    /// (`WEBIMAGE_SERVER_REDIS_TIMEOUT`); past it the lookup is a miss and the request goes on.
    public var resultRedisTimeout = 0.25
    /// Microseconds a Redis connection keeps asking for a reply before it sleeps
    /// (`WEBIMAGE_SERVER_REDIS_SPIN_US`, 0–1000; `RedisCacheConfiguration.replySpin`): a nearby Redis
    /// answers within tens of microseconds, and waking an idle CPU costs about as long. 0 never spins.
    public var resultRedisSpinMicroseconds = 200
    /// Bytes the disk level of the result cache may hold (`WEBIMAGE_SERVER_CACHE_DISK_LIMIT`); the least
    /// recently used results go first past it.
    public var resultDiskLimit = ServerConfiguration.defaultResultDiskLimit
    /// Bytes of results kept in memory (`WEBIMAGE_SERVER_RESULT_MEMORY`); 0 turns the result cache off.
    public var resultMemoryLimit = ServerConfiguration.defaultResultMemoryLimit
    /// Bytes of decoded source images kept in memory (`WEBIMAGE_SERVER_SOURCE_MEMORY`).
    public var sourceMemoryLimit = ServerConfiguration.defaultSourceMemoryLimit
    /// Bytes of fetched source files kept in memory (`WEBIMAGE_SERVER_SOURCE_BYTES`), so another size of
    /// a recent source is decoded from them instead of fetched again; 0 keeps none.
    public var sourceBytesLimit = ServerConfiguration.defaultSourceBytesLimit

    /// Serve `/demo` (a page of signed sample URLs); `webimage-server --demo` turns it on.
    public var demo: DemoConfiguration?

    public init() {}

    /// imgproxy's current default (50 MP): any camera photo, far below our 100 MP decoder default.
    public static let defaultMaxSourceMegapixels = 50.0
    /// 32 MB: a 50 MP JPEG at high quality is about 20 MB; imgproxy has no limit by default, we want one.
    public static let defaultMaxSourceFileSize = 32 * 1024 * 1024
    /// A 30-second GIF at 16 fps; imgproxy's default of 1 would turn every animation into a still.
    public static let defaultMaxAnimationFrames = 1
    /// imgproxy's choice: decode as small as the output allows.
    public static let defaultShrinkOnLoadGap = 1.0
    /// imgproxy's default download timeout.
    public static let defaultDownloadTimeout: TimeInterval = 5
    /// imgproxy's default request timeout.
    public static let defaultRequestTimeout: TimeInterval = 10
    /// One processing request per core keeps every core busy without making each request slower.
    public static let defaultWorkers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// imgproxy's default.
    public static let defaultMaxClients = 2048
    /// Downloads mostly wait: several per worker keep the workers fed without letting a flood of
    /// stalled origins hold unbounded sockets and buffers.
    public static let downloadsPerWorker = 16
    /// Downloads from one origin at once by default: twice the HTTP loader's connections per host, so
    /// transfers that share a connection or a coalesced URL still fill them.
    public static let defaultDownloadsPerOrigin = 8
    /// 1 GiB of encoded results on disk.
    public static let defaultResultDiskLimit = 1 << 30
    /// Queue a few requests per worker: a burst waits a little, a flood gets 503 at once.
    public static let queuedRequestsPerWorker = 8
    /// imgproxy's default: one year, since a processing URL's answer never changes.
    public static let defaultTTL = 31_536_000
    /// imgproxy's default quality.
    public static let defaultQualityPercent = 80
    /// imgproxy's default `IMGPROXY_FORMAT_QUALITY` (v3.31): WebP 79, AVIF 63, JPEG XL 77.
    public static let defaultFormatQuality: [ImageFormat: Int] = [.webp: 79, .avif: 63, .jpegXL: 77]
    /// 64 MB of encoded results: thousands of thumbnails.
    public static let defaultResultMemoryLimit = 64 * 1024 * 1024
    /// 256 MB of decoded sources: a handful of 12 MP photos, so repeated requests for one size decode once.
    public static let defaultSourceMemoryLimit = 256 * 1024 * 1024
    /// 64 MB of source files: a few dozen camera JPEGs, so ten sizes of one source fetch it once.
    public static let defaultSourceBytesLimit = 64 * 1024 * 1024
}

/// What `/demo` serves: sample images on a loopback source server.
public struct DemoConfiguration: Sendable {
    /// Base URL of the source server holding the samples (`http://127.0.0.1:PORT/`).
    public var sourceBaseURL: URL
    /// File names on that server, each with its pixel size and whether it is animated.
    public var samples: [DemoSample]

    public init(sourceBaseURL: URL, samples: [DemoSample]) {
        self.sourceBaseURL = sourceBaseURL
        self.samples = samples
    }
}

/// One sample source of the demo page.
public struct DemoSample: Sendable, Hashable {
    public var fileName: String
    public var width: Int
    public var height: Int
    public var isAnimated: Bool

    public init(fileName: String, width: Int, height: Int, isAnimated: Bool) {
        self.fileName = fileName
        self.width = width
        self.height = height
        self.isAnimated = isAnimated
    }
}

import Foundation
import Logging
import WebImageCore

/// Settings of an ``HTTPLoader``. Every default is stated; change what you need:
///
/// ```swift
/// var configuration = HTTPLoaderConfiguration()
/// configuration.maxConcurrentDownloads = 16
/// configuration.refusesPrivateAddresses = true   // the server fetches user-supplied URLs
/// let loader = HTTPLoader(configuration: configuration)
/// ```
public struct HTTPLoaderConfiguration: Sendable {
    /// Which waiting request of a host starts next within one priority (hosts themselves take turns).
    public enum ExecutionOrder: Sendable, Hashable {
        /// First in, first out: the oldest waiting request starts first (the default).
        case fifo
        /// Last in, first out: the newest waiting request starts first (what a scrolling list wants).
        case lifo
    }

    /// Transfers running at once, all hosts together; more wait in the loader's queue, which serves
    /// hosts in turn (one start per host with waiting work, round after round), so one host with many
    /// waiting or stalled requests cannot hold back another host for more than its share. 18 by
    /// default: three hosts at the per-host 6, so even two hosts whose every request stalls leave a
    /// whole host's share to the rest (browsers likewise cap each host at 6 and all hosts far higher).
    /// Can also be changed on a running loader with ``HTTPLoader/maxConcurrentDownloads``. Keep it
    /// above ``maxConnectionsPerHost`` so a slow host cannot fill every slot.
    public var maxConcurrentDownloads = 18
    /// Order of waiting requests of the same priority. `.fifo` by default.
    public var executionOrder = ExecutionOrder.fifo
    /// Requests that may wait in the queue; beyond it a request fails at once with `.requestRefused`,
    /// so a flood cannot grow memory without bound. 10,000 by default.
    public var maxQueuedRequests = 10_000
    /// Transfers running at once to one host (scheme, host and port) over HTTP/1.1, kept in our own
    /// queue rather than libcurl's. 6 by default. Hosts that answered over HTTP/2 multiplex many
    /// transfers on one connection and get ``maxStreamsPerMultiplexedHost`` instead.
    public var maxConnectionsPerHost = 6
    /// Transfers running at once to a host known to speak HTTP/2. 100 by default (the usual
    /// SETTINGS_MAX_CONCURRENT_STREAMS).
    public var maxStreamsPerMultiplexedHost = 100
    /// Use HTTP/2 over TLS when the server offers it, and wait for an existing HTTP/2 connection rather
    /// than opening another. True by default.
    public var enablesHTTP2 = true

    /// Time to establish a connection (DNS, TCP and TLS). 15 s by default.
    public var connectTimeout: Duration = .seconds(15)
    /// Time from the start of a transfer (connecting included) until the first response head has
    /// fully arrived; past it the transfer fails with `.timeout` and frees its slot. Catches servers
    /// that accept the connection and then say nothing, which the low-speed floor only notices after
    /// ``lowSpeedTime``. Nil (no such limit) by default.
    public var responseHeadTimeout: Duration?
    /// Time for the whole transfer, unless the request sets its own (`ImageRequest/timeout`). 60 s by
    /// default.
    public var timeout: Duration = .seconds(60)
    /// Bytes per second below which a transfer counts as stalled. 1 by default: only a transfer that
    /// receives nothing at all for ``lowSpeedTime`` fails.
    public var lowSpeedLimit = 1
    /// How long a transfer may stay below ``lowSpeedLimit`` before it fails with `.timeout`.
    /// 30 s by default; libcurl counts whole seconds, so a fraction of a second is rounded up.
    public var lowSpeedTime: Duration = .seconds(30)

    /// Largest response body accepted; bigger ones (chunked ones included) stop as soon as they pass
    /// it, with `.responseTooLarge`. A resumed body counts whole, the kept bytes included. 64 MB by default: far above any sane image, far below memory.
    public var maxResponseSize = 64 * 1024 * 1024
    /// Largest response head (all header lines of one response) accepted. 64 KB by default.
    public var maxHeaderSize = 64 * 1024
    /// Redirects followed before failing; only to http and https. 5 by default.
    public var maxRedirects = 5
    /// Asked before each redirect is followed, with its target (absolute: a relative `Location` is
    /// resolved against the URL that sent it); false refuses it, and the load fails with
    /// `ImageError.requestRefused` before the loader connects to the target or sends it anything.
    /// Every hop of a chain is asked, never the first URL (the caller chose that one). A server that
    /// fetches only from a list of allowed origins gives the same list here, so that an allowed origin
    /// cannot redirect it elsewhere:
    ///
    /// ```swift
    /// configuration.allowsRedirect = { url in allowedHosts.contains(url.host?.lowercased() ?? "") }
    /// ```
    ///
    /// With a policy set, the loader follows redirects itself, one hop at a time, with the same limits
    /// as without (``maxRedirects``, http and https only, one ``timeout`` for the whole chain,
    /// credentials and cookies kept within the first origin). Runs on the loader's event thread, which
    /// drives every transfer: keep it quick, and never block in it. Nil by default: every redirect to
    /// http or https is followed.
    public var allowsRedirect: (@Sendable (URL) -> Bool)?

    /// The User-Agent header. Names the library and libcurl by default.
    public var userAgent = "SwiftWebImage/1.0 libcurl/\(CurlGlobal.versionString)"
    /// Headers sent with every request, over the defaults (User-Agent, Accept). Empty by default.
    public var headers: [String: String] = [:]
    /// Credentials for servers that ask for authentication. None by default.
    public var credentials: HTTPCredentials?
    /// Sign every request with AWS Signature Version 4 (S3 and compatible stores; see ``S3Loader``).
    /// Like ``credentials``, it goes only to the first origin of a redirect chain. None by default.
    public var awsSignature: AWSSignature?
    /// Changes or refuses each request; a request's context `ImageContext/requestModifier` wins.
    public var requestModifier: (any RequestModifier)?
    /// Checks or changes each response; a request's context `ImageContext/responseModifier` wins.
    public var responseModifier: (any ResponseModifier)?
    /// Transforms each body; a request's context `ImageContext/downloadDecryptor` wins.
    public var decryptor: (any DownloadDecryptor)?

    /// Status codes that count as success. `200..<400` by default; a 304 after a conditional request
    /// becomes `.cacheNotModified` whatever this says.
    public var acceptableStatusCodes: Range<Int> = 200..<400
    /// MIME types accepted (`"image/png"`, or `"image/*"` for a family); nil accepts any. Nil by default.
    public var acceptableContentTypes: Set<String>?

    /// Refuse connections to loopback, private, link-local, unspecified and other non-public addresses,
    /// checked on the address actually connected to (after DNS, on every redirect hop), so a hostname
    /// that resolves to 127.0.0.1 is refused too. Through a proxy (see ``HTTPProxy``) the target's own
    /// addresses are resolved, checked and pinned instead. Turn it on in servers that fetch
    /// user-supplied URLs (``server`` does). False by default.
    public var refusesPrivateAddresses = false
    /// Non-public addresses the guard lets through anyway, written as the guard prints them
    /// (`"10.0.0.5"`, `"fd00:0:0:0:0:0:0:1"`): an internal origin a server must reach. Empty by default.
    public var allowedPrivateAddresses: Set<String> = []
    /// With the guard on, also let through the private networks an organisation runs its hosts in
    /// (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), while loopback, link-local (where cloud
    /// metadata answers), unspecified, multicast and reserved addresses stay refused: imgproxy's
    /// `IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES`. False by default.
    public var allowsPrivateNetworks = false
    /// With the guard on, also let through loopback (127/8, ::1) and unspecified (0.0.0.0, ::) addresses:
    /// imgproxy's `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES`. False by default.
    public var allowsLoopbackAddresses = false
    /// With the guard on, also let through link-local addresses (169.254/16, fe80::/10, and link-local
    /// multicast 224.0.0/24, ff02::/16), where cloud metadata services answer: imgproxy's
    /// `IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`. False by default.
    public var allowsLinkLocalAddresses = false
    /// Where connections go: ``HTTPProxy/direct`` (proxy variables in the environment ignored) by
    /// default; set a proxy URL, or opt in to the environment.
    public var proxy = HTTPProxy.direct
    /// The variables ``HTTPProxy/environment`` takes its proxy from; nil, the default, reads the
    /// process environment (`ProcessInfo`) once, as the loader starts. Other proxy settings ignore it.
    public var proxyEnvironment: [String: String]?
    /// What to do after a failure. Never retries by default; ``HTTPBackoffRetryPolicy`` retries
    /// transient failures with backoff and honours `Retry-After`.
    public var retryPolicy: any HTTPRetryPolicy = NoRetryPolicy()
    /// Statuses after which ``HTTPLoader/shouldBlockFailedURL(_:error:)`` tells the manager to put
    /// the URL on its failed list: the ones that say the resource is bad.
    /// `ImageError/permanentStatusCodes` (400, 404, 405, 410, 414) by default; 5xx, 408 and 429
    /// never belong here.
    public var failedURLStatusCodes: Set<Int> = ImageError.permanentStatusCodes

    /// Bytes of interrupted bodies kept in memory so the next attempt at the same request (a retry,
    /// or a later load) asks only for the rest, with `Range` and `If-Range`. Least recently kept
    /// bodies go first. 32 MB by default; 0 turns resuming off.
    public var resumableDataCapacity = 32 * 1024 * 1024
    /// Smallest interrupted body worth keeping: below it, starting over costs about what a resumed
    /// request does. 64 KB by default.
    public var minimumResumableBytes = 64 * 1024

    /// HTTPS trust (CA bundle, directory or in-memory PEM), client certificate and public-key pins.
    /// The system's CAs, no client certificate, no pins by default.
    public var tls = HTTPTLSConfiguration()
    /// Compressed responses: `Accept-Encoding`, decoding, and the decompression-ratio cap. Decoding on,
    /// 100x after 1 MB by default.
    public var contentDecoding = HTTPContentDecoding()

    /// The coders whose formats the `Accept` header lists and whose progressive coders decode partial
    /// images. `ImageCodersManager/shared` by default.
    public var coders: ImageCodersManager = .shared

    /// The defaults.
    public init() {}
}

/// Switches that change how one request loads (SDWebImage 5's `SDWebImageOptions`, minus the ones that
/// only mean something on Apple platforms).
public struct ImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Try URLs that failed before; without it a URL on the failed list fails at once with `.blockedURL`.
    public static let retryFailed = ImageOptions(rawValue: 1 << 0)
    /// Download with low priority.
    public static let lowPriority = ImageOptions(rawValue: 1 << 1)
    /// Download with high priority: jumps the loader's queue.
    public static let highPriority = ImageOptions(rawValue: 1 << 2)
    /// Deliver partial images while the download runs, as progressive coders decode them.
    public static let progressiveLoad = ImageOptions(rawValue: 1 << 3)
    /// Answer with the cached image, then revalidate with the server (ETag / Last-Modified) and answer
    /// again; a "not modified" answer keeps the cached image.
    public static let refreshCached = ImageOptions(rawValue: 1 << 4)
    /// Send and store cookies.
    public static let handleCookies = ImageOptions(rawValue: 1 << 5)
    /// Accept TLS certificates that do not verify. Never use in production.
    public static let allowInvalidSSLCertificates = ImageOptions(rawValue: 1 << 6)
    /// Show the placeholder only after the load fails (view targets).
    public static let delayPlaceholder = ImageOptions(rawValue: 1 << 7)
    /// Apply the transformer to animated images too (by default they are left untouched).
    public static let transformAnimatedImage = ImageOptions(rawValue: 1 << 8)
    /// Do not set the image on the view target; the completion handler does it.
    public static let avoidAutoSetImage = ImageOptions(rawValue: 1 << 9)
    /// Decode images larger than ``DecodeOptions/scaleDownLimit`` on a side at that size (keeping the
    /// shape) instead of refusing or holding them at full size. An explicit thumbnail size wins.
    public static let scaleDownLargeImages = ImageOptions(rawValue: 1 << 10)
    /// Query the disk data even when the image is in memory.
    public static let queryMemoryData = ImageOptions(rawValue: 1 << 11)
    /// Query the memory synchronously on the caller's thread.
    public static let queryMemoryDataSync = ImageOptions(rawValue: 1 << 12)
    /// Query the disk synchronously (blocks the caller; for tests and command-line tools).
    public static let queryDiskDataSync = ImageOptions(rawValue: 1 << 13)
    /// Never download: a cache miss fails with `.downloadNotAllowed`.
    public static let fromCacheOnly = ImageOptions(rawValue: 1 << 14)
    /// Skip the cache query and always download.
    public static let fromLoaderOnly = ImageOptions(rawValue: 1 << 15)
    /// Accepted for SDWebImage compatibility. On Apple platforms it skips forcing a bitmap decode; here
    /// every decoded image already is a plain pixel buffer, so it changes nothing.
    public static let avoidDecodeImage = ImageOptions(rawValue: 1 << 16)
    /// Decode only the first frame of animations.
    public static let decodeFirstFrameOnly = ImageOptions(rawValue: 1 << 17)
    /// Decode every frame of animations up front.
    public static let preloadAllFrames = ImageOptions(rawValue: 1 << 18)
    /// Call the completion only after every cache level's store finished. Without it the memory
    /// level is still stored before the completion; the slower levels are not waited for.
    public static let waitStoreCache = ImageOptions(rawValue: 1 << 19)
    /// Keep loading the image when the caller no longer needs it (for prefetching) — accepted for
    /// SDWebImage compatibility; cancellation is always explicit here.
    public static let continueInBackground = ImageOptions(rawValue: 1 << 20)
    /// Do not apply the EXIF orientation to decoded pixels (it is still reported).
    public static let ignoreOrientation = ImageOptions(rawValue: 1 << 21)
}

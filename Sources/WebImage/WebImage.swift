import Foundation
@_exported import WebImageAVIFCoder
@_exported import WebImageBMPCoder
@_exported import WebImageColorManagement
@_exported import WebImageCore
@_exported import WebImageDiskCache
@_exported import WebImageFileLoader
@_exported import WebImageGIFCoder
@_exported import WebImageHEIFCoder
@_exported import WebImageHTTPLoader
@_exported import WebImageICOCoder
@_exported import WebImageJPEGCoder
@_exported import WebImageJXLCoder
@_exported import WebImageMemoryCache
@_exported import WebImagePNGCoder
@_exported import WebImageTIFFCoder
@_exported import WebImageWebPCoder

/// The batteries-included entry point: every plugin we ship, wired into the shared managers.
///
/// The first use of ``shared`` (or ``cache``, ``httpLoader``, ``image(for:options:context:)``, the
/// `register` calls or ``makeManager(cacheDirectory:namespace:configuration:)``) registers the AVIF, HEIF, JPEG XL, PNG, APNG, JPEG, WebP, GIF, TIFF, BMP and ICO coders with `ImageCodersManager/shared` (which
/// then converts images with an embedded ICC profile to sRGB with Little CMS: `LittleCMSConverter`), the
/// HTTP and file loaders with `ImageLoadersManager/shared`, and a two-level cache (memory + disk under
/// `$XDG_CACHE_HOME/SwiftWebImage`, else `~/.cache/SwiftWebImage`) with `ImageCachesManager/shared`,
/// so `ImageManager/shared` loads anything. A program that needs only the coders calls
/// ``registerBuiltInCoders()``.
///
/// ```swift
/// let image = try await WebImage.image(for: url)
/// WebImage.register(coder: MyQOICoder())
/// ```
public enum WebImage {
    /// The shared manager, wired with every plugin.
    public static var shared: ImageManager { defaultSetup.manager }

    /// The shared manager's two-level cache; nil when its disk directory could not be created (the
    /// shared manager then caches in memory only).
    public static var cache: WebImageCache? { defaultSetup.cache }

    /// The shared manager's HTTP loader.
    public static var httpLoader: HTTPLoader { defaultSetup.httpLoader }

    /// Loads `url` through the shared manager and returns the final image.
    public static func image(
        for url: URL, options: ImageOptions = [],
        context: ImageContext = ImageContext()
    ) async throws(ImageError) -> Image {
        try await shared.image(for: url, options: options, context: context).image
    }

    /// Registers `coder` for every manager that uses the shared coders; it wins over built-in coders
    /// for the data it accepts.
    public static func register(coder: any ImageCoder) {
        _ = defaultSetup
        ImageCodersManager.shared.addCoder(coder)
    }

    /// Registers `loader` for every manager that uses the shared loaders; it wins for the URLs it accepts.
    public static func register(loader: any ImageLoader) {
        _ = defaultSetup
        ImageLoadersManager.shared.addLoader(loader)
    }

    /// Registers the built-in coders (AVIF, HEIF, JPEG XL, GIF, WebP, PNG, APNG, JPEG, TIFF, BMP, ICO) with
    /// `ImageCodersManager/shared`, and makes it convert images with an embedded ICC profile to sRGB with
    /// Little CMS (`LittleCMSConverter`). Registers nothing else: no loader, no cache, no directory
    /// created. The first call registers; later ones do nothing, so a program, a server or a test calls it
    /// wherever it needs the coders. ``shared`` and the other members call it too.
    ///
    /// ```swift
    /// WebImage.registerBuiltInCoders()
    /// let image = try ImageCodersManager.shared.decode(data, options: DecodeOptions())
    /// ```
    public static func registerBuiltInCoders() {
        _ = builtInCodersRegistration
    }

    /// A manager wired like ``shared`` but with its own cache in `cacheDirectory` (for tools and tests
    /// that must not touch the user's cache), sharing the registered coders and loaders.
    public static func makeManager(
        cacheDirectory: URL, namespace: String = "default",
        configuration: WebImageCacheConfiguration = WebImageCacheConfiguration()
    )
        throws(ImageError) -> (manager: ImageManager, cache: WebImageCache)
    {
        _ = defaultSetup
        let cache = try WebImageCache(directory: cacheDirectory, namespace: namespace, configuration: configuration)
        return (ImageManager(cache: cache, loader: ImageLoadersManager.shared, coders: .shared), cache)
    }
}

/// What the first use of `WebImage` set up.
struct DefaultSetup: Sendable {
    let manager: ImageManager
    let cache: WebImageCache?
    let httpLoader: HTTPLoader
}

/// Registered once, on first use (a global `let` is initialised lazily and exactly once).
let defaultSetup: DefaultSetup = {
    WebImage.registerBuiltInCoders()
    let http = HTTPLoader()
    ImageLoadersManager.shared.addLoader(FileLoader())
    ImageLoadersManager.shared.addLoader(http)
    let cache = try? WebImageCache(directory: DiskCache.defaultDirectory, namespace: "default")
    ImageCachesManager.shared.addCache(cache ?? MemoryCache())
    return DefaultSetup(manager: .shared, cache: cache, httpLoader: http)
}()

/// The built-in coders' registration, done once by the first ``WebImage/registerBuiltInCoders()`` (a global
/// `let` is initialised lazily and exactly once).
let builtInCodersRegistration: Void = {
    let coders = ImageCodersManager.shared
    // First, so the Accept header (registered coders' formats in order) offers AVIF first, as browsers do.
    coders.addCoder(AVIFCoder())
    coders.addCoder(HEIFCoder())
    coders.addCoder(JXLCoder())
    coders.addCoder(GIFCoder())
    coders.addCoder(WebPCoder())
    coders.addCoder(PNGCoder())
    // After PNGCoder, so it is asked first: it claims APNGs and leaves plain PNGs to PNGCoder.
    coders.addCoder(APNGCoder())
    coders.addCoder(JPEGCoder())
    // The formats imgproxy also reads; last in the Accept header, as no browser asks for them.
    coders.addCoder(TIFFCoder())
    coders.addCoder(BMPCoder())
    coders.addCoder(ICOCoder())
    // Images with an embedded ICC profile (Display P3 from phones, Adobe RGB, CMYK) decode to sRGB.
    coders.defaultColorConversion = .sRGB(LittleCMSConverter())
}()

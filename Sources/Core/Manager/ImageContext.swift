import Dispatch
import Foundation
import Logging

/// A key of ``ImageContext``: a type naming one value, with the value's type and default.
///
/// Plugins declare keys of their own the same way the built-in ones are declared:
/// ```swift
/// enum MaxRetriesKey: ImageContextKey { static let defaultValue = 0 }
/// extension ImageContext {
///     var maxRetries: Int { get { self[MaxRetriesKey.self] } set { self[MaxRetriesKey.self] = newValue } }
/// }
/// ```
public protocol ImageContextKey {
    associatedtype Value: Sendable
    static var defaultValue: Value { get }
}

/// Per-request settings that are values rather than switches (SDWebImage's `SDWebImageContext`),
/// keyed by types so every value is checked by the compiler.
///
/// ```swift
/// var context = ImageContext()
/// context.thumbnailPixelSize = PixelSize(256)
/// context.imageTransformer = MyRoundCorner()
/// manager.loadImage(with: url, context: context) { ... }
/// ```
public struct ImageContext: Sendable {
    /// Each set value in a box of its key's `Value` type, under the key type's identity, in the order
    /// first set. A list rather than a dictionary: a context holds a handful of values, and comparing
    /// a handful of identities costs less than hashing one (a load reads some twenty keys).
    private var entries: [Entry] = []

    private struct Entry: Sendable {
        let key: ObjectIdentifier
        var box: any ContextValueBox
    }

    /// An empty context: every key has its default.
    public init() {}

    /// The value for `key`, or its default.
    public subscript<Key: ImageContextKey>(key: Key.Type) -> Key.Value {
        get {
            guard let index = index(of: ObjectIdentifier(key)) else { return Key.defaultValue }
            // Only the setter below stores under `ObjectIdentifier(Key.self)`, and always a
            // `ContextValue<Key.Value>`: one key type has one value type, so the box's type is known and
            // needs no runtime check. (An `as?` from `any Sendable` here was a runtime cast of several
            // hundred instructions per read, most for the optional values most keys hold.)
            return unsafeDowncast(entries[index].box, to: ContextValue<Key.Value>.self).value
        }
        set { set(ContextValue(newValue), for: ObjectIdentifier(key)) }
    }

    /// Whether a value was set for `key`.
    public func contains<Key: ImageContextKey>(_ key: Key.Type) -> Bool {
        index(of: ObjectIdentifier(key)) != nil
    }

    /// This context with `other`'s values laid over it.
    public func merging(_ other: ImageContext) -> ImageContext {
        if other.entries.isEmpty { return self }
        if entries.isEmpty { return other }
        var merged = self
        for entry in other.entries { merged.set(entry.box, for: entry.key) }
        return merged
    }

    private func index(of key: ObjectIdentifier) -> Int? {
        entries.firstIndex { $0.key == key }
    }

    private mutating func set(_ box: any ContextValueBox, for key: ObjectIdentifier) {
        if let index = index(of: key) { entries[index].box = box } else { entries.append(Entry(key: key, box: box)) }
    }
}

/// A value of ``ImageContext``, boxed so that reading it back is a known-type access, not a cast.
private protocol ContextValueBox: AnyObject, Sendable {}

/// One context value: immutable, so boxes are shared freely between copies of a context.
private final class ContextValue<Value: Sendable>: ContextValueBox {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Declares the built-in keys. Each is a caseless enum used only as a type.
public enum ImageContextKeys {
    /// The key of ``ImageContext/customManager``.
    public enum CustomManager: ImageContextKey { public static let defaultValue: ImageManager? = nil }
    /// The key of ``ImageContext/imageCache``.
    public enum ImageCache: ImageContextKey { public static let defaultValue: (any WebImageCore.ImageCache)? = nil }
    /// The key of ``ImageContext/imageLoader``.
    public enum ImageLoader: ImageContextKey { public static let defaultValue: (any WebImageCore.ImageLoader)? = nil }
    /// The key of ``ImageContext/imageCoder``.
    public enum ImageCoder: ImageContextKey { public static let defaultValue: (any WebImageCore.ImageCoder)? = nil }
    /// The key of ``ImageContext/imageTransformer``.
    public enum Transformer: ImageContextKey { public static let defaultValue: (any ImageTransformer)? = nil }
    /// The key of ``ImageContext/cacheKeyFilter``.
    public enum KeyFilter: ImageContextKey { public static let defaultValue: (any CacheKeyFilter)? = nil }
    /// The key of ``ImageContext/cacheSerializer``.
    public enum Serializer: ImageContextKey { public static let defaultValue: (any CacheSerializer)? = nil }
    /// The key of ``ImageContext/storeCacheType``.
    public enum StoreCacheType: ImageContextKey { public static let defaultValue = ImageCacheType.all }
    /// The key of ``ImageContext/originalStoreCacheType``.
    public enum OriginalStoreCacheType: ImageContextKey { public static let defaultValue = ImageCacheType.disk }
    /// The key of ``ImageContext/queryCacheType``.
    public enum QueryCacheType: ImageContextKey { public static let defaultValue = ImageCacheType.all }
    /// The key of ``ImageContext/originalQueryCacheType``.
    public enum OriginalQueryCacheType: ImageContextKey { public static let defaultValue = ImageCacheType.disk }
    /// The key of ``ImageContext/thumbnailPixelSize``.
    public enum ThumbnailPixelSize: ImageContextKey { public static let defaultValue: PixelSize? = nil }
    /// The key of ``ImageContext/preserveAspectRatio``.
    public enum PreserveAspectRatio: ImageContextKey { public static let defaultValue = true }
    /// The key of ``ImageContext/imageScaleFactor``.
    public enum ScaleFactor: ImageContextKey { public static let defaultValue: Double? = nil }
    /// The key of ``ImageContext/decodeOptions``.
    public enum Decode: ImageContextKey { public static let defaultValue: DecodeOptions? = nil }
    /// The key of ``ImageContext/requestModifier``.
    public enum Requests: ImageContextKey { public static let defaultValue: (any RequestModifier)? = nil }
    /// The key of ``ImageContext/responseModifier``.
    public enum Responses: ImageContextKey { public static let defaultValue: (any ResponseModifier)? = nil }
    /// The key of ``ImageContext/downloadDecryptor``.
    public enum Decryptor: ImageContextKey { public static let defaultValue: (any DownloadDecryptor)? = nil }
    /// The key of ``ImageContext/callbackQueue``.
    public enum CallbackQueue: ImageContextKey { public static let defaultValue: DispatchQueue? = nil }
    /// The key of ``ImageContext/operationKey``.
    public enum OperationKey: ImageContextKey { public static let defaultValue: String? = nil }
    /// The key of ``ImageContext/logger``.
    public enum RequestLogger: ImageContextKey { public static let defaultValue: Logger? = nil }
    /// The key of ``ImageContext/loaderCachedImage``.
    public enum LoaderCachedImage: ImageContextKey { public static let defaultValue: Image? = nil }
    /// The key of ``ImageContext/cacheValidators``.
    public enum Validators: ImageContextKey { public static let defaultValue: CacheValidators? = nil }
    /// The key of ``ImageContext/minimumProgressInterval``.
    public enum MinimumProgressInterval: ImageContextKey { public static let defaultValue: Double = 0 }
}

extension ImageContext {
    /// Load with this manager instead of the one called (SDWebImage's `customManager`).
    public var customManager: ImageManager? {
        get { self[ImageContextKeys.CustomManager.self] }
        set { self[ImageContextKeys.CustomManager.self] = newValue }
    }
    /// Query and store in this cache instead of the manager's.
    public var imageCache: (any ImageCache)? {
        get { self[ImageContextKeys.ImageCache.self] }
        set { self[ImageContextKeys.ImageCache.self] = newValue }
    }
    /// Download with this loader instead of the manager's.
    public var imageLoader: (any ImageLoader)? {
        get { self[ImageContextKeys.ImageLoader.self] }
        set { self[ImageContextKeys.ImageLoader.self] = newValue }
    }
    /// Decode with this coder instead of the registered ones.
    public var imageCoder: (any ImageCoder)? {
        get { self[ImageContextKeys.ImageCoder.self] }
        set { self[ImageContextKeys.ImageCoder.self] = newValue }
    }
    /// Transform the loaded image; its key becomes part of the cache key.
    public var imageTransformer: (any ImageTransformer)? {
        get { self[ImageContextKeys.Transformer.self] }
        set { self[ImageContextKeys.Transformer.self] = newValue }
    }
    /// Turn the URL into a cache key (for example dropping a signature query parameter).
    public var cacheKeyFilter: (any CacheKeyFilter)? {
        get { self[ImageContextKeys.KeyFilter.self] }
        set { self[ImageContextKeys.KeyFilter.self] = newValue }
    }
    /// Turn an image into the bytes stored on disk.
    public var cacheSerializer: (any CacheSerializer)? {
        get { self[ImageContextKeys.Serializer.self] }
        set { self[ImageContextKeys.Serializer.self] = newValue }
    }
    /// Where the final (transformed) image is stored. `.all` by default.
    public var storeCacheType: ImageCacheType {
        get { self[ImageContextKeys.StoreCacheType.self] }
        set { self[ImageContextKeys.StoreCacheType.self] = newValue }
    }
    /// Where the original image is stored when a transformer or thumbnail changes it. `.disk` by default.
    public var originalStoreCacheType: ImageCacheType {
        get { self[ImageContextKeys.OriginalStoreCacheType.self] }
        set { self[ImageContextKeys.OriginalStoreCacheType.self] = newValue }
    }
    /// Which caches the query looks in. `.all` by default.
    public var queryCacheType: ImageCacheType {
        get { self[ImageContextKeys.QueryCacheType.self] }
        set { self[ImageContextKeys.QueryCacheType.self] = newValue }
    }
    /// Which caches are asked for the original image when the transformed one is missing. `.disk` by default.
    public var originalQueryCacheType: ImageCacheType {
        get { self[ImageContextKeys.OriginalQueryCacheType.self] }
        set { self[ImageContextKeys.OriginalQueryCacheType.self] = newValue }
    }
    /// Decode at most this size (a thumbnail); part of the cache key.
    public var thumbnailPixelSize: PixelSize? {
        get { self[ImageContextKeys.ThumbnailPixelSize.self] }
        set { self[ImageContextKeys.ThumbnailPixelSize.self] = newValue }
    }
    /// With a thumbnail size, keep the image's shape. True by default.
    public var preserveAspectRatio: Bool {
        get { self[ImageContextKeys.PreserveAspectRatio.self] }
        set { self[ImageContextKeys.PreserveAspectRatio.self] = newValue }
    }
    /// Points-per-pixel scale of the decoded image; by default taken from an `@2x`/`@3x` URL suffix, else 1.
    public var imageScaleFactor: Double? {
        get { self[ImageContextKeys.ScaleFactor.self] }
        set { self[ImageContextKeys.ScaleFactor.self] = newValue }
    }
    /// Base decode options (pixel limit, partial images); the other keys and options are applied on top.
    public var decodeOptions: DecodeOptions? {
        get { self[ImageContextKeys.Decode.self] }
        set { self[ImageContextKeys.Decode.self] = newValue }
    }
    /// Change or refuse the request before it is sent.
    public var requestModifier: (any RequestModifier)? {
        get { self[ImageContextKeys.Requests.self] }
        set { self[ImageContextKeys.Requests.self] = newValue }
    }
    /// Validate or change the response before the body is used.
    public var responseModifier: (any ResponseModifier)? {
        get { self[ImageContextKeys.Responses.self] }
        set { self[ImageContextKeys.Responses.self] = newValue }
    }
    /// Transform the downloaded bytes before decoding (e.g. decrypt them).
    public var downloadDecryptor: (any DownloadDecryptor)? {
        get { self[ImageContextKeys.Decryptor.self] }
        set { self[ImageContextKeys.Decryptor.self] = newValue }
    }
    /// The queue completion and progress handlers run on; nil runs them on the framework's threads.
    public var callbackQueue: DispatchQueue? {
        get { self[ImageContextKeys.CallbackQueue.self] }
        set { self[ImageContextKeys.CallbackQueue.self] = newValue }
    }
    /// Where this request's load flow logs; nil uses the manager's ``ImageManager/Settings/logger``.
    public var logger: Logger? {
        get { self[ImageContextKeys.RequestLogger.self] }
        set { self[ImageContextKeys.RequestLogger.self] = newValue }
    }
    /// Names the load slot on a view target; a new load with the same key cancels the previous one.
    public var operationKey: String? {
        get { self[ImageContextKeys.OperationKey.self] }
        set { self[ImageContextKeys.OperationKey.self] = newValue }
    }
    /// The cached image a `refreshCached` revalidation holds (set by the manager for the loader).
    public var loaderCachedImage: Image? {
        get { self[ImageContextKeys.LoaderCachedImage.self] }
        set { self[ImageContextKeys.LoaderCachedImage.self] = newValue }
    }
    /// ETag / Last-Modified of the cached copy, for a conditional request (set by the manager).
    public var cacheValidators: CacheValidators? {
        get { self[ImageContextKeys.Validators.self] }
        set { self[ImageContextKeys.Validators.self] = newValue }
    }
    /// Seconds between progress callbacks; 0 reports every chunk.
    public var minimumProgressInterval: Double {
        get { self[ImageContextKeys.MinimumProgressInterval.self] }
        set { self[ImageContextKeys.MinimumProgressInterval.self] = newValue }
    }
}

extension ImageContext {
    /// The decode options a request with `options` and this context asks for.
    public func decodeOptions(for options: ImageOptions, url: URL? = nil) -> DecodeOptions {
        var decode = decodeOptions ?? DecodeOptions()
        decode.preserveAspectRatio = preserveAspectRatio
        if let size = thumbnailPixelSize {
            decode.thumbnailPixelSize = size
        } else if options.contains(.scaleDownLargeImages) {
            decode.thumbnailPixelSize = PixelSize(DecodeOptions.scaleDownLimit)
            decode.preserveAspectRatio = true
        }
        decode.scale = imageScaleFactor ?? url.map(ImageContext.scaleFromURL) ?? 1
        if options.contains(.decodeFirstFrameOnly) { decode.firstFrameOnly = true }
        if options.contains(.preloadAllFrames) { decode.preloadAllFrames = true }
        if options.contains(.ignoreOrientation) { decode.applyOrientation = false }
        return decode
    }

    /// `2` for `icon@2x.png`, `3` for `@3x`, else 1 (SDWebImage's scale-from-name rule).
    static func scaleFromURL(_ url: URL) -> Double {
        // Most URLs hold no `@`, written or percent-encoded, so their name cannot end in `@2x`; answering
        // those from the string skips building a second URL, which was a sixth of the instructions of a
        // download's load flow (cache-bench's full load).
        var absolute = url.absoluteString
        let mayNameAScale = absolute.withUTF8 { $0.contains(UInt8(ascii: "@")) || $0.contains(UInt8(ascii: "%")) }
        guard mayNameAScale else { return 1 }
        let name = url.deletingPathExtension().lastPathComponent
        if name.hasSuffix("@2x") { return 2 }
        if name.hasSuffix("@3x") { return 3 }
        return 1
    }
}

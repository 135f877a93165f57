import Foundation

/// Turns a URL into the key its image is cached under (SDWebImage's `SDWebImageCacheKeyFilter`).
public protocol CacheKeyFilter: Sendable {
    /// The key for `url`; nil means "do not cache" is not supported, so return the URL string to keep it.
    func cacheKey(for url: URL) -> String
}

/// A ``CacheKeyFilter`` made from a closure.
public struct CacheKeyFilterBlock: CacheKeyFilter {
    private let body: @Sendable (URL) -> String
    /// A filter that returns `body`'s key for each URL.
    public init(_ body: @escaping @Sendable (URL) -> String) { self.body = body }
    public func cacheKey(for url: URL) -> String { body(url) }
}

/// Turns an image into the bytes stored on disk (SDWebImage's `SDWebImageCacheSerializer`).
public protocol CacheSerializer: Sendable {
    /// The bytes to store for `image`; `originalData` is what was downloaded, when there is any.
    /// Return nil to let the cache encode the image itself.
    func cacheData(for image: Image, originalData: Data?, url: URL?) -> Data?
}

/// A ``CacheSerializer`` made from a closure.
public struct CacheSerializerBlock: CacheSerializer {
    private let body: @Sendable (Image, Data?, URL?) -> Data?
    /// A serializer that stores what `body` returns (nil: the image's own encoding).
    public init(_ body: @escaping @Sendable (Image, Data?, URL?) -> Data?) { self.body = body }
    public func cacheData(for image: Image, originalData: Data?, url: URL?) -> Data? { body(image, originalData, url) }
}

/// Cache-key arithmetic shared by the manager and caches (SDWebImage's `SDTransformedKeyForKey` and
/// `SDThumbnailedKeyForKey`).
public enum CacheKey {
    /// `key` with the transformer key inserted before the path extension, so the file keeps its type:
    /// `a/b.png` + `round` gives `a/b-round.png`.
    public static func transformed(_ key: String, transformerKey: String) -> String {
        guard !transformerKey.isEmpty else { return key }
        if let url = URL(string: key), !url.pathExtension.isEmpty, url.query == nil, url.fragment == nil {
            let ext = url.pathExtension
            return String(key.dropLast(ext.count + 1)) + "-" + transformerKey + "." + ext
        }
        return key + "-" + transformerKey
    }

    /// `key` tagged with a thumbnail size and aspect mode, so each thumbnail size caches separately.
    public static func thumbnailed(_ key: String, size: PixelSize, preserveAspectRatio: Bool) -> String {
        key + "-Thumbnail(\(size.width)x\(size.height),\(preserveAspectRatio ? 1 : 0))"
    }
}

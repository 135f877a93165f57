import Foundation

/// What a load answers with.
public struct ImageLoadResult: Sendable {
    /// The image, transformed if a transformer was given.
    public var image: Image
    /// The bytes the image came from, when known (a download or a disk hit).
    public var data: Data?
    /// Where the image came from: `.none` for the loader (network, file), else the cache level.
    public var cacheType: ImageCacheType
    /// The URL asked for.
    public var url: URL
    /// False for the first answer of a `refreshCached` load (the cached image, before revalidation);
    /// true for the final answer every load ends with.
    public var isFinal: Bool

    /// A result of a load of `url`.
    public init(image: Image, data: Data?, cacheType: ImageCacheType, url: URL, isFinal: Bool = true) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
        self.isFinal = isFinal
    }
}

/// Completion handler of a load: called once with the final result, and once more before it with
/// a non-final cached result when `refreshCached` finds the image in the cache.
public typealias ImageLoadCompletion = @Sendable (Result<ImageLoadResult, ImageError>) -> Void

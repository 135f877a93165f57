import Foundation

/// One entry read from Redis: the image bytes and their extended data (the HTTP validators).
public struct RedisCacheEntry: Sendable, Hashable {
    /// The encoded image, as stored.
    public var data: Data
    /// The extra bytes stored with it; nil when there were none.
    public var extendedData: Data?

    /// An entry of `data` with its `extendedData`.
    public init(data: Data, extendedData: Data?) {
        self.data = data
        self.extendedData = extendedData
    }
}

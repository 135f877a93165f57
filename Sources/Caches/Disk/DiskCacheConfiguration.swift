import Foundation

/// Limits and policies of a ``DiskCache`` (the disk half of SDWebImage's `SDImageCacheConfig`).
///
/// ```swift
/// var configuration = DiskCacheConfiguration()
/// configuration.maxDiskSize = 500 << 20          // trim to 250 MB when 500 MB is crossed
/// configuration.expireType = .accessDate          // expire what has not been read for a week
/// ```
public struct DiskCacheConfiguration: Sendable, Hashable {
    /// Which file date expiry and trimming go by.
    public enum ExpireType: String, Sendable, Hashable, CaseIterable {
        /// The last read: a hit refreshes it, so entries in use stay (least recently used goes first).
        case accessDate
        /// The last write: an entry lives `maxDiskAge` after it was stored, however often it is read.
        /// SDWebImage's default.
        case modificationDate
    }

    /// When written bytes are forced to the device.
    public enum Durability: String, Sendable, Hashable, CaseIterable {
        /// No `fsync`: the rename is atomic for readers and other processes, but after a power loss an
        /// entry written in the last seconds may be empty or missing. For a cache that is only a miss
        /// (an undecodable file is removed when read), so this is the default: it is several times faster.
        case rename
        /// `fsync` the file before the rename, so an entry that was stored survives a power loss.
        case fsyncBeforeRename
    }

    /// Where extended data (the HTTP validators) is kept.
    public enum ExtendedDataStorage: String, Sendable, Hashable, CaseIterable {
        /// An extended attribute on the file (`user.webimage.extended`), set before the file is renamed
        /// into place, so data and validators appear together; a sidecar file when the filesystem
        /// refuses the attribute. The default.
        case extendedAttributes
        /// Always a sidecar file `<name>-extended` beside the entry (for filesystems or copy tools that
        /// drop attributes).
        case sidecarFile
    }

    /// One week, SDWebImage's default age limit.
    public static let defaultMaxDiskAge: Duration = .seconds(7 * 24 * 60 * 60)

    /// Entries older than this (by ``expireType``) are removed by a trim. Zero or less: no age limit.
    /// One week (``defaultMaxDiskAge``) by default.
    public var maxDiskAge: Duration = DiskCacheConfiguration.defaultMaxDiskAge
    /// When a store takes the cache above this many bytes, a background trim removes the oldest entries
    /// until it holds at most half. Zero: no size limit (the default, as in SDWebImage).
    public var maxDiskSize: Int = 0
    /// The date that decides age and trim order. `.modificationDate` by default, as in SDWebImage.
    public var expireType: ExpireType = .modificationDate
    /// Directories of read-only caches (for example one shipped with an application), named by the same
    /// scheme and searched after the main directory. Never written, trimmed or counted. Empty by default.
    public var additionalReadOnlyDirectories: [URL] = []
    /// When bytes are flushed to the device. `.rename` by default.
    public var durability: Durability = .rename
    /// Where extended data is kept. `.extendedAttributes` by default.
    public var extendedDataStorage: ExtendedDataStorage = .extendedAttributes

    /// The default configuration: one week, no size limit, modification date.
    public init() {}
}

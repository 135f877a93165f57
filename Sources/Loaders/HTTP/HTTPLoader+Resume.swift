import Foundation

/// The bodies of interrupted transfers that the loader keeps to resume (see
/// ``HTTPLoaderConfiguration/resumableDataCapacity``).
extension HTTPLoader {
    /// Bytes of interrupted bodies held now; never more than the configured capacity.
    public var resumableDataByteCount: Int { scheduler.resumableData.byteCount }

    /// Interrupted bodies held now, one per request.
    public var resumableDataCount: Int { scheduler.resumableData.count }

    /// Forgets every interrupted body: the next attempts start from the first byte.
    public func removeAllResumableData() { scheduler.resumableData.removeAll() }
}
